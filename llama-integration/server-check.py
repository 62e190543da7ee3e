#!/usr/bin/env python3
"""Sends N completion requests at once to a running llama-server and writes
what came back as JSON (prompt -> text, tokens), for device-run.sh to compare
a remote-clang server with a local one. Standard library only: the GPU
machine has no network to install anything.

  server-check.py --url http://127.0.0.1:8080 --requests 8 --n-predict 64 --out r.json
  server-check.py --compare local.json remote.json

Exit status: 0 when every request got a complete answer (and, with
--compare, both files hold the same text for every prompt); 1 otherwise.
"""
import argparse
import concurrent.futures
import json
import sys
import time
import urllib.error
import urllib.request

# Different lengths and topics: the slots hold different amounts of context.
PROMPTS = [
    "The capital of France is",
    "Once upon a time, in a small village by the sea,",
    "def fibonacci(n):",
    "The three laws of thermodynamics are",
    "A recipe for bread: first,",
    "In 1969 the first humans",
    "The quick brown fox",
    "Write a haiku about GPUs:",
    "SELECT name FROM users WHERE",
    "The mitochondria is",
    "Dear hiring manager,",
    "Question: what is 17 times 23? Answer:",
]


def wait_ready(url, timeout_s):
    """llama-server answers /health with 503 while it loads the model."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/health", timeout=5) as r:
                if r.status == 200:
                    return True
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.5)
    return False


def complete(url, prompt, n_predict):
    body = json.dumps({
        "prompt": prompt, "n_predict": n_predict, "temperature": 0.0,
        "top_k": 1, "seed": 1, "cache_prompt": False, "ignore_eos": True,
    }).encode()
    req = urllib.request.Request(url + "/completion", data=body,
                                 headers={"Content-Type": "application/json"})
    start = time.time()
    with urllib.request.urlopen(req, timeout=600) as r:
        answer = json.load(r)
    return {
        "text": answer.get("content", ""),
        "tokens": answer.get("tokens_predicted", 0),
        "seconds": round(time.time() - start, 3),
    }


def run(args):
    if not wait_ready(args.url, args.ready_timeout):
        print(f"server-check: {args.url} not ready after {args.ready_timeout} s")
        return 1
    prompts = [PROMPTS[i % len(PROMPTS)] + ("" if i < len(PROMPTS) else f" ({i})")
               for i in range(args.requests)]
    results, failures = {}, 0
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.requests) as pool:
        futures = {pool.submit(complete, args.url, p, args.n_predict): p for p in prompts}
        for f in concurrent.futures.as_completed(futures):
            p = futures[f]
            try:
                results[p] = f.result()
            except Exception as e:  # report every failed request, not the first
                results[p] = {"error": str(e)}
                failures += 1
    wall = time.time() - start
    for p in prompts:
        r = results[p]
        if "error" in r:
            print(f"FAIL  {p!r}: {r['error']}")
        elif r["tokens"] != args.n_predict:
            print(f"FAIL  {p!r}: {r['tokens']} tokens, expected {args.n_predict}")
            failures += 1
        else:
            print(f"ok    {p!r}: {r['tokens']} tokens in {r['seconds']} s")
    print(f"server-check: {len(prompts) - failures}/{len(prompts)} complete, "
          f"{wall:.1f} s for all")
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    return 1 if failures else 0


def compare(local_path, remote_path):
    with open(local_path) as f:
        local = json.load(f)
    with open(remote_path) as f:
        remote = json.load(f)
    same = 0
    for p in sorted(local):
        a, b = local[p].get("text"), remote.get(p, {}).get("text")
        if a is not None and a == b:
            same += 1
            continue
        at = next((i for i, (x, y) in enumerate(zip(a or "", b or "")) if x != y),
                  min(len(a or ""), len(b or "")))
        print(f"DIFF  {p!r}: first difference at character {at}:\n"
              f"      local  {(a or '')[at:at + 60]!r}\n      remote {(b or '')[at:at + 60]!r}")
    print(f"server-check: {same}/{len(local)} answers identical remote vs local")
    return 0 if same == len(local) and len(remote) == len(local) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--n-predict", type=int, default=64)
    ap.add_argument("--ready-timeout", type=float, default=300)
    ap.add_argument("--out", default="server-check.json")
    ap.add_argument("--compare", nargs=2, metavar=("LOCAL", "REMOTE"))
    args = ap.parse_args()
    sys.exit(compare(*args.compare) if args.compare else run(args))


if __name__ == "__main__":
    main()
