"""Operations of the real tensord binary: deadlines and cancellation, SIGTERM drain, health
Watch, server reflection and command-line validation.

A deliberately slow model (400 chained 512x512 MatMuls; the batch size sets the run time) is
exported with TensorFlow at test time.

    python3 -m pytest -q tests/e2e/operations_test.py
"""
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

import grpc
import numpy as np
import pytest
import tensorflow as tf
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from tensorflow_serving.apis import predict_pb2

from tensord_process import BINARY, MLP_BASE, REPO, Server, free_port


@pytest.fixture(scope="module")
def slow_model(tmp_path_factory):
    base = tmp_path_factory.mktemp("slow")

    class Slow(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 512], tf.float32)])
        def __call__(self, x):
            w = tf.fill([512, 512], 0.002)
            # Heavy per row, so that seconds of work fit in a request of a few MB: a request
            # of tens of MB spends a short deadline in transit and never reaches the server.
            for _ in range(400):
                x = tf.tanh(tf.matmul(x, w))
            return {"y": tf.reduce_sum(x, axis=1)}

    module = Slow()
    tf.saved_model.save(module, str(base / "1"), signatures={"serving_default": module.__call__})
    return str(base)


def _request(rows):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = "slow"
    req.inputs["x"].CopyFrom(tf.make_tensor_proto(np.full((rows, 512), 0.5, np.float32)))
    return req


def _timed(server, rows):
    start = time.time()
    server.predict.Predict(_request(rows), timeout=120)
    return time.time() - start


@pytest.fixture
def slow_server(slow_model, tmp_path):
    servers = []

    def start(extra=()):
        s = Server(["--model_name=slow", "--model_base_path=" + slow_model] + list(extra),
                   tmp_path, rest=True)
        servers.append(s)
        return s
    yield start
    for s in servers:
        if s.proc.poll() is None:
            s.stop()


def _rows_for(server, seconds):
    """Batch rows that keep the server busy for about `seconds` (measured, not assumed). The
    first request to a fresh server pays for first-run allocations and would make the estimate
    short (a CI run once got well under a second instead of 6 s), so the best of two is used."""
    rows = 256
    took = min(_timed(server, rows), _timed(server, rows))
    return max(rows, int(rows * seconds / max(took, 1e-3)))


def _metric(text, name, **labels):
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        if all('%s="%s"' % kv in line for kv in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def _runtime_seconds(server):
    """Graph time the server has spent on Predict so far."""
    _, metrics = server.http_get("/monitoring/prometheus/metrics")
    return _metric(metrics, "tensord_runtime_duration_seconds_sum", method="Predict")


def test_deadline_stops_the_run_and_the_server_keeps_serving(slow_server):
    server = slow_server()
    rows = _rows_for(server, 3.0)
    before = _runtime_seconds(server)
    with pytest.raises(grpc.RpcError) as e:
        server.predict.Predict(_request(rows), timeout=0.5)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # The server stopped the graph soon after the deadline instead of finishing the ~3 s run.
    time.sleep(0.5)
    _, metrics = server.http_get("/monitoring/prometheus/metrics")
    stopped = (_metric(metrics, "tensord_requests_total", code="DEADLINE_EXCEEDED") +
               _metric(metrics, "tensord_requests_total", code="CANCELLED"))
    assert stopped == 1, metrics
    assert _runtime_seconds(server) - before < 1.5
    assert _timed(server, 1) < 5


def test_client_cancellation_stops_the_run(slow_server):
    server = slow_server()
    rows = _rows_for(server, 3.0)
    before = _runtime_seconds(server)
    call = server.predict.Predict.future(_request(rows), timeout=60)
    time.sleep(0.5)
    assert call.cancel()
    time.sleep(1.0)
    _, metrics = server.http_get("/monitoring/prometheus/metrics")
    assert _metric(metrics, "tensord_requests_total", code="CANCELLED") == 1, metrics
    assert _runtime_seconds(server) - before < 1.5  # stopped well before its ~3 s


def test_sigterm_drains_in_flight_requests_and_exits_zero(slow_server):
    server = slow_server()
    rows = _rows_for(server, 2.0)
    health = health_pb2_grpc.HealthStub(server.channel)
    seen = []
    watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=60)

    def watch_all():
        try:
            for reply in watch:
                seen.append(reply.status)
        except grpc.RpcError:
            pass
    watcher = threading.Thread(target=watch_all)
    watcher.start()

    result = {}

    def slow_call():
        try:
            result["response"] = server.predict.Predict(_request(rows), timeout=60)
        except grpc.RpcError as e:
            result["error"] = e
    caller = threading.Thread(target=slow_call)
    caller.start()
    time.sleep(0.5)
    server.proc.send_signal(signal.SIGTERM)
    caller.join(timeout=60)
    assert "response" in result, result.get("error")
    assert tf.make_ndarray(result["response"].outputs["y"]).shape == (rows,)
    assert server.proc.wait(timeout=30) == 0
    watcher.join(timeout=10)
    assert seen[:2] == [health_pb2.HealthCheckResponse.SERVING,
                        health_pb2.HealthCheckResponse.NOT_SERVING], seen
    log = server.log()
    assert "draining" in log and "stopped" in log, log
    # Once stopped, nothing answers.
    with pytest.raises(grpc.RpcError):
        server.predict.Predict(_request(1), timeout=2)


