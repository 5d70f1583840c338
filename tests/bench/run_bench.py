#!/usr/bin/env python3
"""Side-by-side benchmark of tensord, TensorFlow, ONNX Runtime and OpenVINO on the test models.

Every runtime runs the same SavedModel signature on the same input bytes, each in its own
process (a runtime's idle thread pools would otherwise steal CPUs from the next one), with the
same thread count (--threads, default: the CPUs this process may run on): tensord's intra- and
inter-op threads, TensorFlow's tf.config.threading intra/inter-op parallelism, ONNX Runtime's
SessionOptions intra_op_num_threads/inter_op_num_threads, OpenVINO's INFERENCE_NUM_THREADS.

  tensord       bazel-bin/tests/bench/tensord_bench (tests/bench/bench_main.cc), in process.
  TensorFlow    tf.saved_model.load(...).signatures[signature], called eagerly.
  ONNX Runtime  the signature converted with tf2onnx (python -m tf2onnx.convert), then an
                InferenceSession on the CPU execution provider. tf2onnx writes Erfc (exact
                GELU), which is no ONNX operator, as is; such nodes become 1 - Erf(x).
  OpenVINO      ov.Core().read_model on the SavedModel directory, compiled for CPU with
                INFERENCE_PRECISION_HINT f32: on CPUs with AMX or AVX-512 BF16 OpenVINO
                otherwise computes in bfloat16, which is not the fp32 every other runtime runs.

--precision bf16 measures the reduced-precision modes instead: tensord_bench --precision bf16
(tensord's per-model `precision: bf16`) and OpenVINO's INFERENCE_PRECISION_HINT bf16 (its
default on such CPUs); TensorFlow and ONNX Runtime have no bfloat16 mode for these graphs on the
CPU and run fp32 as the reference. The goals table (fp32 targets) is left out of such a run.

Models (--models): by default keras_mlp, keras_transformer, keras_rnn (Keras LSTM + GRU),
mobilenet_v2 and resnet50; any model directory under tests/testdata (the committed, "small"
models, e.g. cnn_small, keras_text_cnn) or tests/generated (the 64x64 keras.applications CNNs,
`make models`) works. Inputs: the model's first golden case (golden/cases.json). Batch 1 is
every input cut to its first row along dim 0; batch N (--batch, 32) is that row tiled N times
along dim 0.

Every runtime is measured --rounds times (default 3) per model, in worker processes started in
turn, each round beginning with the next runtime; the report gives the median of each number
over the rounds, so that a slow spell of a shared VM does not land on one runtime alone.

Measured, per model and runtime:
  latency     p50 and p99 (nearest rank) of --iterations batch-1 runs after --warmup runs.
  throughput  --batch_iterations batch-N runs after --warmup runs: N / mean seconds per run.
  load        time of the load call, and of the first batch-1 run after it, shown as
              "load + first run" (ms). The load call is SavedModelBundle::Load for tensord (parse,
              inline functions, restore variables, run the init op, freeze variables, fold
              constants; its execution plan and kernels are built lazily by the first run),
              tf.saved_model.load plus the signature lookup for TensorFlow, InferenceSession
              creation for ONNX Runtime (the tf2onnx conversion before it is not counted; its
              time is in the JSON output), read_model + compile_model for OpenVINO. The model's
              files are read once before any runtime runs: every load finds them in the page
              cache.
  memory      VmRSS of the worker process (MB, /proc/self/status) before the load call, after
              it (the inputs are read only then: a server holds no request data after a load),
              when ready (after the first run), after all runs, and the peak (VmHWM). Python
              runtimes' RSS includes the interpreter and the runtime's library, imported before
              "before load"; "+Δ" (minus before load) is the model's incremental cost.
              The ×weights ratios divide the process RSS by the weight bytes: the
              bytes of the variables the signature captures (TensorFlow's view; the variables/
              data file can be larger: the Keras exports here store every variable twice), or
              the data files' size where TensorFlow did not run (marked with a note).
  GFLOP/s     2 × the multiply-accumulates of Conv2D, DepthwiseConv2dNative, MatMul,
              BatchMatMul and Einsum ops at the batch-N input shape, counted by TensorFlow's
              worker on the signature's graph with variables frozen, re-imported with the inputs'
              shapes fixed so that every shape is static (models with loops: n/a, a loop body's
              ops would be counted once), divided by each runtime's mean batch-N time. The peak
              is measured by bazel-bin/tests/bench/peak_flops (register-only FMA chains on
              --threads threads; AVX2 and AVX-512).

Ratios: latency and load are other / tensord, throughput tensord / other, so >1 always means
tensord is better. A runtime that cannot convert, load or run a model shows n/a with the reason
in a footnote. A goals table at the end checks the targets of the runtime issue (goals() below).
--runtimes picks a subset; tensord always runs, as the base of every ratio.

  bazel build //tests/bench:tensord_bench //tests/bench:peak_flops
  python3 tests/bench/run_bench.py [--models keras_mlp resnet50 ...] [--runtimes tensord ...]
      [--iterations 100] [--warmup 10] [--batch 32] [--batch_iterations 10] [--threads N]
      [--timeout 1800] [--precision fp32|bf16] [--report]

--report appends the Markdown section to tests/bench/REPORT.md; without it the section is only
printed (after one JSON line per model with every measurement).
"""
import argparse
import datetime
import importlib.metadata
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMALL_MODEL_DIR = os.path.join(ROOT, "tests", "testdata")      # committed, small
LARGE_MODEL_DIR = os.path.join(ROOT, "tests", "generated")     # made by `make models`
MODEL_DIRS = [SMALL_MODEL_DIR, LARGE_MODEL_DIR]
BENCH_BIN = os.path.join(ROOT, "bazel-bin", "tests", "bench", "tensord_bench")
PEAK_BIN = os.path.join(ROOT, "bazel-bin", "tests", "bench", "peak_flops")
REPORT = os.path.join(ROOT, "tests", "bench", "REPORT.md")

