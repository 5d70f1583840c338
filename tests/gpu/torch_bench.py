"""The GPU benchmark of tests/gpu/check.sh: tensord serving keras_mlp and keras_transformer on
the GPU against PyTorch eager running the same architectures with the same weights on the same
GPU. Batch-1 latency (p50, p99) and batch-32 throughput; ratios > 1 mean tensord is faster.

tensord is measured through `tensorctl bench` (gRPC, one request in flight, as a client sees
it) and by its own graph-run time (tensord_runtime_duration via --metrics_url); PyTorch per
request copies the input to the GPU, runs the forward pass and copies the result back.

The PyTorch model is the forward pass below, written once over a small backend: with NumPy it
runs here (`--validate`, no GPU or PyTorch needed) and must reproduce TensorFlow's goldens,
which shows the weights (tests/gpu/export_weights.py) are wired as Keras wires them.

    python3 tests/gpu/torch_bench.py --validate WEIGHTS_DIR
    python3 tests/gpu/torch_bench.py WEIGHTS_DIR --tensord BIN --tensorctl BIN --report FILE
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from gpu_server import TESTDATA, GpuServer

LAYER_NORM_EPSILON = 1e-3  # Keras 3's default
SEQ, VOCAB = 8, 50         # keras_transformer's input (tests/models/generate.py)


class NumpyOps:
    def tensor(self, a):
        return np.asarray(a)

    def permute(self, x, axes):
        return x.transpose(axes)

    def softmax(self, x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def layer_norm(self, x, gamma, beta):
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + LAYER_NORM_EPSILON) * gamma + beta

    def gelu(self, x):
        return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))

    def relu(self, x):
        return np.maximum(x, 0.0)

    def tanh(self, x):
        return np.tanh(x)

    def mean(self, x, axis):
        return x.mean(axis=axis)


class TorchOps:
    def __init__(self, torch):
        self.torch = torch
        self.F = torch.nn.functional

    def tensor(self, a):
        if np.issubdtype(a.dtype, np.integer):
            a = a.astype(np.int64)  # PyTorch indexes with int64
        return self.torch.from_numpy(np.ascontiguousarray(a)).cuda()

    def permute(self, x, axes):
        return x.permute(*axes)

    def softmax(self, x):
        return self.F.softmax(x, dim=-1)

    def layer_norm(self, x, gamma, beta):
        return self.F.layer_norm(x, (x.shape[-1],), gamma, beta, LAYER_NORM_EPSILON)

    def gelu(self, x):
        return self.F.gelu(x)  # exact (erf), as Keras' default

    def relu(self, x):
        return self.torch.relu(x)

    def tanh(self, x):
        return self.torch.tanh(x)

    def mean(self, x, axis):
        return x.mean(dim=axis)


def mlp(ops, w, x):
    x = ops.relu(x @ w["hidden1/kernel"] + w["hidden1/bias"])
    x = ops.tanh(x @ w["hidden2/kernel"] + w["hidden2/bias"])
    return ops.softmax(x @ w["probs/kernel"] + w["probs/bias"])


def transformer(ops, w, tokens):
    h = w["token_embedding/embeddings"][tokens] + w["positions"]      # [B, S, E]
    batch, seq, width = h.shape
    heads, key_dim = w["attention/query/bias"].shape

    def project(name):  # [B, S, E] -> [B, H, S, D]
        kernel = w["attention/%s/kernel" % name].reshape(width, heads * key_dim)
        y = (h @ kernel).reshape(batch, seq, heads, key_dim) + w["attention/%s/bias" % name]
        return ops.permute(y, (0, 2, 1, 3))

    query = project("query") * (1.0 / math.sqrt(key_dim))
    key, value = project("key"), project("value")
    probs = ops.softmax(query @ ops.permute(key, (0, 1, 3, 2)))         # [B, H, S, S]
    context = ops.permute(probs @ value, (0, 2, 1, 3)).reshape(batch, seq, heads * key_dim)
    attended = (context @ w["attention/attention_output/kernel"].reshape(heads * key_dim, width)
                + w["attention/attention_output/bias"])
    h = ops.layer_norm(h + attended, w["norm1/gamma"], w["norm1/beta"])
    ff = ops.gelu(h @ w["ff1/kernel"] + w["ff1/bias"]) @ w["ff2/kernel"] + w["ff2/bias"]
    h = ops.layer_norm(h + ff, w["norm2/gamma"], w["norm2/beta"])
    return ops.mean(h, 1) @ w["logits/kernel"] + w["logits/bias"]


MODELS = {"keras_mlp": (mlp, "features"), "keras_transformer": (transformer, "tokens")}


def load_weights(weights_dir, model, ops):
    with np.load(os.path.join(weights_dir, model + ".npz")) as f:
        return {k: ops.tensor(f[k]) for k in f.files}


def validate(weights_dir):
    """The NumPy forward pass against every golden case of both models."""
    ops = NumpyOps()
    for model, (forward, alias) in MODELS.items():
        w = load_weights(weights_dir, model, ops)
        golden = os.path.join(TESTDATA, model, "golden")
        with open(os.path.join(golden, "cases.json")) as f:
            cases = json.load(f)["cases"]
        for case in cases:
            x = np.load(os.path.join(golden, case["inputs"][alias]))
            (want_file,) = case["outputs"].values()
            want = np.load(os.path.join(golden, want_file))
            got = forward(ops, w, x)
            np.testing.assert_allclose(got, want, rtol=case["rtol"], atol=case["atol"],
                                       err_msg=model)
        print("%s: the reference forward pass matches TensorFlow's %d golden case(s)"
              % (model, len(cases)))


def example_input(model, batch, rng):
    if model == "keras_mlp":
        return rng.standard_normal((batch, 16)).astype(np.float32)
    return rng.integers(0, VOCAB, (batch, SEQ)).astype(np.int32)


def torch_timings(torch, model, w, x, seconds):
    """Latencies (s) of host->GPU copy, forward pass, GPU->host copy, one at a time."""
    forward, _ = MODELS[model]
    ops = TorchOps(torch)
    with torch.inference_mode():
        for _ in range(20):
            forward(ops, w, ops.tensor(x)).cpu()
        torch.cuda.synchronize()
        latencies = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            start = time.perf_counter()
            forward(ops, w, ops.tensor(x)).cpu()  # .cpu() waits for the GPU
            latencies.append(time.perf_counter() - start)
    return np.array(latencies)


def tensord_level(tensorctl, server, model, alias, x, workdir):
    path = os.path.join(workdir, "%s_b%d.npy" % (model, len(x)))
    np.save(path, x)
    out = os.path.join(workdir, "%s_b%d.json" % (model, len(x)))
    subprocess.run([tensorctl, "bench", "--server", "127.0.0.1:%d" % server.grpc_port,
                    "--model", model,
                    "--input", "%s=@%s" % (alias, path), "--batch", str(len(x)),
                    "--warmup_requests", "50", "--measurement_interval_ms", "2000",
                    "--max_trials", "6", "--json", out,
                    "--metrics_url", server.rest_url("/monitoring/prometheus/metrics")],
                   check=True, stdout=subprocess.DEVNULL, timeout=120)
    with open(out) as f:
        (row,) = json.load(f)
    if row["errors"]:
        sys.exit("tensorctl bench %s batch %d: %s" % (model, len(x), row["error_codes"]))
    return row


def bench(args):
    import torch
    if not torch.cuda.is_available():
        sys.exit("PyTorch sees no GPU")
    rng = np.random.default_rng(0)
    workdir = tempfile.mkdtemp()
    server = GpuServer(args.tensord, MODELS, workdir)
    rows = []
    try:
        for model, (_, alias) in MODELS.items():
            w = load_weights(args.weights, model, TorchOps(torch))
            for batch in (1, 32):
                x = example_input(model, batch, rng)
                served = tensord_level(args.tensorctl, server, model, alias, x, workdir)
                t = torch_timings(torch, model, w, x, args.seconds)
                rows.append({
                    "model": model, "batch": batch,
                    "tensord_p50_ms": served["latency_p50_ms"],
                    "tensord_p99_ms": served["latency_p99_ms"],
                    "tensord_compute_ms": served["server_compute_ms"],
                    "tensord_rows_per_s": served["throughput_rows_per_s"],
                    "torch_p50_ms": float(np.percentile(t, 50) * 1e3),
                    "torch_p99_ms": float(np.percentile(t, 99) * 1e3),
                    "torch_rows_per_s": float(batch * len(t) / t.sum()),
                })
    finally:
        server.stop()
    lines = ["GPU: %s; PyTorch %s eager; tensord through tensorctl bench (gRPC on loopback, "
             "one request in flight); compute = tensord's graph-run time per request."
             % (torch.cuda.get_device_name(0), torch.__version__), "",
             "| model | batch | tensord p50 / p99 ms | tensord compute ms | PyTorch p50 / p99 ms "
             "| p50 ratio (PyTorch / tensord) | tensord rows/s | PyTorch rows/s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %d | %.3f / %.3f | %s | %.3f / %.3f | %.2f | %.0f | %.0f |" % (
            r["model"], r["batch"], r["tensord_p50_ms"], r["tensord_p99_ms"],
            "-" if r["tensord_compute_ms"] is None else "%.3f" % r["tensord_compute_ms"],
            r["torch_p50_ms"], r["torch_p99_ms"], r["torch_p50_ms"] / r["tensord_p50_ms"],
            r["tensord_rows_per_s"], r["torch_rows_per_s"]))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights", help="folder of export_weights.py's .npz files")
    parser.add_argument("--validate", action="store_true",
                        help="only check the NumPy forward pass against the goldens")
    parser.add_argument("--tensord")
    parser.add_argument("--tensorctl")
    parser.add_argument("--seconds", type=float, default=5.0, help="PyTorch time per level")
    parser.add_argument("--report", help="also write the table here")
    args = parser.parse_args()
    if args.validate:
        validate(args.weights)
    elif not (args.tensord and args.tensorctl):
        parser.error("--tensord and --tensorctl are needed to benchmark")
    else:
        bench(args)


if __name__ == "__main__":
    main()