def test_drain_timeout_bounds_shutdown(slow_server):
    server = slow_server(["--drain_timeout_seconds=1"])
    rows = _rows_for(server, 6.0)
    result = {}

    def slow_call():
        try:
            result["response"] = server.predict.Predict(_request(rows), timeout=60)
        except grpc.RpcError as e:
            result["error"] = e.code()
    caller = threading.Thread(target=slow_call)
    caller.start()
    time.sleep(0.5)
    start = time.time()
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=30) == 0
    assert time.time() - start < 4.5
    caller.join(timeout=30)
    assert "error" in result, "the 6 s request should have been cut off"


def _refused_at_once(server):
    """The details of RESOURCE_EXHAUSTED for a 1-row Predict, which must come at once."""
    start = time.time()
    with pytest.raises(grpc.RpcError) as e:
        server.predict.Predict(_request(1), timeout=60)
    assert time.time() - start < 1.0  # refused, not queued
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    return e.value.details()


def test_admission_control_refuses_what_does_not_fit(slow_server):
    """One request runs and one waits; a third is refused at once over gRPC and REST, a waiting
    request whose deadline passes never runs, and the model serves again once it is free."""
    server = slow_server(["--max_inflight_requests_per_model=1",
                          "--max_queued_requests_per_model=1"])
    rows = _rows_for(server, 3.0)
    running = server.predict.Predict.future(_request(rows), timeout=60)
    time.sleep(0.3)
    waiting = server.predict.Predict.future(_request(1), timeout=60)
    time.sleep(0.3)
    details = _refused_at_once(server)
    assert "model slow is at capacity" in details
    assert "--max_inflight_requests_per_model=1" in details
    body = json.dumps({"instances": [[0.5] * 512]}).encode()
    request = urllib.request.Request(server.rest_url + "/v1/models/slow:predict", data=body)
    with pytest.raises(urllib.error.HTTPError) as http_error:
        urllib.request.urlopen(request, timeout=60)
    assert http_error.value.code == 429
    assert "at capacity" in json.loads(http_error.value.read())["error"]
    big = tf.make_ndarray(running.result().outputs["y"])
    one = tf.make_ndarray(waiting.result().outputs["y"])  # it waited its turn and ran
    assert big.shape == (rows,) and one.shape == (1,)
    # rtol 1e-4: 400 chained 512-term dot products, summed in another order at another batch
    # size (a 1-row product takes the small-matrix kernel), differ by up to ~2e-5.
    np.testing.assert_allclose(big, np.full(rows, one[0]), rtol=1e-4, atol=1e-6)
    # A request that waits past its deadline ends DEADLINE_EXCEEDED without running.
    before = _runtime_seconds(server)
    running = server.predict.Predict.future(_request(rows), timeout=60)
    time.sleep(0.3)
    with pytest.raises(grpc.RpcError) as e:
        server.predict.Predict(_request(rows), timeout=0.5)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    running.result()
    server.predict.Predict(_request(1), timeout=60)
    ran = _runtime_seconds(server) - before
    one_big = _timed(server, rows)
    assert ran < 1.5 * one_big, (ran, one_big)  # the expired request never ran


