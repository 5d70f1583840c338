"""End-to-end tests of --model_config_file, version policies, version labels and version polling.

Starts the real binary (bazel-bin/server/tensord) and talks to it with the official
tensorflow-serving-api client. Tests on TF Serving's test models need ../shared (or
$TENSORD_SHARED_DIR); the polling test uses a temporary copy of tests/testdata/keras_mlp.

    python3 -m pytest -q tests/e2e/model_config_test.py
"""
import json
import os
import shutil
import subprocess
import time

import grpc
import numpy as np
import pytest
import tensorflow as tf
from tensorflow_serving.apis import get_model_status_pb2, predict_pb2

from tensord_process import (BINARY, MLP_BASE, MLP_GOLDEN, Server, TFS_TESTDATA, free_port,
                             needs_shared)

TWO_VERSIONS = os.path.join(TFS_TESTDATA, "saved_model_half_plus_two_2_versions")

AVAILABLE = 30
END = 50


@pytest.fixture
def start_server(tmp_path):
    servers = []

    def start(flags):
        s = Server(flags, tmp_path)
        servers.append(s)
        return s
    yield start
    for s in servers:
        assert s.stop() == 0, s.log()


def _write_config(tmp_path, body):
    path = os.path.join(str(tmp_path), "models.config")
    with open(path, "w") as f:
        f.write(body)
    return path


def _config(name, base_path, policy="", labels=None):
    lines = ["model_config_list {", "  config {", "    name: '%s'" % name,
             "    base_path: '%s'" % base_path, "    model_platform: 'tensorflow'"]
    if policy:
        lines.append("    model_version_policy { %s }" % policy)
    for label, version in (labels or {}).items():
        lines.append("    version_labels { key: '%s' value: %d }" % (label, version))
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def _status(server, name):
    req = get_model_status_pb2.GetModelStatusRequest()
    req.model_spec.name = name
    resp = server.models.GetModelStatus(req, timeout=30)
    return [(v.version, v.state) for v in resp.model_version_status]


def _half_plus_two(server, name, version=None, label=None):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = name
    if version is not None:
        req.model_spec.version.value = version
    if label is not None:
        req.model_spec.version_label = label
    req.inputs["x"].CopyFrom(tf.make_tensor_proto(np.array([1.0, 2.0], dtype=np.float32)))
    resp = server.predict.Predict(req, timeout=60)
    np.testing.assert_allclose(tf.make_ndarray(resp.outputs["y"]).reshape(-1), [2.5, 3.0])
    return resp.model_spec.version.value


@needs_shared
def test_policy_all_serves_both_versions(start_server, tmp_path):
    cfg = _write_config(tmp_path, _config("hpt", TWO_VERSIONS, "all {}"))
    server = start_server(["--model_config_file=" + cfg])
    assert _status(server, "hpt") == [(124, AVAILABLE), (123, AVAILABLE)]
    assert _half_plus_two(server, "hpt") == 124
    assert _half_plus_two(server, "hpt", version=123) == 123


@needs_shared
def test_policy_specific_and_labels(start_server, tmp_path):
    cfg = _write_config(tmp_path, _config("hpt", TWO_VERSIONS, "specific { versions: 123 }",
                                          {"stable": 123}))
    server = start_server(["--model_config_file=" + cfg])
    assert _status(server, "hpt") == [(123, AVAILABLE)]
    assert _half_plus_two(server, "hpt") == 123
    assert _half_plus_two(server, "hpt", label="stable") == 123
    with pytest.raises(grpc.RpcError) as e:
        _half_plus_two(server, "hpt", version=124)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as e:
        _half_plus_two(server, "hpt", label="canary")
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "Unrecognized servable version label: canary" in e.value.details()


