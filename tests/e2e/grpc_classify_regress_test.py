"""End-to-end Classify, Regress and MultiInference against tensord with the official TF Serving
client, on TF Serving's half_plus_two test models (TF1 export and TF2 export).

Needs bazel-bin/server/tensord (`bazel build //server:tensord`) and ../shared (or
$TENSORD_SHARED_DIR); skipped without the latter.

    python3 -m pytest -q tests/e2e/grpc_classify_regress_test.py
"""
import os

import grpc
import pytest
from tensorflow.core.example import example_pb2
from tensorflow_serving.apis import classification_pb2, inference_pb2, regression_pb2

# Server startup and the shared-testdata location are shared with the Predict/metadata tests.
from grpc_server_test import start_server  # noqa: F401 (a fixture, used by name)
from tensord_process import HAVE_SHARED, TFS_TESTDATA

pytestmark = pytest.mark.skipif(not HAVE_SHARED, reason="../shared (TF Serving testdata) absent")

MODELS = {
    "half_plus_two": "saved_model_half_plus_two_cpu",
    "half_plus_two_tf2": "saved_model_half_plus_two_tf2_cpu",
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def server(request, start_server):  # noqa: F811 (pytest fixture injection)
    name = request.param
    srv = start_server(name, os.path.join(TFS_TESTDATA, MODELS[name]))
    srv.model = name
    return srv


def _example(**features):
    ex = example_pb2.Example()
    for key, value in features.items():
        ex.features.feature[key].float_list.value.append(value)
    return ex


def _fill_input(inp, xs, key="x"):
    for x in xs:
        inp.example_list.examples.append(_example(**{key: x}))


def _regress(srv, signature, xs, key="x"):
    req = regression_pb2.RegressionRequest()
    req.model_spec.name = srv.model
    req.model_spec.signature_name = signature
    _fill_input(req.input, xs, key)
    return srv.predict.Regress(req, timeout=60)


def test_regress(server):
    resp = _regress(server, "regress_x_to_y2", [1.0, 2.0])
    assert [r.value for r in resp.result.regressions] == pytest.approx([3.5, 4.0])
    assert resp.model_spec.name == server.model
    assert resp.model_spec.version.value == 123
    assert resp.model_spec.signature_name == "regress_x_to_y2"
    resp = _regress(server, "regress_x_to_y", [1.0, 2.0])
    assert [r.value for r in resp.result.regressions] == pytest.approx([2.5, 3.0])


def test_classify(server):
    req = classification_pb2.ClassificationRequest()
    req.model_spec.name = server.model
    req.model_spec.signature_name = "classify_x_to_y"
    _fill_input(req.input, [1.0])
    resp = server.predict.Classify(req, timeout=60)
    assert len(resp.result.classifications) == 1
    classes = resp.result.classifications[0].classes
    assert len(classes) == 1
    assert classes[0].label == ""
    assert classes[0].score == pytest.approx(2.5)
    assert resp.model_spec.signature_name == "classify_x_to_y"
    assert resp.model_spec.version.value == 123


def test_context_merged_example_wins(server):
    req = regression_pb2.RegressionRequest()
    req.model_spec.name = server.model
    req.model_spec.signature_name = "regress_x_to_y"
    ctx = req.input.example_list_with_context
    ctx.context.CopyFrom(_example(x=10.0))
    ctx.examples.append(_example(x=2.0))
    ctx.examples.append(_example(other=7.0))
    resp = server.predict.Regress(req, timeout=60)
    assert [r.value for r in resp.result.regressions] == pytest.approx([3.0, 7.0])


def test_regress_errors(server):
    for signature, xs, key in [("regress_x_to_y", [1.0], "z"),      # required feature missing
                               ("regress_x2_to_y3", [1.0], "x"),    # float-input signature
                               ("nope", [1.0], "x"),
                               ("regress_x_to_y", [], "x")]:        # empty input
        with pytest.raises(grpc.RpcError) as e:
            _regress(server, signature, xs, key)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, signature
    with pytest.raises(grpc.RpcError) as e:
        _regress(server, "nope", [1.0])
    assert e.value.details() == "No signature was found with the name: nope"
    assert server.proc.poll() is None


def _multi_request(model, tasks, xs):
    req = inference_pb2.MultiInferenceRequest()
    for spec_model, signature, method in tasks:
        task = req.tasks.add()
        task.model_spec.name = spec_model
        task.model_spec.signature_name = signature
        task.method_name = "tensorflow/serving/" + method
    _fill_input(req.input, xs)
    return req


def test_multi_inference(server):
    m = server.model
    req = _multi_request(m, [(m, "regress_x_to_y", "regress"), (m, "regress_x_to_y2", "regress"),
                             (m, "classify_x_to_y", "classify")], [1.0, 2.0])
    resp = server.predict.MultiInference(req, timeout=60)
    assert len(resp.results) == 3
    assert [r.model_spec.signature_name for r in resp.results] == [
        "regress_x_to_y", "regress_x_to_y2", "classify_x_to_y"]
    assert all(r.model_spec.name == m and r.model_spec.version.value == 123 for r in resp.results)
    assert [r.value for r in resp.results[0].regression_result.regressions] == pytest.approx(
        [2.5, 3.0])
    assert [r.value for r in resp.results[1].regression_result.regressions] == pytest.approx(
        [3.5, 4.0])
    scores = [c.classes[0].score for c in resp.results[2].classification_result.classifications]
    assert scores == pytest.approx([2.5, 3.0])


def test_multi_inference_errors(server):
    m = server.model
    cases = [
        ([(m, "regress_x_to_y", "regress"), ("other", "regress_x_to_y2", "regress")],
         grpc.StatusCode.INVALID_ARGUMENT,
         "All ModelSpecs in a MultiInferenceRequest must access the same model name."),
        ([(m, "regress_x_to_y", "regress"), (m, "regress_x_to_y", "classify")],
         grpc.StatusCode.INVALID_ARGUMENT, "Duplicate evaluation of signature: regress_x_to_y"),
        ([(m, "missing", "regress")], grpc.StatusCode.INVALID_ARGUMENT,
         "Requested signature not found in model graph: missing"),
        ([(m, "regress_x_to_y", "predict")], grpc.StatusCode.UNIMPLEMENTED,
         "Unsupported signature method_name: tensorflow/serving/predict"),
    ]
    for tasks, code, details in cases:
        with pytest.raises(grpc.RpcError) as e:
            server.predict.MultiInference(_multi_request(m, tasks, [1.0]), timeout=60)
        assert e.value.code() == code
        assert e.value.details() == details
