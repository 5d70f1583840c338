#!/usr/bin/env python3
"""Overload benchmark (admission control): the real tensord serving one compute-bound model,
first at saturation (closed loop, as many clients as the machine has CPUs), then open loop at
3x the saturated throughput, without and with admission control (--max_inflight_requests_per_model
= CPUs, --max_queued_requests_per_model = CPUs / 2). Reports the p99 of accepted requests, the share
refused (RESOURCE_EXHAUSTED), and the server's peak resident memory (VmHWM) per run. Goal: at 3x
saturation with admission control, p99 of accepted requests within 2x of the p99 at saturation,
and memory bounded.

The model (30 chained 512x512 MatMul+Tanh, 128 rows per request: 2 GFLOP, tens of ms) is
exported with TensorFlow at run time, heavy enough that the load generator's share of the CPUs
stays small. Load generator and server share the machine.

  bazel build //server:tensord //clients/tensorctl:tensorctl
  python3 tests/bench/run_overload_bench.py [--interval_ms 6000] [--report]
"""
import argparse
import datetime
import os
import sys
import tempfile

from run_batching_bench import TENSORD, TENSORCTL, Process, bench, free_port
from run_bench import machine

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = os.path.join(ROOT, "tests", "bench", "OVERLOAD_REPORT.md")
ROWS = 128


def export_model(base):
    import tensorflow as tf

    class Chain(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 512], tf.float32)])
        def __call__(self, x):
            w = tf.fill([512, 512], 0.002)
            for _ in range(30):
                x = tf.tanh(tf.matmul(x, w))
            return {"y": x}
    module = Chain()
    tf.saved_model.save(module, os.path.join(base, "1"),
                        signatures={"serving_default": module.__call__})


def peak_rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def run(base, flags, tmp, interval_ms, concurrency=None, rate=None):
    port = free_port()
    argv = [TENSORD, "--port=%d" % port, "--model_name=chain", "--model_base_path=" + base,
            "--file_system_poll_wait_seconds=0"] + flags
    server = Process(argv, os.path.join(tmp, "tensord_%d.log" % port), port)
    try:
        extra = ["--batch", str(ROWS)]
        if rate is not None:
            extra += ["--max_threads", "256"]
        rows = bench(port, "chain", [concurrency] if concurrency else [], interval_ms,
                     extra, rate=rate)
        return rows[0], peak_rss_mb(server.proc.pid)
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interval_ms", type=int, default=6000)
    parser.add_argument("--report", action="store_true", help="append to " + REPORT)
    args = parser.parse_args()
    for binary in (TENSORD, TENSORCTL):
        if not os.path.exists(binary):
            raise SystemExit("%s missing; build it first (see the docstring)" % binary)
    cpus = os.cpu_count()
    admission = ["--max_inflight_requests_per_model=%d" % cpus,
                 "--max_queued_requests_per_model=%d" % (cpus // 2)]
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "chain")
        export_model(base)
        print("saturation ...", file=sys.stderr)
        sat, sat_rss = run(base, [], tmp, args.interval_ms, concurrency=cpus)
        rate = 3 * sat["throughput_infer_per_s"]
        print("3x saturation (%.0f req/s), admission off ..." % rate, file=sys.stderr)
        off, off_rss = run(base, [], tmp, args.interval_ms, rate=rate)
        print("3x saturation, admission on ...", file=sys.stderr)
        on, on_rss = run(base, admission, tmp, args.interval_ms, rate=rate)

    def refused(row):
        total = row["requests"] + row["errors"]
        return 100.0 * row["errors"] / total if total else 0.0
    lines = ["## %s — %s" % (datetime.date.today().isoformat(), machine()), "",
             "gRPC Predict, %d rows per request; saturation = closed loop with %d clients; "
             "3x = open loop at 3x the saturated throughput (%.0f req/s). Latency of accepted "
             "requests in ms; peak RSS = the server's VmHWM." % (ROWS, cpus, rate), "",
             "| run | accepted req/s | p50 | p99 | refused | peak RSS MB |",
             "|---|---|---|---|---|---|"]
    for label, row, rss in (("saturation", sat, sat_rss), ("3x, admission off", off, off_rss),
                            ("3x, admission on (%d running, %d waiting)" % (cpus, cpus // 2), on,
                             on_rss)):
        lines.append("| %s | %.0f | %.2f | %.2f | %.1f%% | %.0f |" % (
            label, row["throughput_infer_per_s"], row["latency_p50_ms"], row["latency_p99_ms"],
            refused(row), rss))
    ratio = on["latency_p99_ms"] / sat["latency_p99_ms"]
    lines += ["", "Goal: p99 at 3x with admission control ≤ 2x p99 at saturation: %.2fx, %s "
              "(without admission control %.2fx)." % (
                  ratio, "met" if ratio <= 2 else "**missed**",
                  off["latency_p99_ms"] / sat["latency_p99_ms"]), ""]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.report:
        header = not os.path.exists(REPORT)
        with open(REPORT, "a") as f:
            if header:
                f.write("# Overload benchmark\n\nProduced by `tests/bench/run_overload_bench.py "
                        "--report` (see its docstring). Newest runs at the end.\n\n")
            f.write(text)


if __name__ == "__main__":
    main()
