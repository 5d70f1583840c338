#!/usr/bin/env python3
"""Request batching benchmark: throughput and latency of the real tensord at several client
concurrencies, with batching off and on (a few timeouts and allowed batch sizes), measured with
`tensorctl bench` over gRPC; plus the overhead ceiling — Predict QPS on half_plus_two against an
empty PredictionService handler built with the same gRPC library — and, for the concurrency-1
latency goal, the floor of holding a call: that empty handler holding each call for the batch
timeout under the same load.

Models: the committed Keras MLP, ResNet50 from tests/generated (64x64, made by `make test`), and
TF Serving's half_plus_two (../shared) when present. Load generator and server share the
machine, as they would on one host; the report says so.

  bazel build //server:tensord //clients/tensorctl:tensorctl //tests/bench:empty_predict_server
  python3 tests/bench/run_batching_bench.py [--interval_ms 2000] [--report]
"""
import argparse
import datetime
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

from run_bench import machine  # same directory

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "bazel-bin")
TENSORD = os.path.join(BIN, "server", "tensord")
TENSORCTL = os.path.join(BIN, "clients", "tensorctl", "tensorctl")
EMPTY = os.path.join(BIN, "tests", "bench", "empty_predict_server")
SHARED = os.environ.get("TENSORD_SHARED_DIR", os.path.join(os.path.dirname(ROOT), "shared"))
HALF_PLUS_TWO = os.path.join(SHARED, "testdata", "tfserving", "servables", "tensorflow",
                             "testdata", "saved_model_half_plus_two_cpu")
REPORT = os.path.join(ROOT, "tests", "bench", "BATCHING_REPORT.md")

CONCURRENCY = [1, 4, 16, 64]

# name → (base path, bench flags, batching configurations to try: label → BatchingParameters)
MODELS = {
    "mlp": (os.path.join(ROOT, "tests", "testdata", "keras_mlp"), [], {
        "t=0": "max_batch_size { value: 64 } batch_timeout_micros { value: 0 }",
        "t=1ms": "max_batch_size { value: 64 } batch_timeout_micros { value: 1000 }",
    }),
    "resnet50": (os.path.join(ROOT, "tests", "generated", "resnet50"), [], {
        "t=0": "max_batch_size { value: 32 } batch_timeout_micros { value: 0 }",
        "t=2ms": "max_batch_size { value: 32 } batch_timeout_micros { value: 2000 }",
        "t=2ms,sizes=8/16/32": ("max_batch_size { value: 32 } batch_timeout_micros { value: 2000 }"
                                " allowed_batch_sizes: 8 allowed_batch_sizes: 16"
                                " allowed_batch_sizes: 32"),
    }),
    "half_plus_two": (HALF_PLUS_TWO, [], {
        "t=0": "max_batch_size { value: 64 } batch_timeout_micros { value: 0 }",
    }),
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Process:
    def __init__(self, argv, log_path, port):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 300
        while time.time() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return
            if self.proc.poll() is not None:
                raise SystemExit("%s exited; see %s" % (argv[0], log_path))
            time.sleep(0.2)
        raise SystemExit("%s did not start; see %s" % (argv[0], log_path))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=60)
        self.log.close()


def bench(port, model, levels, interval_ms, extra, metrics_url=None, rate=None):
    """Closed loop at each concurrency in `levels`, or open loop at `rate` requests/s."""
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    load = (["--request_rate", "%.1f" % rate, "--max_threads", "1"] if rate else
            ["--concurrency_range", ",".join(map(str, levels))])
    argv = [TENSORCTL, "bench", "--server", "127.0.0.1:%d" % port, "--model", model] + load + [
            "--measurement_interval_ms", str(interval_ms), "--max_trials", "5",
            "--warmup_requests", "20", "--json", out] + extra
    if metrics_url:
        argv += ["--metrics_url", metrics_url]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        text = f.read()
    os.unlink(out)
    rows = json.loads(text)
    return rows if isinstance(rows, list) else rows.get("levels", rows)


