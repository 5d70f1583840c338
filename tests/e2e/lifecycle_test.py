"""Model lifecycle on the real tensord binary: HandleReloadConfigRequest, config-file polling,
warmup replay, and version swaps under load (no request lost).

Models are copies of the committed Keras MLP (tests/testdata/keras_mlp); warmup files are
written with TensorFlow's own TFRecordWriter and TF Serving's PredictionLog.

    python3 -m pytest -q tests/e2e/lifecycle_test.py
"""
import json
import os
import shutil
import signal
import subprocess
import threading
import time

import grpc
import numpy as np
import pytest
import tensorflow as tf
from tensorflow_serving.apis import (get_model_status_pb2, model_management_pb2, predict_pb2,
                                     prediction_log_pb2, prediction_service_pb2_grpc)
from tensorflow_serving.config import model_server_config_pb2

from tensord_process import MLP_BASE, Server, model_config_proto, model_config_text

LOADING = 20
AVAILABLE = 30
END = 50


def _copy_mlp(root, name, versions=(1,)):
    base = os.path.join(str(root), name)
    for v in versions:
        shutil.copytree(os.path.join(MLP_BASE, "1"), os.path.join(base, str(v)))
    return base


def _predict_request(name, rows=1):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = name
    req.inputs["features"].CopyFrom(
        tf.make_tensor_proto(np.linspace(0, 1, 16 * rows, dtype=np.float32).reshape(rows, 16)))
    return req


