#!/usr/bin/env python3
"""Checks a GGUF written by make-random-model.py with gguf-py's own reader:
the hparams llama.cpp needs, every tensor's type and shape against the
hparams, and that dequantized weights are finite with a sane spread.
Exit status 1 and a line per problem otherwise.

    PYTHONPATH=<llama.cpp>/gguf-py python3 check-model.py MODEL.gguf
"""
import sys

import numpy as np

try:
    import yaml  # noqa: F401  (gguf-py imports it; unused here)
except ImportError:
    import types
    sys.modules["yaml"] = types.ModuleType("yaml")
import gguf  # noqa: E402

REQUIRED = ["general.architecture", "llama.block_count", "llama.embedding_length",
            "llama.feed_forward_length", "llama.attention.head_count",
            "llama.attention.head_count_kv", "llama.context_length",
            "llama.attention.layer_norm_rms_epsilon", "tokenizer.ggml.model",
            "tokenizer.ggml.tokens", "tokenizer.ggml.bos_token_id"]


def main(path):
    r = gguf.GGUFReader(path)
    problems = []
    f = r.fields
    for k in REQUIRED:
        if k not in f:
            problems.append("missing key %s" % k)
    if problems:
        return problems
    val = lambda k: f[k].contents()
    if val("general.architecture") != "llama":
        problems.append("architecture is %r" % val("general.architecture"))
    embd, layers = val("llama.embedding_length"), val("llama.block_count")
    heads, kv, ff = (val("llama.attention.head_count"), val("llama.attention.head_count_kv"),
                     val("llama.feed_forward_length"))
    n_vocab = len(f["tokenizer.ggml.tokens"].data)
    hd = embd // heads
    want = {"token_embd.weight": [embd, n_vocab], "output_norm.weight": [embd]}
    for i in range(layers):
        p = "blk.%d." % i
        want.update({p + "attn_norm.weight": [embd], p + "ffn_norm.weight": [embd],
                     p + "attn_q.weight": [embd, heads * hd], p + "attn_k.weight": [embd, kv * hd],
                     p + "attn_v.weight": [embd, kv * hd], p + "attn_output.weight": [heads * hd, embd],
                     p + "ffn_gate.weight": [embd, ff], p + "ffn_up.weight": [embd, ff],
                     p + "ffn_down.weight": [ff, embd]})
    have = {t.name: t for t in r.tensors}
    if "output.weight" in have:
        want["output.weight"] = [embd, n_vocab]
    for name, shape in want.items():
        t = have.get(name)
        if t is None:
            problems.append("missing tensor %s" % name)
            continue
        # GGUF lists ne0 first (row length), like ggml.
        if [int(x) for x in t.shape] != shape:
            problems.append("%s: shape %s, want %s" % (name, list(t.shape), shape))
    extra = set(have) - set(want)
    if extra:
        problems.append("unexpected tensors: %s" % sorted(extra))
    # Spread of a few dequantized weights (the first layer is enough).
    for name in ("token_embd.weight", "blk.0.attn_q.weight", "blk.0.ffn_down.weight"):
        t = have.get(name)
        if t is None:
            continue
        x = gguf.dequantize(t.data, t.tensor_type)
        std = float(np.std(x))
        if not np.all(np.isfinite(x)) or not 0.005 < std < 0.08:
            problems.append("%s: dequantized std %.4f or non-finite values" % (name, std))
    q = have.get("blk.0.attn_q.weight")
    print("check-model: %s: %d tensors, %s, embd %d, layers %d, heads %d/%d, ff %d, vocab %d"
          % (path, len(r.tensors), q.tensor_type.name if q is not None else "-", embd, layers,
             heads, kv, ff, n_vocab))
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    found = main(sys.argv[1])
    for p in found:
        print("check-model: FAIL: %s" % p)
    sys.exit(1 if found else 0)
