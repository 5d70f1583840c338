#!/usr/bin/env python3
"""Side-by-side latency of tensord, TensorFlow, ONNX Runtime and OpenVINO on the test models.

Each runtime runs the same SavedModel signature on the same golden inputs, single request at a
time (batch as stored in the golden case), after warm-up, each in its own process. ONNX models are converted from the
SavedModel with tf2onnx; OpenVINO reads the SavedModel directly. Results are printed as a
Markdown table with latency ratios relative to tensord (>1 means tensord is faster) and can be
appended to tests/bench/REPORT.md with --report.

  python3 tests/bench/run_bench.py [--models cnn_small resnet50 ...] [--iterations 30] [--report]
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL_DIRS = [os.path.join(ROOT, "tests", "testdata"), os.path.join(ROOT, "tests", "generated")]
BENCH_BIN = os.path.join(ROOT, "bazel-bin", "tests", "bench", "tensord_bench")


def find_model(name):
    for base in MODEL_DIRS:
        path = os.path.join(base, name)
        if os.path.exists(os.path.join(path, "golden", "cases.json")):
            return path
    raise SystemExit(f"model {name} not found under {MODEL_DIRS}")


def load_case(model_root, index=0):
    with open(os.path.join(model_root, "golden", "cases.json")) as f:
        case = json.load(f)["cases"][index]
    inputs = {a: np.load(os.path.join(model_root, "golden", p)) for a, p in case["inputs"].items()}
    return case["signature"], inputs


def timed(fn, iterations, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {"mean_ms": sum(times) / len(times), "p50_ms": times[len(times) // 2],
            "p90_ms": times[min(len(times) - 1, int(0.9 * len(times)))]}


def bench_tensord(model_root, iterations, warmup):
    out = subprocess.run([BENCH_BIN, model_root, "--iterations", str(iterations), "--warmup",
                          str(warmup)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def bench_tensorflow(model_root, signature, inputs, iterations, warmup):
    import tensorflow as tf
    start = time.perf_counter()
    fn = tf.saved_model.load(os.path.join(model_root, "1")).signatures[signature]
    load_ms = (time.perf_counter() - start) * 1000
    feeds = {k: tf.constant(v) for k, v in inputs.items()}
    result = timed(lambda: fn(**feeds), iterations, warmup)
    result["load_ms"] = load_ms
    return result


def bench_onnxruntime(model_root, signature, inputs, iterations, warmup, workdir):
    import onnxruntime as ort
    onnx_path = os.path.join(workdir, os.path.basename(model_root) + ".onnx")
    subprocess.run([sys.executable, "-m", "tf2onnx.convert", "--saved-model",
                    os.path.join(model_root, "1"), "--signature_def", signature, "--output",
                    onnx_path], capture_output=True, check=True)
    start = time.perf_counter()
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    load_ms = (time.perf_counter() - start) * 1000
    names = [i.name for i in session.get_inputs()]
    # tf2onnx keeps the signature's input aliases as names (possibly with a ":0" suffix).
    feeds = {n: inputs[n.split(":")[0]] for n in names}
    result = timed(lambda: session.run(None, feeds), iterations, warmup)
    result["load_ms"] = load_ms
    return result


def bench_openvino(model_root, signature, inputs, iterations, warmup):
    import openvino as ov
    start = time.perf_counter()
    model = ov.convert_model(os.path.join(model_root, "1"))
    compiled = ov.Core().compile_model(model, "CPU")
    load_ms = (time.perf_counter() - start) * 1000
    request = compiled.create_infer_request()
    feeds = {}
    for port in compiled.inputs:
        key = next((a for a in inputs if a in port.get_names() or
                    any(a in n for n in port.get_names())), None)
        feeds[port] = inputs[key if key is not None else next(iter(inputs))]
    result = timed(lambda: request.infer(feeds), iterations, warmup)
    result["load_ms"] = load_ms
    return result


WORKERS = {"tensorflow": bench_tensorflow, "onnxruntime": bench_onnxruntime,
           "openvino": bench_openvino}


def run_worker(runtime, root, args, workdir):
    """Measures one runtime in a fresh process: runtimes that keep spinning thread pools after a
    call (TensorFlow's, for one) would otherwise steal the CPUs from the next measurement."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", runtime, root, "--iterations",
           str(args.iterations), "--warmup", str(args.warmup), "--workdir", workdir]
    out = subprocess.run(cmd, capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1][:160]}
    return json.loads(lines[-1])


def worker_main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", nargs=2)
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--warmup", type=int)
    parser.add_argument("--workdir")
    args = parser.parse_args(argv)
    runtime, root = args.worker
    signature, inputs = load_case(root)
    fn = WORKERS[runtime]
    if runtime == "onnxruntime":
        result = fn(root, signature, inputs, args.iterations, args.warmup, args.workdir)
    else:
        result = fn(root, signature, inputs, args.iterations, args.warmup)
    print(json.dumps(result))


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs visible"


def main():
    if "--worker" in sys.argv:
        return worker_main(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["keras_mlp", "cnn_small", "mobilenet_v2",
                                                         "resnet50", "efficientnet_b0",
                                                         "densenet121"])
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--report", action="store_true", help="append to tests/bench/REPORT.md")
    args = parser.parse_args()
    if not os.path.exists(BENCH_BIN):
        raise SystemExit("build first: bazel build //tests/bench:tensord_bench")

    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models:
            try:
                root = find_model(name)
            except SystemExit as e:
                print(e, file=sys.stderr)
                continue
            _, inputs = load_case(root)
            results = {"tensord": bench_tensord(root, args.iterations, args.warmup)}
            for runtime in ["tensorflow", "onnxruntime", "openvino"]:
                results[runtime] = run_worker(runtime, root, args, workdir)
            shape = {k: list(v.shape) for k, v in inputs.items()}
            rows.append((name, shape, results))
            print(json.dumps({"model": name, "inputs": shape, "results": results}), flush=True)

    ours = "tensord"
    lines = [f"## {datetime.date.today()} — {machine()}", "",
             f"Single-request latency, p50 over {args.iterations} runs after {args.warmup} "
             "warm-up runs (ms); ratio = other p50 / tensord p50 (>1: tensord faster).", "",
             "| model | input | tensord | TensorFlow | ratio | ONNX Runtime | ratio | OpenVINO | ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, shape, results in rows:
        base = results[ours]["p50_ms"]
        cells = [name, " ".join(f"{k}{v}" for k, v in shape.items()), f"{base:.2f}"]
        for runtime in ["tensorflow", "onnxruntime", "openvino"]:
            r = results[runtime]
            if "error" in r:
                cells += ["n/a", "—"]
            else:
                cells += [f"{r['p50_ms']:.2f}", f"{r['p50_ms'] / base:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    table = "\n".join(lines)
    print(table)
    if args.report:
        with open(os.path.join(ROOT, "tests", "bench", "REPORT.md"), "a") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