def test_rest_and_grpc_wait_in_one_admission_line(slow_server):
    """A REST request takes its place in its model's admission line as it arrives and holds no
    REST worker while it waits: with one request running and two REST requests waiting, the
    line is full and a gRPC request is refused at once, the only REST worker still answers a
    status request, and the REST requests then run in their turn."""
    server = slow_server(["--max_inflight_requests_per_model=1",
                          "--max_queued_requests_per_model=2", "--rest_api_num_threads=1"])
    rows = _rows_for(server, 6.0)
    running = server.predict.Predict.future(_request(rows), timeout=60)
    time.sleep(0.3)
    body = json.dumps({"instances": [[0.5] * 512]}).encode()
    answers = []

    def rest():
        request = urllib.request.Request(server.rest_url + "/v1/models/slow:predict", data=body)
        with urllib.request.urlopen(request, timeout=60) as reply:
            answers.append(json.loads(reply.read())["predictions"])

    callers = [threading.Thread(target=rest) for _ in range(2)]
    for caller in callers:
        caller.start()
        time.sleep(0.5)  # each REST request is in the line before the next one starts
    details = _refused_at_once(server)
    assert "1 requests running" in details and "2 waiting" in details, details
    start = time.time()
    status, _ = server.http_get("/v1/models/slow")
    # Not held for the rest of the 6 s run (a loaded 2-core machine answers within 2 s).
    assert status == 200 and time.time() - start < 2.0
    big = tf.make_ndarray(running.result().outputs["y"])
    for caller in callers:
        caller.join(timeout=60)
    assert len(answers) == 2
    # rtol 1e-4 as above: a 1-row product takes the small-matrix kernel.
    np.testing.assert_allclose(np.array(answers, np.float32).ravel(), np.full(2, big[0]),
                               rtol=1e-4, atol=1e-6)


def test_slow_rest_client_does_not_hold_shutdown(slow_server):
    """Regression: shutdown waited for every REST thread, and a client sending its body a byte
    at a time (within the read timeout) held one for as long as it liked. On the event loop it
    holds only its connection, which shutdown closes."""
    server = slow_server(["--drain_timeout_seconds=1"])
    stop = threading.Event()
    sock = socket.create_connection(("127.0.0.1", server.rest_port))

    def trickle():
        sock.sendall(b"POST /v1/models/slow:predict HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{")
        while not stop.wait(0.2):
            try:
                sock.sendall(b" ")
            except OSError:
                return
    sender = threading.Thread(target=trickle)
    sender.start()
    try:
        time.sleep(1)
        start = time.time()
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=30) == 0
        took = time.time() - start
    finally:
        stop.set()
        sender.join()
        sock.close()
    assert took < 1 + 1.5, took  # drain timeout + slack
    assert "shutdown took too long" not in server.log()


def test_stalled_rest_clients_do_not_starve_probes_or_requests(slow_server):
    """Regression: each REST connection held a pool thread (4 x CPUs of them), so a handful of
    clients stalling mid-request made liveness and readiness probes time out."""
    server = slow_server(["--rest_api_num_threads=1"])
    stalled = []
    try:
        for i in range(32):
            sock = socket.create_connection(("127.0.0.1", server.rest_port))
            sock.sendall(b"POST /v1/models/slow:predict HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Length: 1000\r\n\r\n{" if i % 2 else b"GET /v2/hea")
            stalled.append(sock)
        start = time.time()
        for path in ("/v2/health/live", "/v2/health/ready", "/v2/models/slow/ready"):
            code, _ = server.http_get(path)
            assert code == 200, path
        body = json.dumps({"instances": np.ones((1, 512), np.float32).tolist()}).encode()
        request = urllib.request.Request(server.rest_url + "/v1/models/slow:predict", data=body)
        with urllib.request.urlopen(request, timeout=30) as reply:
            assert len(json.loads(reply.read())["predictions"]) == 1
        assert time.time() - start < 10
    finally:
        for sock in stalled:
            sock.close()


def test_grpc_health_per_model_and_reflection(slow_server):
    server = slow_server()
    health = health_pb2_grpc.HealthStub(server.channel)
    assert health.Check(health_pb2.HealthCheckRequest(service="slow"), timeout=10).status == \
        health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(server.channel)
    replies = reflection.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10)
    names = {s.name for reply in replies for s in reply.list_services_response.service}
    assert {"tensorflow.serving.PredictionService", "tensorflow.serving.ModelService",
            "grpc.health.v1.Health", "tensord.v1.ModelRepository"} <= names, names
    code, body = server.http_get("/v2/health/ready")
    assert (code, json.loads(body)) == (200, {"ready": True})


