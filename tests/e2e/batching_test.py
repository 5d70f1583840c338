"""Request batching on the real tensord binary (--enable_batching): many concurrent clients get
exactly what TensorFlow computes for their own rows, /metrics shows merged batches, and the
cases batching must not change (oversized requests, stateful models, per-model settings).

    python3 -m pytest -q tests/e2e/batching_test.py
"""
import os
import shutil
import signal
import threading
import time

import grpc
import numpy as np
import pytest
import tensorflow as tf
from tensorflow_serving.apis import get_model_status_pb2, model_management_pb2, predict_pb2

from tensord_process import (MLP_BASE, Server, TFS_TESTDATA, model_config_proto,
                             model_config_text, needs_shared, official_classify_regress)

PARAMS = """
max_batch_size { value: 16 }
batch_timeout_micros { value: 20000 }
num_batch_threads { value: 2 }
max_enqueued_batches { value: 100 }
allowed_batch_sizes: 4
allowed_batch_sizes: 8
allowed_batch_sizes: 16
"""


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def _request(name, x):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = name
    req.inputs["features"].CopyFrom(tf.make_tensor_proto(x))
    return req


def _metric_sum(text, name, **labels):
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") and all('%s="%s"' % kv in line for kv in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def _wait_for_queue_depth(server, model, depth):
    """Waits up to 2 s for `depth` requests of `model` in its batch queue (/metrics)."""
    for _ in range(200):
        _, metrics = server.http_get("/monitoring/prometheus/metrics")
        if _metric_sum(metrics, "tensord_batch_queue_depth", model=model) == depth:
            return
        time.sleep(0.01)
    raise AssertionError("batch queue of %s never held %d requests:\n%s" % (model, depth, metrics))


@pytest.fixture
def servers(tmp_path):
    started = []

    def start(flags):
        s = Server(flags, tmp_path, rest=True)
        started.append(s)
        return s
    yield start
    for s in started:
        assert s.stop() == 0, s.log()


@pytest.fixture(scope="module")
def keras_mlp():
    return tf.saved_model.load(os.path.join(MLP_BASE, "1")).signatures["serving_default"]


