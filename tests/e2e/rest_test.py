"""TF Serving's REST API on the real tensord binary, driven with curl.

Starts bazel-bin/server/tensord with --rest_api_port on loopback ports and checks TF Serving's
documented REST results (shared/testdata/tfserving/README.md §5) and the committed Keras model.
"""
import json
import os
import signal
import subprocess
import time

import grpc
import numpy as np
import pytest

from tensord_process import (BINARY, MLP_BASE, REPO, TFS_TESTDATA, Server, free_port,
                             needs_shared, official_classify_regress)


def curl(url, body=None):
    """Returns (http_code, parsed JSON body)."""
    cmd = ["curl", "-s", "-o", "-", "-w", "\n%{http_code}", url]
    if body is not None:
        cmd += ["-X", "POST", "-H", "Content-Type: application/json", "-d", json.dumps(body)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    text, _, code = out.rpartition("\n")
    return int(code), json.loads(text) if text else None


class RestServer:
    def __init__(self, model_name, base_path, log_dir):
        self.rest_port = free_port()
        self.log = open(os.path.join(log_dir, "tensord_rest_%d.log" % self.rest_port), "w")
        self.proc = subprocess.Popen(
            [BINARY, "--port=%d" % free_port(), "--rest_api_port=%d" % self.rest_port,
             "--model_name=" + model_name, "--model_base_path=" + base_path],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % self.rest_port
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                code, _ = curl(self.base + "/v1/models/" + model_name)
                if code == 200:
                    return
            except (ValueError, subprocess.TimeoutExpired):
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("tensord REST did not come up")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


@pytest.fixture(scope="module")
def servers(request, tmp_path_factory):
    if not os.path.exists(BINARY):
        pytest.fail("%s missing: run `bazel build //server:tensord` first" % BINARY)
    log_dir = str(tmp_path_factory.mktemp("rest"))
    started = {}
    request.addfinalizer(lambda: [s.stop() for s in started.values()])

    def get(name, base_path):
        if name not in started:
            started[name] = RestServer(name, base_path, log_dir)
        return started[name]
    return get


def test_mlp_predict_row_and_columnar(servers):
    s = servers("mlp", MLP_BASE)
    golden = os.path.join(MLP_BASE, "golden")
    x = np.load(os.path.join(golden, "c0_in_features.npy"))
    want = np.load(os.path.join(golden, "c0_out_output_0.npy"))
    code, body = curl(s.base + "/v1/models/mlp:predict", {"instances": x.tolist()})
    assert code == 200, body
    np.testing.assert_allclose(np.array(body["predictions"]), want, rtol=1e-5, atol=1e-6)
    code, body = curl(s.base + "/v1/models/mlp/versions/1:predict", {"inputs": x.tolist()})
    assert code == 200, body
    np.testing.assert_allclose(np.array(body["outputs"]), want, rtol=1e-5, atol=1e-6)


def test_mlp_status_and_errors(servers):
    s = servers("mlp", MLP_BASE)
    code, body = curl(s.base + "/v1/models/mlp")
    assert code == 200
    assert body["model_version_status"][0]["state"] == "AVAILABLE"
    assert body["model_version_status"][0]["version"] == "1"
    code, body = curl(s.base + "/v1/models/mlp/metadata")
    assert code == 200
    assert "serving_default" in body["metadata"]["signature_def"]["signature_def"]
    code, body = curl(s.base + "/v1/models/half:predict", {"instances": [1.0]})
    assert code == 404
    assert body == {"error": "Servable not found for request: Latest(half)"}
    code, body = curl(s.base + "/v1/models/mlp:predict", {"instances": [[1.0, 2.0]]})
    assert code == 400 and body["error"]


@needs_shared
def test_half_plus_two_rest_forms(servers):
    s = servers("half_plus_two", os.path.join(TFS_TESTDATA, "saved_model_half_plus_two_cpu"))
    code, body = curl(s.base + "/v1/models/half_plus_two:predict", {"instances": [1.0, 2.0, 5.0]})
    assert (code, body) == (200, {"predictions": [2.5, 3.0, 4.5]})
    code, body = curl(s.base + "/v1/models/half_plus_two:predict", {"inputs": {"x": [[1.0], [2.0]]}})
    assert (code, body) == (200, {"outputs": [[2.5], [3.0]]})
    code, body = curl(s.base + "/v1/models/half_plus_two:regress",
                      {"signature_name": "regress_x_to_y2", "examples": [{"x": 1.0}, {"x": 2.0}]})
    assert (code, body) == (200, {"results": [3.5, 4.0]})


@needs_shared
def test_half_plus_three_regress_as_documented(servers):
    s = servers("half_plus_three", os.path.join(TFS_TESTDATA, "saved_model_half_plus_three"))
    code, body = curl(s.base + "/v1/models/half_plus_three:regress",
                      {"signature_name": "tensorflow/serving/regress",
                       "examples": [{"x": 1.0}, {"x": 2.0}]})
    assert (code, body) == (200, {"results": [3.5, 4.0]})


# --- classify / regress: REST JSON against the official gRPC client ---------------------------

PARSE_EXAMPLE_BASE = os.path.join(REPO, "tests", "testdata", "tf1_parse_example")


@pytest.fixture(scope="module")
def parse_example(tmp_path_factory):
    """tensord serving tf1_parse_example (y = 0.5 x + 2, y2 = 0.5 x2 + 3 over tf.Examples whose
    x / x2 default to 0 / 1; classify_x_to_y labels y > 2.5 "big") on gRPC and REST."""
    srv = Server(["--model_name=parse_example", "--model_base_path=" + PARSE_EXAMPLE_BASE],
                 tmp_path_factory.mktemp("parse_example"), rest=True)
    yield srv
    assert srv.stop() == 0, srv.log()


def _rest(srv, method, signature, examples, context=None):
    """(HTTP status, body) of the REST call; results rounded to float32, the precision the
    server computed them in, so that they compare exactly with the official client's."""
    body = {"signature_name": signature, "examples": examples}
    if context is not None:
        body["context"] = context
    code, reply = curl("%s/v1/models/parse_example:%s" % (srv.rest_url, method), body)
    if code == 200:
        f32 = lambda v: float(np.float32(v))  # noqa: E731
        reply["results"] = ([[[label, f32(score)] for label, score in cl]
                             for cl in reply["results"]] if method == "classify"
                            else [f32(v) for v in reply["results"]])
    return code, reply


# (method, signature, examples, context, expected results): the models' formulas, exact in float32.
BOOL_AND_CONTEXT_CASES = [
    # Booleans are int64 1 / 0; the model ignores the feature "flag".
    ("regress", "serving_default", [{"x": 1.0, "flag": True}, {"x": [2.5], "flag": [False, True]}],
     None, [2.5, 3.25]),
    ("classify", "classify_x_to_y", [{"x": 3.0, "flag": False}], None, [[["big", 3.5]]]),
    # "x" / "x2" in the context and in examples: the example's value wins, the context fills in.
    ("regress", "regress_x_to_y", [{"x": 2.0}, {"x2": 7.0}, {}], {"x": 10.0, "x2": 4.0},
     [3.0, 7.0, 7.0]),
    ("regress", "regress_x2_to_y2", [{"x": 2.0}, {"x2": 7.0}, {}], {"x": 10.0, "x2": 4.0},
     [5.0, 6.5, 5.0]),
    ("classify", "classify_x_to_y", [{"x": 0.0}, {"x2": 7.0, "flag": True}],
     {"x": 10.0, "flag": False}, [[["small", 2.0]], [["big", 7.0]]]),
]


@pytest.mark.parametrize("method,signature,examples,context,expected", BOOL_AND_CONTEXT_CASES)
def test_classify_regress_bool_and_context_as_tf_serving(parse_example, method, signature,
                                                         examples, context, expected):
    code, body = _rest(parse_example, method, signature, examples, context)
    assert code == 200, body
    assert body["results"] == official_classify_regress(parse_example, method, "parse_example",
                                                        signature, examples, context)
    assert body["results"] == expected


def test_classify_regress_feature_types_are_the_json_tokens(parse_example):
    # true is int64 1, not float: the model parses x as float, so the server refuses it exactly
    # as it refuses the official client's int64_list.
    with pytest.raises(grpc.RpcError) as official:
        official_classify_regress(parse_example, "regress", "parse_example", "serving_default",
                                  [{"x": True}])
    code, body = _rest(parse_example, "regress", "serving_default", [{"x": True}])
    assert official.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (code, body) == (400, {"error": official.value.details()})
    # 1 is int64 and 2.5 float; one feature cannot hold both (TF Serving's message).
    code, body = _rest(parse_example, "regress", "serving_default", [{"x": [1, 2.5]}])
    assert (code, body) == (400, {"error": "example 0: Unexpected element type in feature: x "
                                           "expecting type: int64"})