DEFAULT_MODELS = ["keras_mlp", "keras_transformer", "keras_rnn", "mobilenet_v2", "resnet50"]
RUNTIMES = ["tensord", "tensorflow", "onnxruntime", "openvino"]
LABELS = {"tensord": "tensord", "tensorflow": "TensorFlow", "onnxruntime": "ONNX Runtime",
          "openvino": "OpenVINO"}
MB = 1024 * 1024


# ---------------------------------------------------------------------------------------------
# Inputs


def find_model(name):
    """A model directory by name under MODEL_DIRS, or given as a path (e.g. a --full_size
    export of generate.py elsewhere)."""
    if os.path.exists(os.path.join(name, "golden", "cases.json")):
        return os.path.abspath(name)
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


def first_row_tiled(inputs, rows):
    """Every input's first row along dim 0, repeated `rows` times (scalars stay as they are)."""
    return {alias: np.ascontiguousarray(np.repeat(v[:1], rows, axis=0)) if v.ndim else v
            for alias, v in inputs.items()}


def write_inputs(inputs, directory):
    """Saves inputs as .npy files; returns the ALIAS=FILE,... spec that every worker reads."""
    os.makedirs(directory, exist_ok=True)
    items = []
    for i, (alias, value) in enumerate(sorted(inputs.items())):
        path = os.path.join(directory, f"{i}.npy")  # aliases need not be valid file names
        np.save(path, value)
        items.append(f"{alias}={path}")
    return ",".join(items)


def read_inputs(spec):
    return {alias: np.load(path) for alias, path in
            (item.split("=", 1) for item in spec.split(",") if item)}


def weight_file_bytes(model_root):
    variables = os.path.join(model_root, "1", "variables")
    if not os.path.isdir(variables):
        return 0
    return sum(os.path.getsize(os.path.join(variables, f)) for f in os.listdir(variables)
               if ".data-" in f)


# ---------------------------------------------------------------------------------------------
# Measurement helpers shared by the Python workers (bench_main.cc does the same for tensord)