def test_concurrent_requests_are_merged_and_answered_exactly(servers, tmp_path, keras_mlp):
    params = _write(os.path.join(str(tmp_path), "batching.config"), PARAMS)
    server = servers(["--model_name=mlp", "--model_base_path=" + MLP_BASE, "--enable_batching",
                      "--batching_parameters_file=" + params])
    rng = np.random.default_rng(7)
    inputs = [rng.standard_normal((int(rng.integers(1, 4)), 16)).astype(np.float32)
              for _ in range(48)]
    answers = [None] * len(inputs)
    errors = []

    def client(indices):
        for i in indices:
            try:
                reply = server.predict.Predict(_request("mlp", inputs[i]), timeout=60)
                answers[i] = tf.make_ndarray(reply.outputs["output_0"])
            except grpc.RpcError as e:
                errors.append(e)
    threads = [threading.Thread(target=client, args=(range(k, len(inputs), 16),))
               for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for x, got in zip(inputs, answers):
        want = keras_mlp(features=tf.constant(x))["output_0"].numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    _, metrics = server.http_get("/monitoring/prometheus/metrics")
    labels = {"model": "mlp", "version": "1", "signature": "serving_default"}
    rows = _metric_sum(metrics, "tensord_batch_rows_total", **labels)
    batches = _metric_sum(metrics, "tensord_batch_size_count", **labels)
    assert rows == sum(len(x) for x in inputs)
    assert 0 < batches < len(inputs), metrics  # some batches held several requests
    # Executed sizes are allowed sizes only (4, 8, 16): nothing ran below 4.
    sizes = [line for line in metrics.splitlines()
             if line.startswith("tensord_batch_size_bucket") and 'le="2"' in line]
    assert sizes and float(sizes[0].rsplit(" ", 1)[1]) == 0, sizes  # nothing below 4 ran
    assert ':tensorflow:serving:batching_session:wrapped_run_count ' in metrics

    # A request larger than max_batch_size is refused (splitting is off).
    with pytest.raises(grpc.RpcError) as e:
        server.predict.Predict(_request("mlp", np.zeros((17, 16), np.float32)), timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "max_batch_size" in e.value.details()


def test_per_model_parameters_batch_only_models_that_have_them(servers, tmp_path, keras_mlp):
    with_file = os.path.join(str(tmp_path), "with")
    shutil.copytree(os.path.join(MLP_BASE, "1"), os.path.join(with_file, "1"))
    _write(os.path.join(with_file, "1", "batching_params.pbtxt"), PARAMS)
    without = os.path.join(str(tmp_path), "without")
    shutil.copytree(os.path.join(MLP_BASE, "1"), os.path.join(without, "1"))
    config = _write(os.path.join(str(tmp_path), "models.config"),
                    model_config_text([("with", with_file), ("without", without)]))
    server = servers(["--model_config_file=" + config, "--enable_batching",
                      "--enable_per_model_batching_parameters"])
    x = np.ones((2, 16), np.float32)
    want = keras_mlp(features=tf.constant(x))["output_0"].numpy()
    for name in ("with", "without"):
        got = tf.make_ndarray(server.predict.Predict(_request(name, x), timeout=30)
                              .outputs["output_0"])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    _, metrics = server.http_get("/monitoring/prometheus/metrics")
    assert _metric_sum(metrics, "tensord_batch_rows_total", model="with") == 2
    assert _metric_sum(metrics, "tensord_batch_rows_total", model="without") == 0


@needs_shared
def test_stateful_model_is_not_batched(servers):
    server = servers(["--model_name=counter",
                      "--model_base_path=" + os.path.join(TFS_TESTDATA, "saved_model_counter"),
                      "--enable_batching"])

    def run(signature):
        req = predict_pb2.PredictRequest()
        req.model_spec.name = "counter"
        req.model_spec.signature_name = signature
        return tf.make_ndarray(server.predict.Predict(req, timeout=30).outputs["output"])
    assert run("incr_counter") == 1
    assert run("incr_counter") == 2
    assert run("get_counter") == 2
    _, metrics = server.http_get("/monitoring/prometheus/metrics")
    assert _metric_sum(metrics, "tensord_batch_rows_total", model="counter") == 0


@needs_shared
def test_classify_and_regress_answer_beside_batched_predict(servers, tmp_path):
    """Classify and Regress take tf.Example protos, which batching does not merge: with
    batching on they still answer, while Predict requests arriving beside them are merged."""
    params = _write(os.path.join(str(tmp_path), "batching.config"), PARAMS)
    server = servers(["--model_name=hpt", "--enable_batching",
                      "--batching_parameters_file=" + params,
                      "--model_base_path=" + os.path.join(TFS_TESTDATA,
                                                          "saved_model_half_plus_two_cpu")])
    errors = []

    def predict(k):
        x = np.array([k, k + 0.5], np.float32)
        req = predict_pb2.PredictRequest()
        req.model_spec.name = "hpt"
        req.inputs["x"].CopyFrom(tf.make_tensor_proto(x))
        try:
            got = tf.make_ndarray(server.predict.Predict(req, timeout=60).outputs["y"])
            np.testing.assert_allclose(got, x / 2 + 2, rtol=1e-6)
        except (grpc.RpcError, AssertionError) as e:
            errors.append(e)

    def regress_and_classify():
        try:
            got = official_classify_regress(server, "regress", "hpt", "regress_x_to_y",
                                            [{"x": 1.0}, {"x": 6.0}])
            assert got == pytest.approx([2.5, 5.0])
            got = official_classify_regress(server, "classify", "hpt", "classify_x_to_y",
                                            [{"x": 4.0}])
            assert [score for _, score in got[0]] == pytest.approx([4.0])
        except (grpc.RpcError, AssertionError) as e:
            errors.append(e)

    threads = [threading.Thread(target=predict, args=(k,)) for k in range(12)]
    threads += [threading.Thread(target=regress_and_classify) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _, metrics = server.http_get("/monitoring/prometheus/metrics")
    # Only Predict's 12 requests of 2 rows each went through the batch queues.
    assert _metric_sum(metrics, "tensord_batch_rows_total", model="hpt") == 24
    assert 0 < _metric_sum(metrics, "tensord_batch_size_count", model="hpt") < 12, metrics


def test_unloading_a_model_answers_the_requests_in_its_queue(servers, tmp_path, keras_mlp):
    """A version unloaded while requests wait in its batch queue still answers every one of
    them (each holds the version until its batch has run); new requests find it gone."""
    models = {}
    for name in ("a", "b"):
        models[name] = os.path.join(str(tmp_path), name)
        shutil.copytree(os.path.join(MLP_BASE, "1"), os.path.join(models[name], "1"))

    config_path = _write(os.path.join(str(tmp_path), "models.config"),
                         model_config_text(sorted(models.items())))
    # Batches never fill (4 rows of 64) and wait 3 s.
    params = _write(os.path.join(str(tmp_path), "batching.config"),
                    "max_batch_size { value: 64 }\nbatch_timeout_micros { value: 3000000 }\n"
                    "num_batch_threads { value: 1 }\n")
    server = servers(["--model_config_file=" + config_path, "--enable_batching",
                      "--batching_parameters_file=" + params])
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal((1, 16)).astype(np.float32) for _ in range(4)]
    futures = [server.predict.Predict.future(_request("a", x), timeout=60) for x in inputs]
    _wait_for_queue_depth(server, "a", 4)

    reload = model_management_pb2.ReloadConfigRequest()
    reload.config.CopyFrom(model_config_proto([("b", models["b"])]))
    reply = server.models.HandleReloadConfigRequest(reload, timeout=60)
    assert reply.status.error_code == 0, reply
    assert not any(f.done() for f in futures)  # still queued when the version was unloaded
    assert server.version_states("a") == {1: get_model_status_pb2.ModelVersionStatus.END}
    for x, future in zip(inputs, futures):
        got = tf.make_ndarray(future.result().outputs["output_0"])
        want = keras_mlp(features=tf.constant(x))["output_0"].numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(grpc.RpcError) as e:
        server.predict.Predict(_request("a", inputs[0]), timeout=30)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    got = server.predict.Predict(_request("b", inputs[0]), timeout=30).outputs["output_0"]
    np.testing.assert_allclose(tf.make_ndarray(got), keras_mlp(
        features=tf.constant(inputs[0]))["output_0"].numpy(), rtol=1e-5, atol=1e-6)


def test_sigterm_answers_queued_requests_without_waiting_for_the_batch_timeout(
        servers, tmp_path, keras_mlp):
    """Regression: draining waited out every partial batch's timer (here 60 s, longer than the
    drain timeout, so queued requests were cut off instead of answered)."""
    params = _write(os.path.join(str(tmp_path), "batching.config"),
                    "max_batch_size { value: 64 }\nbatch_timeout_micros { value: 60000000 }\n")
    server = servers(["--model_name=mlp", "--model_base_path=" + MLP_BASE, "--enable_batching",
                      "--batching_parameters_file=" + params])
    rng = np.random.default_rng(4)
    inputs = [rng.standard_normal((1, 16)).astype(np.float32) for _ in range(3)]
    futures = [server.predict.Predict.future(_request("mlp", x), timeout=60) for x in inputs]
    _wait_for_queue_depth(server, "mlp", 3)
    start = time.time()
    server.proc.send_signal(signal.SIGTERM)
    for x, future in zip(inputs, futures):
        got = tf.make_ndarray(future.result(timeout=10).outputs["output_0"])
        want = keras_mlp(features=tf.constant(x))["output_0"].numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert server.proc.wait(timeout=10) == 0
    assert time.time() - start < 5
