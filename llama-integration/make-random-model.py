#!/usr/bin/env python3
"""Writes a Llama-shaped GGUF with random weights, for llama.cpp tests and
benchmarks that need a real model's shapes and tokenizer but not its output.

    PYTHONPATH=<llama.cpp>/gguf-py python3 make-random-model.py \
        --shape 7b --type q4_0 --out llama-7b-q4_0.gguf

The tokenizer and its hparams come from a vocab GGUF of the llama.cpp tree
(models/ggml-vocab-llama-spm.gguf: Llama 2's 32000 tokens, or -bpe: Llama 3's
128256); the layer dimensions come from --shape. Tensors are generated and
written one at a time, so a 13B f16 file never has to fit in memory.

Weights are random but "sane": quantized blocks get random quants with f16
scales chosen so the dequantized values have a std near 0.02 (the usual init),
norms are 1.0. Activations then stay finite through every layer, so greedy
generation is deterministic gibberish that two backends can be compared on.
"""
import argparse
import os
import sys

import numpy as np

try:
    import yaml  # noqa: F401  (gguf-py's metadata module imports it)
except ImportError:
    # Only model-card parsing uses it, which this script never does: a GPU
    # machine with numpy but no PyYAML can still write models.
    import types
    sys.modules["yaml"] = types.ModuleType("yaml")
try:
    import gguf
except ImportError:
    sys.exit("make-random-model: cannot import gguf: set PYTHONPATH to llama.cpp's gguf-py")

# Dimensions of the real models (config.json of each), plus a tiny one for tests.
SHAPES = {
    #        embd  layers heads kv  ff     vocab  ctx     rope_base  tied
    "tiny": (256,  2,     4,    2,  512,   "spm", 2048,   10000.0,   True),
    "1b":   (2048, 16,    32,   8,  8192,  "bpe", 131072, 500000.0,  True),   # Llama-3.2-1B
    "7b":   (4096, 32,    32,   32, 11008, "spm", 4096,   10000.0,   False),  # Llama-2-7B
    "13b":  (5120, 40,    40,   40, 13824, "spm", 4096,   10000.0,   False),  # Llama-2-13B
}

QT = gguf.GGMLQuantizationType
TYPES = {"q4_0": QT.Q4_0, "q8_0": QT.Q8_0, "f16": QT.F16}
# general.file_type (llama_ftype) for the whole file.
FTYPES = {"q4_0": gguf.LlamaFileType.MOSTLY_Q4_0, "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
          "f16": gguf.LlamaFileType.MOSTLY_F16}
TARGET_STD = 0.02
BLOCK = 32  # elements per Q4_0 / Q8_0 block

# Hparams the shape decides; everything else of the vocab file is copied.
OVERRIDDEN = ("general.", "llama.", "GGUF.")


def random_q4_0(rng, n_blocks):
    """Q4_0 block: f16 scale d, 16 bytes of nibble pairs; x = (q - 8) * d.
    Uniform q in 0..15 has std ~4.6 around 8."""
    blocks = rng.integers(0, 256, size=(n_blocks, 18), dtype=np.uint8)
    d = (TARGET_STD / 4.6 * rng.uniform(0.5, 1.5, n_blocks)).astype(np.float16)
    blocks[:, 0:2] = d.view(np.uint8).reshape(n_blocks, 2)
    return blocks


def random_q8_0(rng, n_blocks):
    """Q8_0 block: f16 scale d, 32 int8; x = q * d. Uniform int8 std ~74."""
    blocks = rng.integers(0, 256, size=(n_blocks, 34), dtype=np.uint8)
    d = (TARGET_STD / 74.0 * rng.uniform(0.5, 1.5, n_blocks)).astype(np.float16)
    blocks[:, 0:2] = d.view(np.uint8).reshape(n_blocks, 2)
    return blocks


def random_tensor(rng, qtype, shape):
    """shape is numpy order (rows, cols); rows of quantized types are whole blocks."""
    rows, cols = shape
    if qtype == QT.F16:
        return (rng.standard_normal((rows, cols), dtype=np.float32) * TARGET_STD).astype(np.float16)
    if cols % BLOCK:
        raise ValueError("row length %d is not a multiple of %d" % (cols, BLOCK))
    n_blocks = rows * cols // BLOCK
    gen = random_q4_0 if qtype == QT.Q4_0 else random_q8_0
    return gen(rng, n_blocks).reshape(rows, -1)


def vocab_path(name, llama_src):
    if os.path.isfile(name):
        return name
    return os.path.join(llama_src, "models", "ggml-vocab-llama-%s.gguf" % name)


