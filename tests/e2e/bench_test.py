"""End-to-end tests of `tensorctl bench` against the real tensord (keras_mlp, with its metrics
endpoint) and against tests/bench/empty_predict_server, checking the reported numbers for
consistency with each other and with the server's own metrics.

Needs the binaries:

    bazel build //server:tensord //clients/tensorctl:tensorctl //tests/bench:empty_predict_server
    python3 -m pytest -q tests/e2e/bench_test.py
"""
import contextlib
import csv
import json
import os
import subprocess

import grpc
import pytest

from tensord_process import MLP_BASE, REPO, Server, free_port

TENSORCTL = os.path.join(REPO, "bazel-bin", "clients", "tensorctl", "tensorctl")
EMPTY_SERVER = os.path.join(REPO, "bazel-bin", "tests", "bench", "empty_predict_server")
# Short windows: 3 of them per level, stable or not.
FAST = ["--measurement_interval_ms", "500", "--max_trials", "3"]


def bench(address, *flags):
    if not os.path.exists(TENSORCTL):
        pytest.fail("%s missing: run `bazel build //clients/tensorctl:tensorctl` first" % TENSORCTL)
    return subprocess.run([TENSORCTL, "bench", "--server", address] + list(flags),
                          capture_output=True, text=True, timeout=120)


def read_levels(path):
    with open(path) as f:
        return json.load(f)


def check_level(level):
    """What must hold for every measured level, whatever the server."""
    assert level["requests"] > 0, level
    assert level["errors"] == 0 and level["error_codes"] == {}, level
    assert level["windows"] == 3, level
    # Three windows of 500 ms, cut by the clock: their length is about 1.5 s.
    assert 1.45 <= level["duration_s"] <= 1.8, level
    expected = level["requests"] / level["duration_s"]
    assert level["throughput_infer_per_s"] == pytest.approx(expected, abs=0.01), level
    assert 0 < level["latency_p50_ms"] <= level["latency_p90_ms"] <= level["latency_p95_ms"] \
        <= level["latency_p99_ms"] <= level["latency_max_ms"], level
    # Little's law: a closed loop keeps `concurrency` requests in flight, so it completes at
    # most concurrency / average latency of them per second.
    if level["concurrency"] is not None:
        ceiling = level["concurrency"] * 1000.0 / level["latency_avg_ms"]
        assert level["throughput_infer_per_s"] <= ceiling * 1.05, level


@pytest.fixture(scope="module")
def tensord(tmp_path_factory):
    server = Server(["--model_name=mlp", "--model_base_path=" + MLP_BASE],
                    tmp_path_factory.mktemp("tensord"), rest=True)
    yield server
    assert server.stop() == 0, server.log()


@contextlib.contextmanager
def empty_predict_server(log_dir, *flags):
    """Runs empty_predict_server with `flags`; yields its address."""
    if not os.path.exists(EMPTY_SERVER):
        pytest.fail("%s missing: run `bazel build //tests/bench:empty_predict_server` first"
                    % EMPTY_SERVER)
    port = free_port()
    with open(os.path.join(str(log_dir), "empty.log"), "w") as log:
        proc = subprocess.Popen([EMPTY_SERVER, "--port=%d" % port, *flags], stdout=log,
                                stderr=subprocess.STDOUT)
    address = "127.0.0.1:%d" % port
    try:
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
        yield address
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def empty_server(tmp_path_factory):
    with empty_predict_server(tmp_path_factory.mktemp("empty")) as address:
        yield address