def rss_mb(field="VmRSS"):
    """A memory field of /proc/self/status in MB (None where there is no /proc)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def percentile(sorted_times, p):
    """Nearest rank, as bench_main.cc computes it."""
    rank = math.ceil(p * len(sorted_times) - 1e-9)
    return sorted_times[min(len(sorted_times), max(rank, 1)) - 1]


def time_runs(fn, count):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def error_text(exc):
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:300]


def measure(backend, export_dir, signature, input_spec, batch_spec, args):
    """Loads the model with `backend` and times it; returns the worker JSON schema."""
    backend.prepare(export_dir, signature)  # e.g. tf2onnx conversion, outside the load time
    before = rss_mb()
    start = time.perf_counter()
    backend.load(export_dir, signature)
    load_ms = (time.perf_counter() - start) * 1000
    loaded = rss_mb()
    # Read only now, as tensord_bench does: a server holds no request data after a load.
    inputs, batch_inputs = read_inputs(input_spec), read_inputs(batch_spec)
    run = backend.runner(inputs)  # converting inputs to the runtime's tensors is not timed
    first_run_ms = time_runs(run, 1)[0]
    result = {"runtime": backend.name, "version": backend.version(), "load_ms": load_ms,
              "first_run_ms": first_run_ms,
              "rss": {"before_load_mb": before, "loaded_mb": loaded, "ready_mb": rss_mb()}}
    time_runs(run, args.warmup)
    times = sorted(time_runs(run, args.iterations))
    result["latency"] = {"iterations": args.iterations, "p50_ms": percentile(times, 0.5),
                         "p99_ms": percentile(times, 0.99), "mean_ms": sum(times) / len(times),
                         "min_ms": times[0]}
    try:
        run_batch = backend.runner(batch_inputs)
        time_runs(run_batch, args.warmup)
        mean_ms = sum(time_runs(run_batch, args.batch_iterations)) / args.batch_iterations
        batch = next((v.shape[0] for v in batch_inputs.values() if v.ndim), 1)
        result["throughput"] = {"batch": batch, "iterations": args.batch_iterations,
                                "mean_ms": mean_ms, "per_s": batch * 1000 / mean_ms}
    except Exception as e:  # e.g. a model exported with a fixed batch size
        result["throughput"] = {"error": error_text(e)}
    result["rss"].update({"after_runs_mb": rss_mb(), "peak_mb": rss_mb("VmHWM")})
    result.update(backend.extras(batch_inputs))  # after the measurements: may allocate a lot
    return result


# ---------------------------------------------------------------------------------------------
# Runtimes. Each backend imports its library and sets the thread count in __init__ (so that
# "before load" RSS includes the library), loads in load(), and makes a no-argument callable
# that runs the signature once in runner().


class TensorFlowBackend:
    name = "tensorflow"

    def __init__(self, threads, workdir):
        import tensorflow as tf
        self.tf = tf
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)

    def version(self):
        return self.tf.__version__

    def prepare(self, export_dir, signature):
        pass

    def load(self, export_dir, signature):
        # The signature only holds weak references to the variables: keep the object alive.
        self.loaded = self.tf.saved_model.load(export_dir)
        self.fn = self.loaded.signatures[signature]

    def runner(self, inputs):
        feeds = {k: self.tf.constant(v) for k, v in inputs.items()}
        return lambda: self.fn(**feeds)

    def extras(self, batch_inputs):
        """Weight bytes and the FLOPs of one batch-N run, which only TensorFlow can compute."""
        out = {"weight_bytes": int(sum(np.prod(v.shape) * v.dtype.size
                                       for v in self.fn.graph.variables))}
        try:
            out["flops"] = count_flops(self.tf, self.fn, batch_inputs)
        except Exception as e:
            out["flops_error"] = error_text(e)
        return out


def replace_erfc(onnx_path):
    """Rewrites tf2onnx's Erfc nodes as 1 - Erf(x); returns how many.

    tf2onnx 1.17 converts TensorFlow's Erfc (Keras' exact GELU) to an "Erfc" node, which is not
    an ONNX operator, so ONNX Runtime rejects the model. 1 - erf(x) is erfc's definition.
    """
    import onnx
    from onnx import helper, numpy_helper
    model = onnx.load(onnx_path)
    graph = model.graph
    nodes = []
    count = 0
    for node in graph.node:
        if node.op_type != "Erfc" or node.domain not in ("", "ai.onnx"):
            nodes.append(node)
            continue
        count += 1
        erf, one = node.output[0] + "/erf", node.output[0] + "/one"
        graph.initializer.append(numpy_helper.from_array(np.array(1, np.float32), one))
        nodes.append(helper.make_node("Erf", [node.input[0]], [erf], name=node.name + "/erf"))
        nodes.append(helper.make_node("Sub", [one, erf], list(node.output), name=node.name))
    if count:
        del graph.node[:]
        graph.node.extend(nodes)
        onnx.save(model, onnx_path)
    return count


class OnnxRuntimeBackend:
    name = "onnxruntime"

    def __init__(self, threads, workdir):
        import onnxruntime as ort
        self.ort, self.threads, self.workdir = ort, threads, workdir

    def version(self):
        return f"{self.ort.__version__}, tf2onnx {importlib.metadata.version('tf2onnx')}"

    def prepare(self, export_dir, signature):
        model = os.path.basename(os.path.dirname(os.path.normpath(export_dir)))
        self.onnx_path = os.path.join(self.workdir, model + ".onnx")
        self.convert_ms, self.rewritten = None, None
        if os.path.exists(self.onnx_path):  # converted in an earlier round
            return
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "tf2onnx.convert", "--saved-model", export_dir,
                              "--signature_def", signature, "--output", self.onnx_path],
                             capture_output=True, text=True)
        self.convert_ms = (time.perf_counter() - start) * 1000
        if out.returncode != 0 or not os.path.exists(self.onnx_path):
            errors = [l for l in out.stderr.splitlines() if "Error" in l or "error" in l]
            raise RuntimeError("tf2onnx conversion failed: " +
                               (errors or out.stderr.splitlines() or ["no output"])[-1][:160])
        self.rewritten = replace_erfc(self.onnx_path)

    def load(self, export_dir, signature):
        options = self.ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = self.threads
        try:
            self.session = self.ort.InferenceSession(self.onnx_path, options,
                                                     providers=["CPUExecutionProvider"])
        except Exception as e:  # name the file without the temporary directory in the report
            raise RuntimeError(str(e).replace(self.onnx_path, os.path.basename(self.onnx_path)))

    def runner(self, inputs):
        # tf2onnx keeps the signature's input aliases as names, possibly with a ":0" suffix.
        feeds = {i.name: inputs[i.name.split(":")[0]] for i in self.session.get_inputs()}
        return lambda: self.session.run(None, feeds)

    def extras(self, batch_inputs):
        return {"convert_ms": self.convert_ms, "erfc_rewritten": self.rewritten}


class OpenVinoBackend:
    name = "openvino"

    def __init__(self, threads, workdir):
        import openvino as ov
        self.ov, self.threads = ov, threads
        self.core = ov.Core()

    def version(self):
        return self.ov.__version__.split("-")[0]

    def prepare(self, export_dir, signature):
        # read_model takes no signature argument; this benchmark relies on its default one.
        if signature != "serving_default":
            raise RuntimeError("only serving_default is benchmarked on OpenVINO")

    def load(self, export_dir, signature):
        model = self.core.read_model(export_dir)
        self.compiled = self.core.compile_model(
            model, "CPU",
            {"INFERENCE_NUM_THREADS": self.threads,
             "INFERENCE_PRECISION_HINT": "bf16" if self.precision == "bf16" else "f32"})
        self.request = self.compiled.create_infer_request()

    def runner(self, inputs):
        feeds = {}
        for port in self.compiled.inputs:
            names = port.get_names()
            alias = next((a for a in inputs if a in names or f"{a}:0" in names), None)
            if alias is None:
                raise RuntimeError(f"no input alias matches OpenVINO input {sorted(names)}")
            feeds[port] = inputs[alias]
        return lambda: self.request.infer(feeds)

    def extras(self, batch_inputs):
        return {}


BACKENDS = {b.name: b for b in [TensorFlowBackend, OnnxRuntimeBackend, OpenVinoBackend]}


# ---------------------------------------------------------------------------------------------
# FLOP counting (runs inside TensorFlow's worker)


def count_flops(tf, fn, batch_inputs):
    """2 × multiply-accumulates of the heavy ops of `fn` on `batch_inputs`' shapes."""
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    graph_def = convert_variables_to_constants_v2(fn).graph.as_graph_def()
    if any(node.op in ("Enter", "While", "StatelessWhile") for node in graph_def.node):
        raise RuntimeError("graph has a loop; its body would be counted once")
    graph = tf.Graph()
    with graph.as_default():
        # Placeholders of the benchmarked shape make every shape in the imported graph static.
        feeds = {spec.name + ":0": tf.compat.v1.placeholder(spec.dtype, batch_inputs[alias].shape)
                 for alias, spec in fn.structured_input_signature[1].items()}
        tf.graph_util.import_graph_def(graph_def, input_map=feeds, name="")
    return 2 * sum(op_macs(op) for op in graph.get_operations())