def run_tensord(model, base, params, tmp):
    port, rest = free_port(), free_port()
    argv = [TENSORD, "--port=%d" % port, "--rest_api_port=%d" % rest, "--model_name=" + model,
            "--model_base_path=" + base, "--file_system_poll_wait_seconds=0"]
    if params is not None:
        path = os.path.join(tmp, "%s_batching.config" % model)
        with open(path, "w") as f:
            f.write(params + "\n")
        argv += ["--enable_batching", "--batching_parameters_file=" + path]
    server = Process(argv, os.path.join(tmp, "tensord_%d.log" % port), port)
    return server, port, "http://127.0.0.1:%d/monitoring/prometheus/metrics" % rest


def hold_p99(cache, micros, rate, interval_ms, tmp):
    """p99 of the empty handler holding each call `micros` µs, closed loop at concurrency 1 or
    paced at `rate`; measured once per (micros, rate)."""
    if (micros, rate) not in cache:
        port = free_port()
        empty = Process([EMPTY, "--port=%d" % port, "--hold_micros=%d" % micros],
                        os.path.join(tmp, "empty_%d.log" % port), port)
        try:
            row = bench(port, "any", [1], interval_ms, ["--input", "x=[1.0]"], rate=rate)[0]
        finally:
            empty.stop()
        cache[(micros, rate)] = row["latency_p99_ms"]
    return cache[(micros, rate)]


def verdict(value, limit):
    return "met" if value <= limit else "**missed**"


def timeout_ms(params):
    """batch_timeout_micros of a BatchingParameters text, in ms."""
    match = re.search(r"batch_timeout_micros\s*{\s*value:\s*(\d+)", params)
    return int(match.group(1)) / 1000.0 if match else 0.0


