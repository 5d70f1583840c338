#!/usr/bin/env python3
"""How far tensord's bf16 precision (and OpenVINO's) strays from TensorFlow's float32.

For each model (a directory made by generate.py: <model>/1 and <model>/golden/cases.json),
--rows inputs are drawn from the ranges of its first golden case (floats uniform between the
case's smallest and largest value, integers likewise, bools at random), fed as one batch to:

  TensorFlow   the SavedModel's signature, float32: the reference.
  tensord      `tensorctl run --precision bf16` (the real binary), and fp32 for comparison.
  OpenVINO     compiled for CPU with INFERENCE_PRECISION_HINT bf16 (its default where the CPU
               has AMX or AVX512_BF16), only for serving_default.

Per output, against the reference: the largest absolute error, that error relative to the
output's largest magnitude, and (outputs of more than one value per row: class scores) the
share of rows whose top-1 index agrees. tensord's line says which precision ran (the load's
fallback to fp32 where the CPU has no AVX512_BF16).

  bazel build //clients/tensorctl:tensorctl
  python3 tests/models/bf16_parity.py [--models tests/testdata/cnn_small ...] [--rows 32]
      [--report]

--report appends the Markdown table to tests/models/BF16_PARITY.md.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TENSORCTL = os.path.join(ROOT, "bazel-bin", "clients", "tensorctl", "tensorctl")
REPORT = os.path.join(ROOT, "tests", "models", "BF16_PARITY.md")
DEFAULT_MODELS = [os.path.join(ROOT, "tests", "testdata", m)
                  for m in ["cnn_small", "keras_mlp", "keras_transformer", "keras_text_cnn"]]


def random_inputs(model_dir, rows, seed):
    """(signature, {alias: array of `rows` rows}) in the ranges of the first golden case."""
    with open(os.path.join(model_dir, "golden", "cases.json")) as f:
        case = json.load(f)["cases"][0]
    rng = np.random.default_rng(seed)
    inputs = {}
    for alias, path in case["inputs"].items():
        x = np.load(os.path.join(model_dir, "golden", path))
        shape = (rows,) + x.shape[1:]
        if x.dtype == np.bool_:
            inputs[alias] = rng.integers(0, 2, shape).astype(np.bool_)
        elif np.issubdtype(x.dtype, np.integer):
            inputs[alias] = rng.integers(x.min(), x.max() + 1, shape).astype(x.dtype)
        else:
            inputs[alias] = rng.uniform(x.min(), x.max(), shape).astype(x.dtype)
    return case["signature"], inputs


def tensorflow_outputs(model_dir, signature, inputs):
    import tensorflow as tf
    fn = tf.saved_model.load(os.path.join(model_dir, "1")).signatures[signature]
    return {k: v.numpy() for k, v in fn(**{k: tf.constant(v) for k, v in inputs.items()}).items()}


def tensord_outputs(model_dir, signature, inputs, precision, workdir):
    """(outputs, the precision that ran)."""
    out_dir = os.path.join(workdir, "tensord_" + precision)
    cmd = [TENSORCTL, "run", os.path.join(model_dir, "1"), "--signature_def", signature,
           "--output_dir", out_dir, "--precision", precision]
    for alias, value in inputs.items():
        path = os.path.join(workdir, alias + ".npy")
        np.save(path, value)
        cmd += ["--input", f"{alias}=@{path}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip())
    ran = "fp32" if "running fp32" in done.stderr else precision
    outputs = {f[:-4]: np.load(os.path.join(out_dir, f))
               for f in os.listdir(out_dir) if f.endswith(".npy")}
    return outputs, ran


def openvino_outputs(model_dir, signature, inputs):
    import openvino as ov
    if signature != "serving_default":
        raise RuntimeError("OpenVINO reads only serving_default")
    core = ov.Core()
    compiled = core.compile_model(core.read_model(os.path.join(model_dir, "1")), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "bf16"})
    feeds = {}
    for port in compiled.inputs:
        names = port.get_names()
        feeds[port] = next(v for a, v in inputs.items() if a in names or f"{a}:0" in names)
    result = compiled.create_infer_request().infer(feeds)
    outputs = {}
    for port in compiled.outputs:
        alias = sorted(port.get_names())[0].split(":")[0]
        outputs[alias] = result[port]
    return outputs


def compare(reference, got):
    """{alias: (max abs error, relative to max |reference|, top-1 agreement or None)}."""
    rows = {}
    for alias, want in sorted(reference.items()):
        match = got.get(alias)
        if match is None:  # OpenVINO renames outputs; one output models pair up regardless
            if len(reference) != 1 or len(got) != 1:
                continue
            match = next(iter(got.values()))
        have = np.asarray(match, np.float64).reshape(want.shape)
        want = np.asarray(want, np.float64)
        error = float(np.abs(have - want).max()) if want.size else 0.0
        scale = float(np.abs(want).max()) if want.size else 0.0
        top1 = None
        if want.ndim >= 2 and want.shape[-1] > 1:
            top1 = float((have.argmax(-1) == want.argmax(-1)).mean())
        rows[alias] = (error, error / scale if scale else 0.0, top1)
    return rows


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        lines = f.read().splitlines()
    for line in lines:
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    flags = next((l.split(":", 1)[1].split() for l in lines if l.startswith("flags")), [])
    features = [f for f in ["avx512_bf16", "amx_bf16"] if f in flags] or ["no bf16 arithmetic"]
    return f"{model}, {os.cpu_count()} CPUs, {', '.join(features)}, {platform.system()}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS)
    parser.add_argument("--rows", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    if not os.path.exists(TENSORCTL):
        raise SystemExit("build first: bazel build //clients/tensorctl:tensorctl")
    table = ["| model | output | rows | tensord bf16: max abs error | relative | top-1 | "
             "tensord fp32: max abs error | OpenVINO bf16: max abs error | relative | top-1 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    ran = set()
    for model_dir in args.models:
        name = os.path.basename(os.path.normpath(model_dir))
        signature, inputs = random_inputs(model_dir, args.rows, args.seed)
        reference = tensorflow_outputs(model_dir, signature, inputs)
        with tempfile.TemporaryDirectory() as workdir:
            bf16, precision = tensord_outputs(model_dir, signature, inputs, "bf16", workdir)
            fp32, _ = tensord_outputs(model_dir, signature, inputs, "fp32", workdir)
        ran.add(precision)
        try:
            openvino = compare(reference, openvino_outputs(model_dir, signature, inputs))
        except Exception as e:  # noted in the table, the others still compare
            print(f"{name}: OpenVINO: {e}", file=sys.stderr)
            openvino = {}
        ours, exact = compare(reference, bf16), compare(reference, fp32)
        for alias, (error, relative, top1) in ours.items():
            ov_error, ov_relative, ov_top1 = openvino.get(alias, (None, None, None))
            cells = [name, alias, str(args.rows), f"{error:.2e}", f"{relative:.2e}",
                     "-" if top1 is None else f"{top1:.1%}", f"{exact[alias][0]:.2e}",
                     "n/a" if ov_error is None else f"{ov_error:.2e}",
                     "n/a" if ov_relative is None else f"{ov_relative:.2e}",
                     "-" if ov_top1 is None else f"{ov_top1:.1%}"]
            print(json.dumps({"model": name, "output": alias, "cells": cells}), flush=True)
            table.append("| " + " | ".join(cells) + " |")
    text = "\n".join([
        f"## {datetime.date.today()} — {machine()}", "",
        f"{args.rows} random rows per model (seed {args.seed}) against TensorFlow float32; "
        f"tensord ran {', '.join(sorted(ran))}. Relative = max abs error / max |TensorFlow "
        "output|; top-1 = rows whose largest output index agrees (outputs with one value per "
        "row: -).", "", *table, ""])
    print(text)
    if args.report:
        with open(REPORT, "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