def op_macs(op):
    """Multiply-accumulates of one op (0 for the ops not counted)."""
    dims = lambda t: t.shape.as_list()
    if op.type == "Conv2D":  # output N,H,W,Cout × filter kh·kw·Cin
        kh, kw, cin, _ = dims(op.inputs[1])
        return math.prod(dims(op.outputs[0])) * kh * kw * cin
    if op.type == "DepthwiseConv2dNative":  # every output channel sees kh·kw inputs
        kh, kw, _, _ = dims(op.inputs[1])
        return math.prod(dims(op.outputs[0])) * kh * kw
    if op.type == "MatMul":
        a = dims(op.inputs[0])
        return math.prod(dims(op.outputs[0])) * a[0 if op.get_attr("transpose_a") else 1]
    if op.type in ("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"):
        a = dims(op.inputs[0])
        return math.prod(dims(op.outputs[0])) * a[-2 if op.get_attr("adj_x") else -1]
    if op.type == "Einsum":  # one MAC per combination of all the equation's indices
        equation = op.get_attr("equation").decode()
        operands = equation.split("->")[0].split(",")
        if "..." in equation:
            raise RuntimeError(f"Einsum with ellipsis not counted: {equation}")
        sizes = {}
        for letters, tensor in zip(operands, op.inputs):
            sizes.update(zip(letters, dims(tensor)))
        return math.prod(sizes.values())
    return 0


# ---------------------------------------------------------------------------------------------
# Worker processes


def worker_main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", choices=sorted(BACKENDS))
    for flag in ["--export_dir", "--signature", "--inputs", "--batch_inputs", "--workdir",
                 "--precision"]:
        parser.add_argument(flag)
    for flag in ["--iterations", "--warmup", "--batch_iterations", "--threads"]:
        parser.add_argument(flag, type=int)
    args = parser.parse_args(argv)
    backend = None
    try:
        backend = BACKENDS[args.worker](args.threads, args.workdir)
        backend.precision = args.precision
        result = measure(backend, args.export_dir, args.signature, args.inputs,
                         args.batch_inputs, args)
    except Exception as e:  # reported as n/a with this reason, the run goes on
        result = {"error": error_text(e)}
        if backend is not None:
            result["version"] = backend.version()
    print(json.dumps(result), flush=True)


def parse_last_json(out):
    """The last JSON line of a worker's stdout, or an error with the end of its stderr."""
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if lines:
        return json.loads(lines[-1])
    tail = (out.stderr.strip().splitlines() or [f"exit status {out.returncode}"])[-1]
    return {"error": tail[:200]}


def run_process(cmd, timeout):
    try:
        return parse_last_json(subprocess.run(cmd, capture_output=True, text=True,
                                              timeout=timeout))
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}


def bench_tensord(export_dir, signature, spec, batch_spec, args):
    return run_process([BENCH_BIN, export_dir, "--signature", signature, "--inputs", spec,
                        "--batch_inputs", batch_spec, "--iterations", str(args.iterations),
                        "--warmup", str(args.warmup), "--batch_iterations",
                        str(args.batch_iterations), "--intra_op_threads", str(args.threads),
                        "--inter_op_threads", str(args.threads), "--precision", args.precision],
                       args.timeout)


def bench_python(runtime, export_dir, signature, spec, batch_spec, args, workdir):
    return run_process([sys.executable, os.path.abspath(__file__), "--worker", runtime,
                        "--export_dir", export_dir, "--signature", signature, "--inputs", spec,
                        "--batch_inputs", batch_spec, "--iterations", str(args.iterations),
                        "--warmup", str(args.warmup), "--batch_iterations",
                        str(args.batch_iterations), "--threads", str(args.threads),
                        "--workdir", workdir, "--precision", args.precision], args.timeout)