def fmt(x, digits=1):
    return "-" if x is None else ("%.*f" % (digits, x))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interval_ms", type=int, default=2000)
    parser.add_argument("--models", nargs="*", default=list(MODELS))
    parser.add_argument("--report", action="store_true", help="append to " + REPORT)
    args = parser.parse_args()
    for binary in (TENSORD, TENSORCTL, EMPTY):
        if not os.path.exists(binary):
            raise SystemExit("%s missing; build it first (see the docstring)" % binary)

    lines = ["## %s — %s" % (datetime.date.today().isoformat(), machine()), "",
             "Closed-loop gRPC Predict, one row per request (batch 1), load generator on the same "
             "machine; windows of %d ms until 3 are stable. Throughput in requests/s, latency "
             "in ms; server times are per request from /metrics (compute = graph run, queue = "
             "wait for a batch)." % args.interval_ms, ""]
    summary = []
    # The concurrency-1 latency goal: p99 with batching <= (p99 without + batch timeout) x 1.1,
    # checked closed loop (back-to-back requests) and paced (a lone request every few ms).
    goal = ["### Concurrency-1 latency goal", "",
            "p99 with batching ≤ (p99 without + batch_timeout) × 1.1. *Closed loop* sends the "
            "next request as soon as the answer arrives; *paced* sends one request every "
            "2 × (p50 without batching + timeout), so the machine idles between requests in both "
            "runs being compared.", "",
            "*Hold floor*: the same load against the empty Predict handler (same gRPC), answering "
            "at once and holding each call for the timeout (waited as a lone batch waits). Its "
            "p99 difference is what holding a call for the timeout costs in this gRPC stack and "
            "OS, in place of the bare timeout; the floor limit is (p99 without + that cost) "
            "× 1.1.",
            "",
            "| model | batching | load | p99 off | p99 on | limit | | empty p99 held 0 / T "
            "| floor limit | |", "|---|---|---|---|---|---|---|---|---|---|"]
    holds = {}  # (hold µs, rate or None) → empty handler's p99 under that load
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            base, extra, configs = MODELS[model]
            if not os.path.isdir(base):
                print("skipping %s: %s not found" % (model, base), file=sys.stderr)
                continue
            lines += ["### %s" % model, "",
                      "| batching | conc. | req/s | p50 | p99 | server total | compute | queue |",
                      "|---|---|---|---|---|---|---|---|"]
            results = {}
            for label, params in [("off", None)] + list(configs.items()):
                print("%s, batching %s ..." % (model, label), file=sys.stderr)
                server, port, metrics = run_tensord(model, base, params, tmp)
                try:
                    rows = bench(port, model, CONCURRENCY, args.interval_ms, extra, metrics)
                finally:
                    server.stop()
                results[label] = rows
                c1 = next(r for r in rows if r["concurrency"] == 1)
                if params is not None and timeout_ms(params) > 0:
                    off_c1 = next(r for r in results["off"] if r["concurrency"] == 1)
                    rate = 1000.0 / (2 * (off_c1["latency_p50_ms"] + timeout_ms(params)))
                    paced = {}
                    for paced_label, paced_params in (("off", None), (label, params)):
                        server, port, _ = run_tensord(model, base, paced_params, tmp)
                        try:
                            paced[paced_label] = bench(port, model, None, args.interval_ms, extra,
                                                       rate=rate)[0]
                        finally:
                            server.stop()
                    for load, load_rate, off_row, on_row in (
                            ("closed loop", None, off_c1, c1),
                            ("paced %.0f/s" % rate, rate, paced["off"], paced[label])):
                        off_p99, on_p99 = off_row["latency_p99_ms"], on_row["latency_p99_ms"]
                        limit = (off_p99 + timeout_ms(params)) * 1.1
                        held = [hold_p99(holds, micros, load_rate, args.interval_ms, tmp)
                                for micros in (0, int(timeout_ms(params) * 1000))]
                        floor = (off_p99 + held[1] - held[0]) * 1.1
                        goal.append("| %s | %s | %s | %.2f | %.2f | %.2f | %s | %.2f / %.2f "
                                    "| %.2f | %s |" % (
                                        model, label, load, off_p99, on_p99, limit,
                                        verdict(on_p99, limit), held[0], held[1], floor,
                                        verdict(on_p99, floor)))
                for row in rows:
                    lines.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
                        label, row["concurrency"], fmt(row["throughput_infer_per_s"]),
                        fmt(row["latency_p50_ms"], 2), fmt(row["latency_p99_ms"], 2),
                        fmt(row.get("server_request_ms"), 2), fmt(row.get("server_compute_ms"), 2),
                        fmt(row.get("server_queue_ms"), 2)))
            lines.append("")
            off = {r["concurrency"]: r for r in results["off"]}
            for label, rows in results.items():
                if label == "off":
                    continue
                for row in rows:
                    c = row["concurrency"]
                    summary.append("| %s | %s | %d | %.2f | %.2f |" % (
                        model, label, c,
                        row["throughput_infer_per_s"] / off[c]["throughput_infer_per_s"],
                        row["latency_p99_ms"] / off[c]["latency_p99_ms"]))

        if os.path.isdir(HALF_PLUS_TWO):
            print("overhead ceiling ...", file=sys.stderr)
            server, port, _ = run_tensord("half_plus_two", HALF_PLUS_TWO, None, tmp)
            try:
                ours = bench(port, "half_plus_two", [32], args.interval_ms, [])[0]
            finally:
                server.stop()
            port = free_port()
            empty = Process([EMPTY, "--port=%d" % port], os.path.join(tmp, "empty.log"), port)
            try:
                base = bench(port, "half_plus_two", [32], args.interval_ms,
                             ["--input", "x=[1.0]"])[0]
            finally:
                empty.stop()
            ratio = ours["throughput_infer_per_s"] / base["throughput_infer_per_s"]
            lines += ["### Overhead ceiling (concurrency 32)", "",
                      "| server | req/s | p50 | p99 |", "|---|---|---|---|",
                      "| tensord, half_plus_two | %s | %s | %s |" % (
                          fmt(ours["throughput_infer_per_s"]), fmt(ours["latency_p50_ms"], 2),
                          fmt(ours["latency_p99_ms"], 2)),
                      "| empty Predict handler, same gRPC | %s | %s | %s |" % (
                          fmt(base["throughput_infer_per_s"]), fmt(base["latency_p50_ms"], 2),
                          fmt(base["latency_p99_ms"], 2)),
                      "", "tensord reaches **%.2f** of the empty handler's QPS (goal ≥ 0.8)."
                      % ratio, ""]

    lines += goal + [""]
    lines += ["### Batching on ÷ off", "",
              "| model | batching | conc. | throughput ratio | p99 ratio |", "|---|---|---|---|---|"]
    lines += summary + [""]
    text = "\n".join(lines)
    print(text)
    if args.report:
        with open(REPORT, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
