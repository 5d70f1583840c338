"""End-to-end tests of the tensord gRPC server, driven by the official TF Serving client.

Starts the real binary (bazel-bin/server/tensord; build it with `bazel build //server:tensord`)
on free loopback ports and talks to it with `tensorflow-serving-api` stubs. Tests that need
TF Serving's own test models use ../shared (or $TENSORD_SHARED_DIR) and are skipped without it.

    python3 -m pytest -q tests/e2e/grpc_server_test.py
"""
import json
import os
import subprocess

import grpc
import numpy as np
import pytest
import tensorflow as tf
from google.protobuf import json_format
from tensorflow_serving.apis import get_model_metadata_pb2, get_model_status_pb2, predict_pb2

from tensord_process import BINARY, MLP_BASE, MLP_GOLDEN, Server, TFS_TESTDATA, needs_shared


@pytest.fixture(scope="module")
def start_server(request, tmp_path_factory):
    if not os.path.exists(BINARY):
        pytest.fail("%s missing: run `bazel build //server:tensord` first" % BINARY)
    tmp = str(tmp_path_factory.mktemp("tensord"))
    servers = []

    def finalize():
        for s in servers:
            s.stop()
    request.addfinalizer(finalize)

    def start(model_name, base_path):
        s = Server(["--model_name=" + model_name, "--model_base_path=" + base_path], tmp)
        servers.append(s)
        return s
    return start


@pytest.fixture(scope="module")
def mlp(start_server):
    return start_server("mlp", MLP_BASE)


@pytest.fixture(scope="module")
def half_plus_two(start_server):
    return start_server("half_plus_two",
                        os.path.join(TFS_TESTDATA, "saved_model_half_plus_two_cpu"))


def _predict_request(model, inputs, signature=None, version=None):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = model
    if signature is not None:
        req.model_spec.signature_name = signature
    if version is not None:
        req.model_spec.version.value = version
    for alias, value in inputs.items():
        req.inputs[alias].CopyFrom(tf.make_tensor_proto(value))
    return req


def _mlp_cases():
    with open(os.path.join(MLP_GOLDEN, "cases.json")) as f:
        return json.load(f)["cases"]


def test_mlp_predict_matches_golden(mlp):
    cases = _mlp_cases()
    assert cases
    for case in cases:
        inputs = {a: np.load(os.path.join(MLP_GOLDEN, p)) for a, p in case["inputs"].items()}
        resp = mlp.predict.Predict(_predict_request("mlp", inputs, case["signature"]), timeout=60)
        assert resp.model_spec.name == "mlp"
        assert resp.model_spec.version.value == 1
        assert resp.model_spec.signature_name == case["signature"]
        assert set(resp.outputs) == set(case["outputs"])
        for alias, path in case["outputs"].items():
            expected = np.load(os.path.join(MLP_GOLDEN, path))
            got = tf.make_ndarray(resp.outputs[alias])
            assert resp.outputs[alias].tensor_content  # numbers travel as tensor_content
            assert got.dtype == expected.dtype
            np.testing.assert_allclose(got, expected, rtol=case.get("rtol", 1e-5),
                                       atol=case.get("atol", 1e-6))


def test_mlp_default_signature_and_output_filter(mlp):
    x = np.load(os.path.join(MLP_GOLDEN, _mlp_cases()[0]["inputs"]["features"]))
    req = _predict_request("mlp", {"features": x})
    req.output_filter.append("output_0")
    resp = mlp.predict.Predict(req, timeout=60)
    assert resp.model_spec.signature_name == "serving_default"
    assert list(resp.outputs) == ["output_0"]
    req.output_filter.append("output_0")
    with pytest.raises(grpc.RpcError) as e:
        mlp.predict.Predict(req, timeout=60)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "duplicate output tensor alias" in e.value.details()


def test_mlp_status_available(mlp):
    req = get_model_status_pb2.GetModelStatusRequest()
    req.model_spec.name = "mlp"
    resp = mlp.models.GetModelStatus(req, timeout=30)
    assert len(resp.model_version_status) == 1
    vs = resp.model_version_status[0]
    assert vs.version == 1
    assert vs.state == get_model_status_pb2.ModelVersionStatus.AVAILABLE
    assert vs.status.error_code == 0 and vs.status.error_message == ""


def test_unknown_model_not_found(mlp):
    with pytest.raises(grpc.RpcError) as e:
        mlp.predict.Predict(_predict_request("nope", {"features": np.zeros((1, 16), np.float32)}),
                            timeout=30)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    assert e.value.details() == "Servable not found for request: Latest(nope)"
    with pytest.raises(grpc.RpcError) as e:
        mlp.predict.Predict(
            _predict_request("mlp", {"features": np.zeros((1, 16), np.float32)}, version=9),
            timeout=30)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    assert e.value.details() == "Servable not found for request: Specific(mlp, 9)"


def test_unknown_signature_failed_precondition(mlp):
    with pytest.raises(grpc.RpcError) as e:
        mlp.predict.Predict(
            _predict_request("mlp", {"features": np.zeros((1, 16), np.float32)}, "nope"),
            timeout=30)
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert e.value.details() == 'Serving signature key "nope" not found.'