def measure_peak(threads):
    if not os.path.exists(PEAK_BIN):
        return {"error": "build //tests/bench:peak_flops"}
    return run_process([PEAK_BIN, "--threads", str(threads)], 120)


# ---------------------------------------------------------------------------------------------
# Report


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


def num(x):
    """A measurement with about three significant digits."""
    if x is None:
        return "n/a"
    for limit, digits in ((100, 0), (10, 1), (1, 2)):
        if abs(x) >= limit:
            return f"{x:.{digits}f}"
    return f"{x:.3f}" if abs(x) >= 0.001 or x == 0 else f"{x:.1e}"


def fmt_ratio(x):
    """A ratio: two decimals (one significant digit is too few near the goals' limits)."""
    return "n/a" if x is None else (f"{x:.0f}" if abs(x) >= 100 else f"{x:.2f}")


def lookup(result, *path):
    """result[path...], or None when the runtime failed or the value is missing."""
    value = result
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


class Footnotes:
    """Numbered notes for n/a (or qualified) cells, shared by all tables, one per distinct text."""

    def __init__(self):
        self.notes = []

    def na(self, text, value="n/a"):
        """`value` (n/a by default) marked with the number of the footnote `text`."""
        if text not in self.notes:
            self.notes.append(text)
        return f"{value} [{self.notes.index(text) + 1}]"

    def cell(self, row, runtime, *path):
        """The formatted value, or n/a with the reason (the runtime's or the phase's error)."""
        result = row["results"].get(runtime, {})
        value = lookup(result, *path)
        if value is not None:
            return num(value)
        error = result.get("error") or lookup(result, path[0], "error") or "not measured"
        return self.na(f"{LABELS[runtime]} on {row['model']}: {error}")

    def lines(self):
        return [f"[{i + 1}] {text}" for i, text in enumerate(self.notes)]


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(cells) + " |" for cells in rows]


def ready_ms(result):
    load, first = lookup(result, "load_ms"), lookup(result, "first_run_ms")
    return None if load is None or first is None else load + first


def runtime_columns(runtimes):
    """A column per runtime, each followed by its ratio column (tensord, the base, has none)."""
    header = []
    for runtime in runtimes:
        header += [LABELS[runtime]] + (["ratio"] if runtime != "tensord" else [])
    return header


def latency_table(rows, runtimes, notes):
    header = ["model", "batch-1 input"] + runtime_columns(runtimes)
    out = []
    for row in rows:
        base = lookup(row["results"]["tensord"], "latency", "p50_ms")
        cells = [row["model"], row["input"]]
        for runtime in runtimes:
            result = row["results"].get(runtime, {})
            p50 = notes.cell(row, runtime, "latency", "p50_ms")
            cells.append(p50 if p50.startswith("n/a") else
                         f"{p50} / {num(lookup(result, 'latency', 'p99_ms'))}")
            if runtime != "tensord":
                cells.append(fmt_ratio(ratio(lookup(result, "latency", "p50_ms"), base)))
        out.append(cells)
    return table(header, out)


def throughput_table(rows, runtimes, notes):
    header = ["model", "batch"] + runtime_columns(runtimes)
    out = []
    for row in rows:
        base = lookup(row["results"]["tensord"], "throughput", "per_s")
        cells = [row["model"], str(row["batch"])]
        for runtime in runtimes:
            cells.append(notes.cell(row, runtime, "throughput", "per_s"))
            if runtime != "tensord":
                other = lookup(row["results"].get(runtime, {}), "throughput", "per_s")
                cells.append(fmt_ratio(ratio(base, other)))
        out.append(cells)
    return table(header, out)


def load_table(rows, runtimes, notes):
    header = ["model"] + runtime_columns(runtimes)
    out = []
    for row in rows:
        base = ready_ms(row["results"]["tensord"])
        cells = [row["model"]]
        for runtime in runtimes:
            result = row["results"].get(runtime, {})
            load = notes.cell(row, runtime, "load_ms")
            cells.append(load if load.startswith("n/a") else
                         f"{load} + {num(lookup(result, 'first_run_ms'))}")
            if runtime != "tensord":
                cells.append(fmt_ratio(ratio(ready_ms(result), base)))
        out.append(cells)
    return table(header, out)


def rss_tables(rows, runtimes, notes):
    """(after load, when ready, after runs) tables."""
    return (rss_table(rows, runtimes, notes, "loaded_mb"),
            rss_table(rows, runtimes, notes, "ready_mb"),
            rss_after_runs_table(rows, runtimes, notes))


def rss_table(rows, runtimes, notes, field):
    """Process RSS at `field`, its increase over before load, and ×weights."""
    header = ["model", "weights"]
    for runtime in runtimes:
        header += [LABELS[runtime], "×weights"]
    out = []
    for row in rows:
        weights = num(row["weight_bytes"] / MB)
        if row["weights_from_files"]:
            weights = notes.na("TensorFlow gave no weight bytes: size of the variables/ data "
                               "files instead (Keras exports hold each variable twice)",
                               value=weights)
        cells = [row["model"], weights]
        for runtime in runtimes:
            result = row["results"].get(runtime, {})
            mb = lookup(result, "rss", field)
            before = lookup(result, "rss", "before_load_mb")
            cell = notes.cell(row, runtime, "rss", field)
            if mb is not None and before is not None:
                cell += f" (+{num(mb - before)})"
            cells += [cell, fmt_ratio(ratio(mb * MB if mb else None, row["weight_bytes"]))]
        out.append(cells)
    return table(header, out)


