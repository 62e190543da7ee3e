#!/usr/bin/env python3
"""N concurrent streaming requests to one llama-server (-np N), for
bench/multiclient.sh's server mode: each request's tokens are stamped as
they arrive, on the machine's monotonic clock, into RUN/TAG-cI.stamps
(one line per token, the format of bench/token_clock.c), so that
multiclient_report.py measures the window in which all N are decoding
exactly as for N llama-bench processes. Standard library only.

  server_clients.py --url http://127.0.0.1:PORT --clients N --tokens T \
      --run DIR --tag TAG

Waits for the server's /health first; prints the launch time (t0, ns)
and the number of failed requests, and exits 0.
"""
import argparse
import concurrent.futures
import importlib
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "llama-integration"))
server_check = importlib.import_module("server-check")


def stream(url, prompt, tokens, stamps_path):
    body = json.dumps({
        "prompt": prompt, "n_predict": tokens, "temperature": 0.0,
        "top_k": 1, "seed": 1, "cache_prompt": False, "ignore_eos": True,
        "stream": True,
    }).encode()
    req = urllib.request.Request(url + "/completion", data=body,
                                 headers={"Content-Type": "application/json"})
    stamps = []
    with urllib.request.urlopen(req, timeout=900) as r:
        for line in r:
            if not line.startswith(b"data: "):
                continue
            event = json.loads(line[6:])
            if event.get("stop"):
                break
            stamps.append(time.monotonic_ns())
    with open(stamps_path, "w") as f:
        f.writelines("%d\n" % s for s in stamps)
    if len(stamps) != tokens:
        raise RuntimeError("%d tokens, expected %d" % (len(stamps), tokens))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--clients", type=int, required=True)
    ap.add_argument("--tokens", type=int, required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--tag", required=True)
    ap.add_argument("--ready-timeout", type=float, default=300)
    args = ap.parse_args()
    if not server_check.wait_ready(args.url, args.ready_timeout):
        print("server_clients: %s not ready" % args.url, file=sys.stderr)
        print(time.monotonic_ns(), args.clients)
        return 0
    prompts = server_check.PROMPTS
    t0 = time.monotonic_ns()
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
        jobs = [pool.submit(stream, args.url, prompts[i % len(prompts)],
                            args.tokens,
                            os.path.join(args.run, "%s-c%d.stamps" %
                                         (args.tag, i)))
                for i in range(args.clients)]
        for i, job in enumerate(jobs):
            try:
                job.result()
            except Exception as e:  # every failed request, not the first
                print("server_clients: request %d: %s" % (i, e),
                      file=sys.stderr)
                failed += 1
    print(t0, failed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