def test_wrong_dtype_and_aliases_invalid_argument(mlp):
    with pytest.raises(grpc.RpcError) as e:
        mlp.predict.Predict(_predict_request("mlp", {"features": np.zeros((1, 16), np.int32)}),
                            timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as e:
        mlp.predict.Predict(_predict_request("mlp", {"features": np.zeros((1, 16), np.float32),
                                                     "extra": np.zeros((1,), np.float32)}),
                            timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert e.value.details().startswith("input size does not match signature: 2!=1")


def test_classify_without_examples_is_invalid(mlp):
    from tensorflow_serving.apis import classification_pb2
    req = classification_pb2.ClassificationRequest()
    req.model_spec.name = "mlp"
    with pytest.raises(grpc.RpcError) as e:
        mlp.predict.Classify(req, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "Input is empty" in e.value.details()


@needs_shared
def test_half_plus_two_predict(half_plus_two):
    x = np.array([[1.0], [2.0], [5.0]], dtype=np.float32)
    resp = half_plus_two.predict.Predict(_predict_request("half_plus_two", {"x": x}), timeout=60)
    assert resp.model_spec.name == "half_plus_two"
    assert resp.model_spec.version.value == 123
    assert resp.model_spec.signature_name == "serving_default"
    np.testing.assert_allclose(tf.make_ndarray(resp.outputs["y"]), [[2.5], [3.0], [4.5]])


@needs_shared
def test_half_plus_two_status(half_plus_two):
    req = get_model_status_pb2.GetModelStatusRequest()
    req.model_spec.name = "half_plus_two"
    resp = half_plus_two.models.GetModelStatus(req, timeout=30)
    assert [(v.version, v.state) for v in resp.model_version_status] == [
        (123, get_model_status_pb2.ModelVersionStatus.AVAILABLE)]


@needs_shared
def test_metadata_matches_tf_serving_golden(start_server):
    server = start_server("default", os.path.join(TFS_TESTDATA, "saved_model_half_plus_two_cpu"))
    req = get_model_metadata_pb2.GetModelMetadataRequest()
    req.model_spec.name = "default"
    req.metadata_field.append("signature_def")
    resp = server.predict.GetModelMetadata(req, timeout=30)
    assert (resp.metadata["signature_def"].type_url ==
            "type.googleapis.com/tensorflow.serving.SignatureDefMap")
    got = json_format.MessageToDict(resp, preserving_proto_field_name=True,
                                    always_print_fields_with_no_presence=True)
    got["metadata"]["signature_def"].pop("@type")
    with open(os.path.join(TFS_TESTDATA, "half_plus_two_model_metadata.json")) as f:
        golden = json.load(f)
    assert got == golden

    req.ClearField("metadata_field")
    with pytest.raises(grpc.RpcError) as e:
        server.predict.GetModelMetadata(req, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@needs_shared
def test_bad_model_ends_with_error_and_server_keeps_running(start_server):
    server = start_server("bad", os.path.join(TFS_TESTDATA, "bad_half_plus_two"))
    req = get_model_status_pb2.GetModelStatusRequest()
    req.model_spec.name = "bad"
    resp = server.models.GetModelStatus(req, timeout=30)
    assert len(resp.model_version_status) == 1
    vs = resp.model_version_status[0]
    assert vs.version == 123
    assert vs.state == get_model_status_pb2.ModelVersionStatus.END
    assert vs.status.error_code != 0 and vs.status.error_message
    with pytest.raises(grpc.RpcError) as e:
        server.predict.Predict(_predict_request("bad", {"x": np.ones((1, 1), np.float32)}),
                               timeout=30)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    assert server.proc.poll() is None  # still serving
    # Still answers after the failed request.
    assert server.models.GetModelStatus(req, timeout=30).model_version_status[0].version == 123


def test_sigterm_exits_zero(start_server):
    server = start_server("mlp", MLP_BASE)
    assert server.stop() == 0
    assert "shutting down" in server.log()


def test_unknown_flag_is_an_error():
    if not os.path.exists(BINARY):
        pytest.fail("%s missing" % BINARY)
    proc = subprocess.run([BINARY, "--no_such_flag=1"], capture_output=True, timeout=60)
    assert proc.returncode != 0
    version = subprocess.run([BINARY, "--version"], capture_output=True, timeout=60)
    assert version.returncode == 0
    assert b"tensord" in version.stdout + version.stderr


def test_grpc_health_check(mlp):
    # grpc.health.v1.Health/Check with raw protobuf bytes: request {service}, response
    # {status: 1 = SERVING}.
    check = mlp.channel.unary_unary("/grpc.health.v1.Health/Check",
                                    request_serializer=lambda b: b,
                                    response_deserializer=lambda b: b)
    assert check(b"", timeout=30) == b"\x08\x01"
    assert check(b"\x0a\x03mlp", timeout=30) == b"\x08\x01"
    with pytest.raises(grpc.RpcError) as e:
        check(b"\x0a\x04nope", timeout=30)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