def rss_after_runs_table(rows, runtimes, notes):
    after = []
    for row in rows:
        cells = [row["model"]]
        for runtime in runtimes:
            result = row["results"].get(runtime, {})
            runs = notes.cell(row, runtime, "rss", "after_runs_mb")
            cells.append(runs if runs.startswith("n/a") else
                         f"{runs} / {num(lookup(result, 'rss', 'peak_mb'))}")
        after.append(cells)
    return table(["model"] + [LABELS[r] for r in runtimes], after)


def peak_gflops(peak):
    return lookup(peak, "avx512_gflops") or lookup(peak, "avx2_gflops")


def peak_text(peak):
    if "error" in peak:
        return f"Peak not measured: {peak['error']}."
    text = (f"Measured fp32 peak (peak_flops, {peak['threads']} threads): AVX-512 "
            f"{num(lookup(peak, 'avx512_gflops'))} GFLOP/s, AVX2 "
            f"{num(lookup(peak, 'avx2_gflops'))} GFLOP/s (the ceiling of code compiled for "
            "-march=x86-64-v3, as tensord's own kernels are; libraries that pick their kernels "
            "at run time, like oneDNN, can use AVX-512).")
    for isa, label in (("avx512", "AVX-512"), ("avx2", "AVX2")):
        one, all_threads = lookup(peak, f"{isa}_1thread_gflops"), lookup(peak, f"{isa}_gflops")
        if one and all_threads and all_threads < 0.75 * peak["threads"] * one:
            # Threads that do not scale mean competing processes or CPUs sharing a core.
            text += (f" Caution: {label} on {peak['threads']} threads reached only "
                     f"{all_threads / one:.2f}× its one-thread peak ({num(one)} GFLOP/s).")
    return text


def gflops_table(rows, runtimes, peak, notes):
    best = peak_gflops(peak)
    out = []
    for row in rows:
        flops = lookup(row["results"].get("tensorflow", {}), "flops")
        if flops is None:
            tf = row["results"].get("tensorflow")
            reason = ("counted by TensorFlow's worker, which did not run" if tf is None else
                      tf.get("flops_error") or tf.get("error"))
            out.append([row["model"], notes.na(f"FLOPs of {row['model']}: {reason}")] +
                       ["—"] * len(runtimes))
            continue
        cells = [row["model"], num(flops / 1e9)]
        for runtime in runtimes:
            mean_ms = lookup(row["results"].get(runtime, {}), "throughput", "mean_ms")
            if mean_ms is None:
                cells.append(notes.cell(row, runtime, "throughput", "mean_ms"))
                continue
            gflops = flops / (mean_ms / 1000) / 1e9
            share = f" ({100 * gflops / best:.1f}%)" if best else ""
            cells.append(num(gflops) + share)
        out.append(cells)
    return table(["model", f"GFLOP per batch-{rows[0]['batch']} run" if rows else "GFLOP"] +
                 [LABELS[r] for r in runtimes], out)


# Targets of the runtime issue, checked per model. "Small" models are the committed ones in
# tests/testdata; the memory target applies to the large ones (tests/generated), whose weights
# dominate: a small model's RSS is the process's fixed footprint.


def versus(ours, theirs, unit, passes, other):
    """(text, met) for tensord's value against `other`'s; met = passes(ours / theirs)."""
    for value, name in ((ours, "tensord"), (theirs, other)):
        if not value:
            return f"n/a (no {name} value; see the tables)", None
    r = ours / theirs
    # Three significant digits, so that a value just past a limit does not print as the limit.
    return f"{r:.3g}× ({num(ours)} vs {num(theirs)} {unit})", passes(r)


def p50(row, runtime):
    return lookup(row["results"].get(runtime, {}), "latency", "p50_ms")


def per_s(row, runtime):
    return lookup(row["results"].get(runtime, {}), "throughput", "per_s")


def rss_mb_at(row, field):
    return lookup(row["results"]["tensord"], "rss", field)


HEAVY = ("resnet50", "keras_transformer")
# Production sizes (issue 18): the CNNs at 224x224 and a BERT-base encoder.
PRODUCTION_CNNS = ("resnet50", "mobilenet_v2", "efficientnet_b0", "densenet121")


def production(row):
    return row["model"] == "bert_base" or (row["model"] in PRODUCTION_CNNS and
                                           "224, 224" in row["input"])


def better_peer(row, metric, best):
    """The better of ONNX Runtime's and OpenVINO's `metric` (p50 or per_s) and its name."""
    found = [(metric(row, r), LABELS[r]) for r in ("onnxruntime", "openvino")
             if metric(row, r)]
    return best(found) if found else (None, "ONNX Runtime / OpenVINO")