def copy_tokenizer(reader, writer):
    """Every key of the vocab file except the hparams we set ourselves."""
    for key, field in reader.fields.items():
        if key.startswith(OVERRIDDEN):
            continue
        vtype = field.types[0]
        sub = field.types[1] if vtype == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(key, field.contents(), vtype, sub_type=sub)
    n_vocab = len(reader.fields["tokenizer.ggml.tokens"].data)
    return n_vocab


def tensor_plan(embd, layers, heads, kv, ff, n_vocab, tied, qtype):
    """(name, numpy shape, type) in llama.cpp's order. Norms stay f32 (ggml
    requires it for ggml_mul with the normalized activations)."""
    head_dim = embd // heads
    plan = [("token_embd.weight", (n_vocab, embd), qtype),
            ("output_norm.weight", (embd,), QT.F32)]
    if not tied:
        plan.append(("output.weight", (n_vocab, embd), qtype))
    for i in range(layers):
        p = "blk.%d." % i
        plan += [(p + "attn_norm.weight", (embd,), QT.F32),
                 (p + "attn_q.weight", (heads * head_dim, embd), qtype),
                 (p + "attn_k.weight", (kv * head_dim, embd), qtype),
                 (p + "attn_v.weight", (kv * head_dim, embd), qtype),
                 (p + "attn_output.weight", (embd, heads * head_dim), qtype),
                 (p + "ffn_norm.weight", (embd,), QT.F32),
                 (p + "ffn_gate.weight", (ff, embd), qtype),
                 (p + "ffn_down.weight", (embd, ff), qtype),
                 (p + "ffn_up.weight", (ff, embd), qtype)]
    return plan


def nbytes(shape, qtype):
    elems = int(np.prod(shape))
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    return elems // block * size


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), default="tiny")
    ap.add_argument("--type", choices=sorted(TYPES), default="q4_0")
    ap.add_argument("--vocab", help="spm, bpe or a vocab GGUF path (default: the shape's)")
    ap.add_argument("--llama-src", default=os.environ.get("LLAMA_SRC", ""),
                    help="llama.cpp tree (for models/ggml-vocab-*.gguf); default $LLAMA_SRC")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    embd, layers, heads, kv, ff, vocab, ctx, rope_base, tied = SHAPES[args.shape]
    vpath = vocab_path(args.vocab or vocab, args.llama_src)
    if not os.path.isfile(vpath):
        sys.exit("make-random-model: no vocab GGUF at %s (pass --llama-src or --vocab)" % vpath)
    qtype = TYPES[args.type]

    reader = gguf.GGUFReader(vpath)
    writer = gguf.GGUFWriter(args.out, "llama")
    n_vocab = copy_tokenizer(reader, writer)
    writer.add_name("random-llama-%s-%s" % (args.shape, args.type))
    writer.add_context_length(ctx)
    writer.add_embedding_length(embd)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(ff)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv)
    writer.add_rope_dimension_count(embd // heads)
    writer.add_rope_freq_base(rope_base)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(n_vocab)
    writer.add_file_type(FTYPES[args.type])
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)

    plan = tensor_plan(embd, layers, heads, kv, ff, n_vocab, tied, qtype)
    for name, shape, t in plan:
        # add_tensor_info takes the GGUF shape in numpy order for raw types.
        dtype = np.float32 if t == QT.F32 else (np.float16 if t == QT.F16 else np.uint8)
        if t in (QT.Q4_0, QT.Q8_0):
            byte_shape = (shape[0], nbytes(shape, t) // shape[0])
            writer.add_tensor_info(name, byte_shape, np.dtype(np.uint8), nbytes(shape, t), raw_dtype=t)
        else:
            writer.add_tensor_info(name, shape, np.dtype(dtype), nbytes(shape, t))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    rng = np.random.default_rng(args.seed)
    total = 0
    for name, shape, t in plan:
        if t == QT.F32:
            data = np.ones(shape, dtype=np.float32)
        else:
            data = random_tensor(rng, t, shape)
        writer.write_tensor_data(data)
        total += data.nbytes
    writer.close()
    params = sum(int(np.prod(s)) for _, s, _ in plan)
    print("make-random-model: %s: %s %s, %d tensors, %.2fB params, %.1f MiB, vocab %d (%s)"
          % (args.out, args.shape, args.type, len(plan), params / 1e9, total / 2**20,
             n_vocab, os.path.basename(vpath)))


if __name__ == "__main__":
    main()