def _start_expecting_failure(flags):
    proc = subprocess.run([BINARY, "--port=%d" % free_port()] + flags, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode != 0
    return proc.stderr


@pytest.mark.parametrize("flags,message", [
    (["--model_base_path=" + MLP_BASE, "--rest_api_port=70000"], "--rest_api_port must be in"),
    (["--model_base_path=" + MLP_BASE, "--grpc_channel_arguments=novalue"],
     "expected key=value"),
    (["--model_base_path=" + MLP_BASE, "--batching_parameters_file=/x"],
     "batching_parameters_file is set without setting server_options.enable_batching"),
    (["--model_base_path=" + MLP_BASE, "--tensorflow_session_parallelism=1",
      "--tensorflow_intra_op_parallelism=1", "--tensorflow_inter_op_parallelism=1"],
     "not both"),
    (["--model_base_path=" + MLP_BASE, "--log_format=xml"], "--log_format"),
    (["--model_base_path=" + MLP_BASE, "--max_num_load_retries=-1"], "must not be negative"),
    (["--model_base_path=" + MLP_BASE, "--rest_api_max_json_depth=5000"],
     "--rest_api_max_json_depth must be at most 1000"),
    (["--model_base_path=" + MLP_BASE, "--rest_api_gzip_min_bytes=-1"],
     "--rest_api_gzip_min_bytes must not be negative"),
    (["--model_base_path=" + MLP_BASE, "--port=abc"], "port"),
    (["--model_base_path=" + MLP_BASE, "--per_process_gpu_memory_fraction=1.5"],
     "--per_process_gpu_memory_fraction must be in 0..1, not 1.5"),
    (["--model_base_path=" + MLP_BASE, "--per_process_gpu_memory_fraction=-0.1"],
     "--per_process_gpu_memory_fraction must be in 0..1"),
    (["--model_base_path=" + MLP_BASE, "--device_policy=tpu"],
     "--device_policy: device policy 'tpu' is not one of auto, cpu, gpu, gpu:N"),
    (["--model_base_path=" + MLP_BASE, "--precision=fp16"],
     "--precision: precision 'fp16' is not one of fp32, bf16"),
    ([], "Both server_options.model_base_path and server_options.model_config_file are empty"),
])
def test_bad_flags_fail_at_start_with_a_clear_message(flags, message):
    assert message in _start_expecting_failure(flags)


def test_help_and_version():
    help_text = subprocess.run([BINARY, "--help"], capture_output=True, text=True,
                               timeout=60).stdout
    for flag in ["--model_config_file_poll_wait_seconds", "--max_num_load_retries",
                 "--grpc_channel_arguments", "--monitoring_config_file", "--drain_timeout_seconds"]:
        assert flag in help_text, flag
    assert "[tensord]" in help_text
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0
    assert re.search(r"TensorFlow ModelServer: tensord \d+\.\d+\.\d+", version.stdout)


def test_json_logs_and_channel_arguments(tmp_path):
    server = Server(["--model_name=mlp", "--model_base_path=" + MLP_BASE, "--log_format=json",
                     "--grpc_channel_arguments=grpc.max_connection_age_ms=600000,"
                     "grpc.some_string_arg=x", "--grpc_max_threads=8",
                     # A TF Serving GPU manifest's flag: accepted, and said to do nothing here.
                     "--per_process_gpu_memory_fraction=0.5"], tmp_path)
    assert server.stop() == 0
    events = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    messages = [e["msg"] for e in events]
    assert "model version available" in messages, messages
    available = events[messages.index("model version available")]
    assert available["model"] == "mlp" and available["version"] == "1"
    # Where the version's nodes run: all on the CPU of this GPU-less host, no copies.
    assert re.fullmatch(r"/device:CPU:0=\d+", available["nodes"]), available
    assert available["copies"] == "0" and available["soft_placed"] == "0", available
    assert any(m.startswith("Running gRPC ModelServer at 0.0.0.0:") for m in messages)
    gpu = [e for e in events if "per_process_gpu_memory_fraction" in e["msg"]]
    assert len(gpu) == 1 and gpu[0]["level"] == "WARNING", gpu
    assert gpu[0]["per_process_gpu_memory_fraction"] == "0.5" and "no GPU device (" in gpu[0]["msg"]


def test_device_policy_from_flag_and_model_config(tmp_path):
    """--device_policy is every model's default; a model's device_policy field wins. Asked for a
    GPU this host does not have, the model's nodes are soft-placed on the CPU and it serves."""
    config = tmp_path / "models.config"
    config.write_text(
        'model_config_list {\n'
        '  config { name: "on_gpu" base_path: "%s" model_platform: "tensorflow"\n'
        '           device_policy: "gpu" }\n'
        '  config { name: "by_flag" base_path: "%s" model_platform: "tensorflow" }\n'
        '}\n' % (MLP_BASE, MLP_BASE))
    server = Server(["--model_config_file=%s" % config, "--device_policy=cpu",
                     "--log_format=json"], tmp_path)
    assert server.stop() == 0
    events = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    available = {e["model"]: e for e in events if e["msg"] == "model version available"}
    assert set(available) == {"on_gpu", "by_flag"}, events
    assert available["by_flag"]["device_policy"] == "cpu"
    assert available["by_flag"]["soft_placed"] == "0"
    on_gpu = available["on_gpu"]
    assert on_gpu["device_policy"] == "gpu:0"
    assert re.fullmatch(r"/device:CPU:0=\d+", on_gpu["nodes"]), on_gpu
    # Every node asked for GPU 0 and runs on the CPU.
    assert on_gpu["soft_placed"] == on_gpu["nodes"].split("=")[1], on_gpu


def _cpu_has_bfloat16():
    with open("/proc/cpuinfo") as f:
        flags = next(line for line in f if line.startswith("flags")).split()
    return "avx512_bf16" in flags


def test_precision_from_flag_and_model_config(tmp_path):
    """--precision is every model's default; a model's precision field wins. In bf16 (on a CPU
    with AVX512_BF16) cnn_small's convolutions and Dense layer move its class probabilities by
    bfloat16's rounding, within the bound tests/models/README.md documents, and keep the class;
    in fp32 it matches TensorFlow's golden output. Without AVX512_BF16 the bf16 model runs fp32
    and a warning says so."""
    cnn = os.path.join(REPO, "tests", "testdata", "cnn_small")
    config = tmp_path / "models.config"
    config.write_text(
        'model_config_list {\n'
        '  config { name: "fp32" base_path: "%s" model_platform: "tensorflow"\n'
        '           precision: "fp32" }\n'
        '  config { name: "by_flag" base_path: "%s" model_platform: "tensorflow" }\n'
        '}\n' % (cnn, cnn))
    server = Server(["--model_config_file=%s" % config, "--precision=bf16",
                     "--log_format=json"], tmp_path)
    case = json.load(open(os.path.join(cnn, "golden", "cases.json")))["cases"][0]
    image = np.load(os.path.join(cnn, "golden", case["inputs"]["image"]))
    golden = np.load(os.path.join(cnn, "golden", case["outputs"]["output_0"]))
    outputs = {}
    for model in ["fp32", "by_flag"]:
        req = predict_pb2.PredictRequest()
        req.model_spec.name = model
        req.inputs["image"].CopyFrom(tf.make_tensor_proto(image))
        outputs[model] = tf.make_ndarray(server.predict.Predict(req, timeout=60)
                                         .outputs["output_0"])
    assert server.stop() == 0
    events = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    available = {e["model"]: e for e in events if e["msg"] == "model version available"}
    assert available["fp32"]["precision"] == "fp32"
    np.testing.assert_allclose(outputs["fp32"], golden, rtol=1e-5, atol=1e-6)
    fallbacks = [e for e in events if e["msg"] == "precision not available on this CPU"]
    if not _cpu_has_bfloat16():
        assert available["by_flag"]["precision"] == "fp32"
        assert [(e["model"], e["requested"], e["running"]) for e in fallbacks] == \
            [("by_flag", "bf16", "fp32")]
        np.testing.assert_allclose(outputs["by_flag"], golden, rtol=1e-5, atol=1e-6)
        return
    assert available["by_flag"]["precision"] == "bf16" and not fallbacks
    error = np.abs(outputs["by_flag"] - golden).max()
    # About 4x the largest error over 32 random rows in tests/models/BF16_PARITY.md (1.3e-3).
    assert 1e-6 < error < 5e-3, error
    assert (outputs["by_flag"].argmax(-1) == golden.argmax(-1)).all()