def goals(batch):
    """(goal, applies(row), check(row) → versus()'s (text, met)) for every target."""
    everything = lambda row: True
    return [
        ("batch-1 p50 latency ≤ 0.3× TensorFlow (small models)",
         lambda row: row["small"],
         lambda row: versus(p50(row, "tensord"), p50(row, "tensorflow"), "ms",
                            lambda r: r <= 0.3, "TensorFlow")),
        ("batch-1 p50 latency ≤ 0.9× TensorFlow (ResNet50, Transformer)",
         lambda row: row["model"] in HEAVY,
         lambda row: versus(p50(row, "tensord"), p50(row, "tensorflow"), "ms",
                            lambda r: r <= 0.9, "TensorFlow")),
        ("batch-1 p50 latency ≤ ONNX Runtime's (ResNet50, Transformer)",
         lambda row: row["model"] in HEAVY,
         lambda row: versus(p50(row, "tensord"), p50(row, "onnxruntime"), "ms",
                            lambda r: r <= 1, "ONNX Runtime")),
        (f"batch-{batch} throughput ≥ 1.1× TensorFlow (ResNet50)",
         lambda row: row["model"] == "resnet50",
         lambda row: versus(per_s(row, "tensord"), per_s(row, "tensorflow"), "/s",
                            lambda r: r >= 1.1, "TensorFlow")),
        ("batch-1 p50 ≤ 0.9× the better of ONNX Runtime and OpenVINO (production sizes)",
         production,
         lambda row: versus(p50(row, "tensord"), *better_peer(row, p50, min)[:1], "ms",
                            lambda r: r <= 0.9, better_peer(row, p50, min)[1])),
        (f"batch-{batch} throughput ≥ 1.1× (CNNs) / 1.0× (BERT) the better of the two",
         production,
         lambda row: versus(per_s(row, "tensord"), *better_peer(row, per_s, max)[:1], "/s",
                            lambda r: r >= (1.0 if row["model"] == "bert_base" else 1.1),
                            better_peer(row, per_s, max)[1])),
        ("load + first run ≤ 0.2× TensorFlow's tf.saved_model.load",
         everything,
         lambda row: versus(ready_ms(row["results"]["tensord"]),
                            lookup(row["results"].get("tensorflow", {}), "load_ms"), "ms",
                            lambda r: r <= 0.2, "TensorFlow")),
        ("RSS after load ≤ 1.3× weight bytes (large models)",
         lambda row: not row["small"],
         lambda row: versus(rss_mb_at(row, "loaded_mb"), row["weight_bytes"] / MB, "MB",
                            lambda r: r <= 1.3, "weight bytes")),
        ("RSS when ready ≤ 1.3× weight bytes (large models)",
         lambda row: not row["small"],
         lambda row: versus(rss_mb_at(row, "ready_mb"), row["weight_bytes"] / MB, "MB",
                            lambda r: r <= 1.3, "weight bytes")),
    ]


def goals_table(rows, batch):
    out = []
    for goal, applies, check in goals(batch):
        for row in filter(applies, rows):
            measured, met = check(row)
            out.append([goal, row["model"], measured,
                        "n/a" if met is None else ("met" if met else "**missed**")])
    return table(["goal", "model", "tensord (vs other)", "result"], out)


def runs(n):
    return f"{n} run" if n == 1 else f"{n} runs"


