"""TF Serving's REST API on the real tensord binary, driven with curl.

Starts bazel-bin/server/tensord with --rest_api_port on loopback ports and checks TF Serving's
documented REST results (shared/testdata/tfserving/README.md §5) and the committed Keras model.
"""
import json
import os
import signal
import subprocess
import time

import numpy as np
import pytest

from tensord_process import BINARY, MLP_BASE, TFS_TESTDATA, free_port, needs_shared


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