@needs_shared
def test_default_policy_is_latest(start_server, tmp_path):
    cfg = _write_config(tmp_path, _config("hpt", TWO_VERSIONS, labels={"canary": 124}))
    server = start_server(["--model_config_file=" + cfg])
    assert _status(server, "hpt") == [(124, AVAILABLE)]
    assert _half_plus_two(server, "hpt") == 124
    assert _half_plus_two(server, "hpt", label="canary") == 124


def _mlp_predict(server, name):
    with open(os.path.join(MLP_GOLDEN, "cases.json")) as f:
        case = json.load(f)["cases"][0]
    req = predict_pb2.PredictRequest()
    req.model_spec.name = name
    req.model_spec.signature_name = case["signature"]
    for alias, path in case["inputs"].items():
        req.inputs[alias].CopyFrom(tf.make_tensor_proto(np.load(os.path.join(MLP_GOLDEN, path))))
    resp = server.predict.Predict(req, timeout=60)
    for alias, path in case["outputs"].items():
        np.testing.assert_allclose(tf.make_ndarray(resp.outputs[alias]),
                                   np.load(os.path.join(MLP_GOLDEN, path)),
                                   rtol=case.get("rtol", 1e-5), atol=case.get("atol", 1e-6))
    return resp.model_spec.version.value


def test_polling_swaps_to_new_version(start_server, tmp_path):
    base = os.path.join(str(tmp_path), "mlp")
    os.makedirs(base)
    shutil.copytree(os.path.join(MLP_BASE, "1"), os.path.join(base, "1"))
    cfg = _write_config(tmp_path, _config("mlp", base))
    server = start_server(["--model_config_file=" + cfg, "--file_system_poll_wait_seconds=1"])
    assert _status(server, "mlp") == [(1, AVAILABLE)]
    assert _mlp_predict(server, "mlp") == 1

    # Copy under a non-numeric name, then rename, so the poller never sees a half-copied version.
    shutil.copytree(os.path.join(base, "1"), os.path.join(base, "tmp_2"))
    os.rename(os.path.join(base, "tmp_2"), os.path.join(base, "2"))
    deadline = time.time() + 10
    while time.time() < deadline:
        status = _status(server, "mlp")
        if status and status[0] == (2, AVAILABLE) and dict(status).get(1, END) == END:
            break
        assert _mlp_predict(server, "mlp") in (1, 2)  # served throughout the swap
        time.sleep(0.2)
    assert _status(server, "mlp") == [(2, AVAILABLE), (1, END)]
    assert _mlp_predict(server, "mlp") == 2


def test_single_model_flags_still_work(start_server):
    server = start_server(["--model_name=mlp", "--model_base_path=" + MLP_BASE,
                           "--file_system_poll_wait_seconds=0"])
    assert _status(server, "mlp") == [(1, AVAILABLE)]
    assert _mlp_predict(server, "mlp") == 1


def _run_expecting_failure(flags):
    if not os.path.exists(BINARY):
        pytest.fail("%s missing" % BINARY)
    proc = subprocess.run([BINARY, "--port=%d" % free_port()] + flags, capture_output=True,
                          timeout=60, text=True)
    assert proc.returncode != 0
    return proc.stdout + proc.stderr


@needs_shared
def test_bad_config_file_from_tf_serving_is_fatal():
    path = os.path.join(TFS_TESTDATA, "bad_model_config.txt")
    out = _run_expecting_failure(["--model_config_file=" + path])
    assert path in out


def test_invalid_config_files_are_fatal(tmp_path):
    garbage = _write_config(tmp_path, "improperly formatted file")
    assert garbage in _run_expecting_failure(["--model_config_file=" + garbage])
    rel = os.path.join(str(tmp_path), "rel.config")
    with open(rel, "w") as f:
        f.write(_config("mlp", "relative/path"))
    assert "absolute path" in _run_expecting_failure(["--model_config_file=" + rel])
    missing = os.path.join(str(tmp_path), "missing.config")
    assert missing in _run_expecting_failure(["--model_config_file=" + missing])