def _wait_for(predicate, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def servers(tmp_path):
    started = []

    def start(flags, **kw):
        s = Server(flags, tmp_path, **kw)
        started.append(s)
        return s
    yield start
    for s in started:
        assert s.stop() == 0, s.log()


def test_reload_config_adds_removes_and_rejects(servers, tmp_path):
    a = _copy_mlp(tmp_path, "a")
    b = _copy_mlp(tmp_path, "b")
    config = os.path.join(str(tmp_path), "models.config")
    with open(config, "w") as f:
        f.write(model_config_text([("a", a)]))
    server = servers(["--model_config_file=" + config])
    assert server.predict.Predict(_predict_request("a"), timeout=30).model_spec.version.value == 1

    # Swap a for b: returns once b is loaded and a unloaded.
    req = model_management_pb2.ReloadConfigRequest()
    req.config.CopyFrom(model_config_proto([("b", b)]))
    reply = server.models.HandleReloadConfigRequest(req, timeout=60)
    assert reply.status.error_code == 0, reply
    assert server.version_states("b") == {1: AVAILABLE}
    assert server.version_states("a") == {1: END}
    with pytest.raises(grpc.RpcError) as e:
        server.predict.Predict(_predict_request("a"), timeout=30)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    server.predict.Predict(_predict_request("b"), timeout=30)

    # Invalid configs change nothing and say why.
    bad = model_management_pb2.ReloadConfigRequest()
    bad.config.CopyFrom(model_config_proto([("c", "relative/path")]))
    with pytest.raises(grpc.RpcError) as e:
        server.models.HandleReloadConfigRequest(bad, timeout=60)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "absolute path" in e.value.details()
    missing = model_management_pb2.ReloadConfigRequest()
    missing.config.CopyFrom(model_config_proto([("c", os.path.join(str(tmp_path), "nothing"))]))
    with pytest.raises(grpc.RpcError) as e:
        server.models.HandleReloadConfigRequest(missing, timeout=60)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    assert "model c" in e.value.details()
    custom = model_management_pb2.ReloadConfigRequest()
    custom.config.custom_model_config.Pack(model_server_config_pb2.ModelServerConfig())
    with pytest.raises(grpc.RpcError) as e:
        server.models.HandleReloadConfigRequest(custom, timeout=60)
    assert "Only ModelConfigList is currently supported" in e.value.details()
    server.predict.Predict(_predict_request("b"), timeout=30)


def test_broken_model_next_to_good_ones(servers, tmp_path):
    good = _copy_mlp(tmp_path, "good")
    broken = os.path.join(str(tmp_path), "broken")
    os.makedirs(os.path.join(broken, "1"))  # a version directory without saved_model.pb
    config = os.path.join(str(tmp_path), "models.config")
    with open(config, "w") as f:
        f.write(model_config_text([("good", good), ("broken", broken)]))
    server = servers(["--model_config_file=" + config], rest=True)
    server.predict.Predict(_predict_request("good"), timeout=30)
    req = get_model_status_pb2.GetModelStatusRequest()
    req.model_spec.name = "broken"
    status = server.models.GetModelStatus(req, timeout=30).model_version_status[0]
    assert status.state == END
    assert status.status.error_code == grpc.StatusCode.NOT_FOUND.value[0]
    assert "Could not find SavedModel .pb" in status.status.error_message
    assert broken in status.status.error_message
    with pytest.raises(grpc.RpcError) as e:
        server.predict.Predict(_predict_request("broken"), timeout=30)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    # Readiness: the server as a whole is not ready, the good model is.
    code, body = server.http_get("/v2/health/ready")
    assert code == 503
    assert json.loads(body) == {"ready": False, "models_not_ready": ["broken"]}
    assert server.http_get("/v2/models/good/ready")[0] == 200
    assert server.http_get("/v2/models/broken/ready")[0] == 503
    assert "model version failed to load" in server.log()


def test_broken_model_retries_in_the_background_while_good_ones_serve(servers, tmp_path):
    """Regression: startup waited for every retry of a broken model (5 x 60 s by default)
    before serving the good ones. Now the good model serves at once, the broken one stays
    LOADING while it is retried, and a retry picks up the version once it is repaired."""
    good = _copy_mlp(tmp_path, "good")
    broken = os.path.join(str(tmp_path), "broken")
    os.makedirs(os.path.join(broken, "1"))  # the export is not there yet
    config = os.path.join(str(tmp_path), "models.config")
    with open(config, "w") as f:
        f.write(model_config_text([("good", good), ("broken", broken)]))
    server = servers(["--model_config_file=" + config, "--max_num_load_retries=1000",
                      "--load_retry_interval_micros=200000"], rest=True)
    server.predict.Predict(_predict_request("good"), timeout=30)
    assert server.version_states("broken") == {1: LOADING}
    code, body = server.http_get("/v2/health/ready")
    assert (code, json.loads(body)) == (503, {"ready": False, "models_not_ready": ["broken"]})
    assert server.http_get("/v2/models/good/ready")[0] == 200

    # The export arrives: copied beside the version directory, then renamed into place.
    staged = os.path.join(str(tmp_path), "staged")
    shutil.copytree(os.path.join(MLP_BASE, "1"), staged)
    os.rmdir(os.path.join(broken, "1"))
    os.rename(staged, os.path.join(broken, "1"))
    assert _wait_for(lambda: server.http_get("/v2/health/ready")[0] == 200), server.log()
    assert server.version_states("broken") == {1: AVAILABLE}
    got = server.predict.Predict(_predict_request("broken"), timeout=30)
    want = server.predict.Predict(_predict_request("good"), timeout=30)
    np.testing.assert_array_equal(tf.make_ndarray(got.outputs["output_0"]),
                                  tf.make_ndarray(want.outputs["output_0"]))


def test_config_file_polling_applies_changes_and_ignores_broken_files(servers, tmp_path):
    a = _copy_mlp(tmp_path, "a")
    b = _copy_mlp(tmp_path, "b")
    config = os.path.join(str(tmp_path), "models.config")
    with open(config, "w") as f:
        f.write(model_config_text([("a", a)]))
    server = servers(["--model_config_file=" + config,
                      "--model_config_file_poll_wait_seconds=1"])
    with open(config, "w") as f:
        f.write(model_config_text([("a", a), ("b", b)]))
    assert _wait_for(lambda: _has(server, "b") and server.version_states("b").get(1) == AVAILABLE)
    with open(config, "w") as f:
        f.write("model_config_list { config { name: ")
    time.sleep(2.5)
    assert "model config file not applied" in server.log()
    server.predict.Predict(_predict_request("a"), timeout=30)
    server.predict.Predict(_predict_request("b"), timeout=30)


def _has(server, name):
    try:
        server.version_states(name)
        return True
    except grpc.RpcError:
        return False


def _write_warmup(version_dir, records):
    extra = os.path.join(version_dir, "assets.extra")
    os.makedirs(extra, exist_ok=True)
    with tf.io.TFRecordWriter(os.path.join(extra, "tf_serving_warmup_requests")) as writer:
        for rows in records:
            log = prediction_log_pb2.PredictionLog(
                predict_log=prediction_log_pb2.PredictLog(request=_predict_request("mlp", rows)))
            writer.write(log.SerializeToString())


def test_warmup_replays_records_and_bad_warmup_fails_the_load(servers, tmp_path):
    good = _copy_mlp(tmp_path, "good")
    _write_warmup(os.path.join(good, "1"), [1, 2, 3])
    corrupt = _copy_mlp(tmp_path, "corrupt")
    _write_warmup(os.path.join(corrupt, "1"), [1])
    path = os.path.join(corrupt, "1", "assets.extra", "tf_serving_warmup_requests")
    data = bytearray(open(path, "rb").read())
    data[20] ^= 0xFF
    open(path, "wb").write(bytes(data))
    config = os.path.join(str(tmp_path), "models.config")
    with open(config, "w") as f:
        f.write(model_config_text([("good", good), ("corrupt", corrupt)]))

    server = servers(["--model_config_file=" + config], rest=True)
    assert server.version_states("good") == {1: AVAILABLE}
    req = get_model_status_pb2.GetModelStatusRequest()
    req.model_spec.name = "corrupt"
    status = server.models.GetModelStatus(req, timeout=30).model_version_status[0]
    assert status.state == END
    assert status.status.error_code == grpc.StatusCode.DATA_LOSS.value[0]
    assert "warmup data is in TFRecord format" in status.status.error_message
    _, metrics = server.http_get("/monitoring/prometheus/metrics")
    line = ':tensorflow:serving:model_warmup_records_read{model_path="%s/1",status="OK"} 3' % good
    assert line in metrics, metrics

    # Without warmup the same directory loads.
    plain = servers(["--model_config_file=" + config, "--enable_model_warmup=false"])
    assert plain.version_states("corrupt") == {1: AVAILABLE}


def test_no_request_is_lost_during_a_version_swap(servers, tmp_path):
    base = _copy_mlp(tmp_path, "mlp")
    server = servers(["--model_name=mlp", "--model_base_path=" + base,
                      "--file_system_poll_wait_seconds=1"])
    stop = threading.Event()
    errors, versions = [], []

    def client():
        channel = grpc.insecure_channel("127.0.0.1:%d" % server.port)
        stub = prediction_service_pb2_grpc.PredictionServiceStub(channel)
        while not stop.is_set():
            try:
                reply = stub.Predict(_predict_request("mlp", 4), timeout=30)
                versions.append(reply.model_spec.version.value)
            except grpc.RpcError as e:
                errors.append(e.code())
        channel.close()

    threads = [threading.Thread(target=client) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    shutil.copytree(os.path.join(MLP_BASE, "1"), os.path.join(base, "2"))
    swapped = _wait_for(lambda: server.version_states("mlp") == {2: AVAILABLE, 1: END})
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()
    assert swapped, server.version_states("mlp")
    assert errors == []
    assert 1 in versions and 2 in versions
    assert versions[-1] == 2


def _snapshot(root):
    """{relative path: content} of every file under `root`."""
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, root)] = f.read()
    return files