def test_concurrency_with_server_side_breakdown(tensord, tmp_path):
    out = os.path.join(str(tmp_path), "out.json")
    metrics_url = tensord.rest_url + "/monitoring/prometheus/metrics"
    r = bench("127.0.0.1:%d" % tensord.port, "--model", "mlp", "--concurrency", "2",
              "--json", out, "--metrics_url", metrics_url, *FAST)
    assert r.returncode == 0, r.stderr
    # The request is synthesised from the signature: features float [-1, 16] with batch 1.
    assert "inputs: features float [1,16] (random)" in r.stderr
    assert "concurrency 2: window 3/3: " in r.stderr  # progress, one line per window off a TTY
    assert r.stdout.startswith("concurrency  requests  infer/s")
    assert "server ms  compute ms  queue ms" in r.stdout.splitlines()[0]

    levels = read_levels(out)
    assert len(levels) == 1
    level = levels[0]
    assert level["concurrency"] == 2 and level["request_rate"] is None
    check_level(level)
    # The server side covers the same windows: about as many requests, each spending part of
    # its client-side latency in the server and part of that in the graph.
    assert abs(level["server_requests"] - level["requests"]) <= 0.05 * level["requests"] + 5, level
    assert 0 < level["server_compute_ms"] <= level["server_request_ms"], level
    assert level["server_request_ms"] <= level["latency_avg_ms"], level
    assert level["server_queue_ms"] is None, level  # no batching configured


def test_concurrency_range_gives_one_row_per_level(tensord, tmp_path):
    json_out = os.path.join(str(tmp_path), "levels.json")
    csv_out = os.path.join(str(tmp_path), "levels.csv")
    r = bench("127.0.0.1:%d" % tensord.port, "--model", "mlp", "--concurrency_range", "1,2",
              "--batch", "4", "--json", json_out, "--csv", csv_out, *FAST)
    assert r.returncode == 0, r.stderr
    assert "inputs: features float [4,16] (random)" in r.stderr
    levels = read_levels(json_out)
    assert [level["concurrency"] for level in levels] == [1, 2]
    for level in levels:
        check_level(level)
        assert level["throughput_rows_per_s"] == pytest.approx(
            4 * level["throughput_infer_per_s"], abs=0.05)
        assert level["server_request_ms"] is None  # no --metrics_url
    with open(csv_out) as f:
        rows = list(csv.DictReader(f))
    assert [row["concurrency"] for row in rows] == ["1", "2"]
    assert [int(row["requests"]) for row in rows] == [level["requests"] for level in levels]
    # The table: a header and one line per level.
    assert len(r.stdout.splitlines()) in (3, 4)  # plus the note when a level was not stable


def test_request_rate_is_met(tensord, tmp_path):
    out = os.path.join(str(tmp_path), "rate.json")
    r = bench("127.0.0.1:%d" % tensord.port, "--model", "mlp", "--request_rate", "200",
              "--json", out, *FAST)
    assert r.returncode == 0, r.stderr
    level = read_levels(out)[0]
    assert level["concurrency"] is None and level["request_rate"] == 200
    check_level(level)
    # Constant spacing: 300 sends due in 1.5 s; a loaded machine may fall a little behind.
    assert 150 <= level["throughput_infer_per_s"] <= 215, level
    assert level["delayed"] <= 0.5 * level["requests"], level


def test_empty_predict_server(empty_server, tmp_path):
    out = os.path.join(str(tmp_path), "empty.json")
    r = bench(empty_server, "--model", "any", "--input", "x=[1.0, 2.0]", "--concurrency", "2",
              "--json", out, *FAST)
    assert r.returncode == 0, r.stderr
    assert "the server has no GetModelMetadata" in r.stderr
    assert "inputs: x float [2] (--input)" in r.stderr
    check_level(read_levels(out)[0])


def test_empty_predict_server_holds_each_call(tmp_path):
    # The batching report's floor: every call answered no sooner than --hold_micros.
    with empty_predict_server(tmp_path, "--hold_micros=20000") as address:
        out = os.path.join(str(tmp_path), "held.json")
        r = bench(address, "--model", "any", "--input", "x=[1.0]", "--concurrency", "1",
                  "--json", out, *FAST)
    assert r.returncode == 0, r.stderr
    level = read_levels(out)[0]
    check_level(level)
    assert 20.0 <= level["latency_p50_ms"] < 100.0, level
    assert level["throughput_infer_per_s"] <= 50.0, level


def test_unknown_model_fails_before_any_load(tensord):
    r = bench("127.0.0.1:%d" % tensord.port, "--model", "missing", *FAST)
    assert r.returncode == 1
    assert r.stderr.startswith("tensorctl: NOT_FOUND: "), r.stderr
    assert r.stdout == ""