def report(rows, peak, args):
    notes = Footnotes()
    versions = []
    for runtime in args.runtimes[1:]:
        found = [lookup(row["results"].get(runtime, {}), "version") for row in rows]
        versions.append(f"{LABELS[runtime]} {next((v for v in found if v), 'version unknown')}")
    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    runtimes = args.runtimes
    latency = latency_table(rows, runtimes, notes)
    throughput = throughput_table(rows, runtimes, notes)
    load = load_table(rows, runtimes, notes)
    rss_loaded, rss_ready, rss_after = rss_tables(rows, runtimes, notes)
    gflops = gflops_table(rows, runtimes, peak, notes)
    batch = rows[0]["batch"] if rows else args.batch
    if args.precision == "bf16":
        ran = sorted({lookup(row["results"]["tensord"], "precision") or "?" for row in rows})
        precision = (f"bf16: tensord --precision bf16 (ran: {', '.join(ran)}), OpenVINO "
                     "INFERENCE_PRECISION_HINT bf16, TensorFlow and ONNX Runtime fp32")
    else:
        precision = "fp32 precision"
    lines = [
        f"## {datetime.date.today()} — {machine()}" +
        (" — bf16" if args.precision == "bf16" else ""), "",
        f"{args.threads} threads for every runtime (intra- and inter-op; OpenVINO "
        f"INFERENCE_NUM_THREADS, and {precision}); every number is the median of "
        f"{args.rounds} rounds, interleaved across runtimes. " +
        "; ".join([f"tensord {commit}"] + versions) +
        ". Method and definitions: run_bench.py's docstring.", "",
        f"Batch-1 latency, p50 / p99 (ms) over {runs(args.iterations)} after "
        f"{args.warmup} warm-up; ratio = other p50 / tensord p50 (>1: tensord faster).", "",
        *latency, "",
        f"Batch-{batch} throughput (inferences/s, {runs(args.batch_iterations)} after "
        f"{args.warmup} warm-up); ratio = tensord / other.", "",
        *throughput, "",
        "Load time, load call + first batch-1 run (ms); ratio = other / tensord, on the sums. "
        "ONNX Runtime: session creation only, tf2onnx conversion not counted.", "",
        *load, "",
        "Resident memory after load (MB, process VmRSS after the load call, before any run; "
        "+Δ = over RSS before the load call), ×weights = process RSS / weight bytes (weights "
        "in MB).", "",
        *rss_loaded, "",
        "Resident memory when ready (MB, after load and the first run), as above.", "",
        *rss_ready, "",
        "Resident memory after all runs / peak VmHWM (MB).", "",
        *rss_after, "",
        f"Achieved GFLOP/s at batch {batch} (% of the measured AVX-512 peak, or the AVX2 one on "
        f"CPUs without AVX-512). {peak_text(peak)}", "",
        *gflops, "",
    ]
    if args.precision == "fp32":
        lines += ["Goals (issue targets; tensord's value and the other side's in brackets).", "",
                  *goals_table(rows, batch), ""]
    if notes.notes:
        lines += ["n/a reasons:", ""] + [f"- {n}" for n in notes.lines()] + [""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Driver


def read_files(directory):
    """Reads every file below `directory` once, so that each runtime's load finds the model in
    the page cache: the first runtime measured would otherwise pay for the disk alone."""
    for parent, _, files in os.walk(directory):
        for f in files:
            with open(os.path.join(parent, f), "rb") as stream:
                while stream.read(1 << 24):
                    pass


def median_result(runs):
    """One runtime's rounds as one result: the median of every number over the rounds that
    succeeded (anything else from the first of them); the first failure when all failed."""
    ok = [run for run in runs if "error" not in run] or runs[:1]

    def combine(values):
        first = values[0]
        if isinstance(first, dict):
            return {k: combine([v[k] for v in values if isinstance(v, dict) and k in v])
                    for k in first}
        if isinstance(first, (int, float)) and not isinstance(first, bool):
            return statistics.median(v for v in values if isinstance(v, (int, float)))
        return first
    result = combine(ok)
    if isinstance(result, dict):
        result["rounds"] = len(ok)
    return result


def bench_model(name, args, workdir):
    root = find_model(name)
    name = os.path.basename(root)  # a path's model name
    signature, golden = load_case(root)
    batch1 = first_row_tiled(golden, 1)
    spec = write_inputs(batch1, os.path.join(workdir, name, "batch1"))
    batch_spec = write_inputs(first_row_tiled(golden, args.batch),
                              os.path.join(workdir, name, f"batch{args.batch}"))
    export_dir = os.path.join(root, "1")
    read_files(export_dir)
    rounds = {runtime: [] for runtime in args.runtimes}
    for r in range(args.rounds):
        # Each round starts with the next runtime, so that none is always measured first.
        order = args.runtimes[r % len(args.runtimes):] + args.runtimes[:r % len(args.runtimes)]
        for runtime in order:
            if runtime == "tensord":
                result = bench_tensord(export_dir, signature, spec, batch_spec, args)
            else:
                result = bench_python(runtime, export_dir, signature, spec, batch_spec, args,
                                      workdir)
            rounds[runtime].append(result)
    results = {runtime: median_result(runs) for runtime, runs in rounds.items()}
    weight_bytes = lookup(results.get("tensorflow", {}), "weight_bytes")
    from_files = not weight_bytes  # without TensorFlow: the variables/ data files' size
    if from_files:
        weight_bytes = weight_file_bytes(root)
    return {"model": name, "small": os.path.dirname(root) == SMALL_MODEL_DIR,
            "input": " ".join(f"{k}{list(v.shape)}" for k, v in sorted(batch1.items())),
            "batch": args.batch, "weight_bytes": weight_bytes, "weights_from_files": from_files,
            "results": results}


def main():
    if "--worker" in sys.argv:
        return worker_main(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS,
                        help="names under tests/testdata or tests/generated")
    parser.add_argument("--runtimes", nargs="+", default=RUNTIMES, choices=RUNTIMES)
    parser.add_argument("--rounds", type=int, default=3,
                        help="measurements per runtime and model, interleaved; medians reported")
    parser.add_argument("--iterations", type=int, default=100, help="timed batch-1 runs")
    parser.add_argument("--warmup", type=int, default=10, help="untimed runs before timing")
    parser.add_argument("--batch", type=int, default=32, help="batch size for throughput")
    parser.add_argument("--batch_iterations", type=int, default=10, help="timed batch-N runs")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="threads for every runtime (default: CPUs available)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per worker")
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                        help="bf16: tensord's and OpenVINO's bfloat16 modes (see above)")
    parser.add_argument("--report", action="store_true", help="append to tests/bench/REPORT.md")
    args = parser.parse_args()
    # tensord first and always: every ratio is relative to it.
    args.runtimes = [r for r in RUNTIMES if r == "tensord" or r in args.runtimes]
    if not os.path.exists(BENCH_BIN):
        raise SystemExit("build first: bazel build //tests/bench:tensord_bench "
                         "//tests/bench:peak_flops")

    peak = measure_peak(args.threads)  # first, while nothing else of ours runs
    print(json.dumps({"peak": peak}), flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models:
            try:
                row = bench_model(name, args, workdir)
            except SystemExit as e:
                print(e, file=sys.stderr)
                continue
            rows.append(row)
            print(json.dumps(row), flush=True)

    text = report(rows, peak, args)
    print(text)
    if args.report:
        with open(REPORT, "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