def test_sigterm_during_a_later_load_does_not_wait_for_it(servers, tmp_path):
    """Regression: a version that began loading after startup held SIGTERM's shutdown until its
    load ended, or until the watchdog at the drain timeout + 3 s. A load in progress is now left
    behind: the daemon exits once its requests are drained."""
    base = _copy_mlp(tmp_path, "mlp")
    server = servers(["--model_name=mlp", "--model_base_path=" + base,
                      "--file_system_poll_wait_seconds=1", "--drain_timeout_seconds=10",
                      "--num_request_iterations_for_warmup=1000000"])
    server.predict.Predict(_predict_request("mlp"), timeout=30)
    staged = os.path.join(str(tmp_path), "staged")
    shutil.copytree(os.path.join(base, "1"), staged)
    _write_warmup(staged, [64])  # replayed a million times, it outlasts the test
    os.rename(staged, os.path.join(base, "2"))
    assert _wait_for(lambda: server.log().count("loading model version") == 2), server.log()
    time.sleep(0.5)
    start = time.time()
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=30) == 0
    assert time.time() - start < 5, "waited for the load (the watchdog exits at 13 s)"
    log = server.log()
    assert "stopped" in log and "shutdown took too long" not in log, log


def test_kill_9_during_a_load_leaves_nothing_to_clean_up(servers, tmp_path):
    """Crash-only: a server killed mid-load writes nothing under the model or config
    directories, and a restarted one serves with no cleanup."""
    from tensord_process import BINARY, free_port
    root = os.path.join(str(tmp_path), "deploy")
    base = _copy_mlp(root, "mlp")
    _write_warmup(os.path.join(base, "1"), [64])
    config = os.path.join(root, "models.config")
    with open(config, "w") as f:
        f.write(model_config_text([("mlp", base)]))
    before = _snapshot(root)
    log_path = os.path.join(str(tmp_path), "killed.log")
    with open(log_path, "w") as log:
        # Warmup replayed a million times keeps the load going until the kill.
        proc = subprocess.Popen([BINARY, "--port=%d" % free_port(), "--model_config_file=" + config,
                                 "--num_request_iterations_for_warmup=1000000"],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            assert _wait_for(lambda: "loading model version" in open(log_path).read())
            time.sleep(0.5)
            assert "model version available" not in open(log_path).read()
        finally:
            proc.kill()
            proc.wait()
    assert _snapshot(root) == before
    server = servers(["--model_config_file=" + config, "--enable_model_warmup=false"])
    request = _predict_request("mlp")
    got = server.predict.Predict(request, timeout=30).outputs["output_0"]
    model = tf.saved_model.load(os.path.join(MLP_BASE, "1")).signatures["serving_default"]
    want = model(features=tf.constant(tf.make_ndarray(request.inputs["features"])))["output_0"]
    np.testing.assert_allclose(tf.make_ndarray(got), want.numpy(), rtol=1e-5, atol=1e-6)
