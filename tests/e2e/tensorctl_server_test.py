"""End-to-end tests of `tensorctl predict|metadata|status` against the real tensord server.

Needs bazel-bin/server/tensord and bazel-bin/clients/tensorctl/tensorctl
(`bazel build //server:tensord //clients/tensorctl:tensorctl`).

    python3 -m pytest -q tests/e2e/tensorctl_server_test.py
"""
import json
import os
import signal
import subprocess
import time

import numpy as np
import pytest

from tensord_process import free_port

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.path.join(REPO, "bazel-bin", "server", "tensord")
TENSORCTL = os.path.join(REPO, "bazel-bin", "clients", "tensorctl", "tensorctl")
MLP_BASE = os.path.join(REPO, "tests", "testdata", "keras_mlp")
MLP_GOLDEN = os.path.join(MLP_BASE, "golden")


def tensorctl(*args, timeout=60):
    return subprocess.run([TENSORCTL] + list(args), capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    for path in (SERVER, TENSORCTL):
        if not os.path.exists(path):
            pytest.fail("%s missing: run `bazel build //server:tensord "
                        "//clients/tensorctl:tensorctl` first" % path)
    port = free_port()
    address = "127.0.0.1:%d" % port
    log_path = os.path.join(str(tmp_path_factory.mktemp("tensord")), "tensord.log")
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [SERVER, "--port=%d" % port, "--model_name=mlp", "--model_base_path=" + MLP_BASE],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError("tensord exited: " + open(log_path).read())
            r = tensorctl("status", "--server", address, "--model", "mlp", "--timeout_ms=2000")
            if r.returncode == 0 and "AVAILABLE" in r.stdout:
                break
            if time.time() > deadline:
                raise RuntimeError("tensord not ready: %s\n%s" % (r.stderr, open(log_path).read()))
            time.sleep(0.2)
        yield address
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


def test_predict_matches_golden(server):
    r = tensorctl("predict", "--server", server, "--model", "mlp",
                  "--input", "features=@" + os.path.join(MLP_GOLDEN, "c0_in_features.npy"))
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["model_spec"]["name"] == "mlp"
    assert result["model_spec"]["signature_name"] == "serving_default"
    assert isinstance(result["model_spec"]["version"], int)
    expected = np.load(os.path.join(MLP_GOLDEN, "c0_out_output_0.npy"))
    got = np.array(result["outputs"]["output_0"], dtype=expected.dtype)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_predict_json_input_and_output_filter(server):
    features = np.load(os.path.join(MLP_GOLDEN, "c0_in_features.npy"))
    r = tensorctl("predict", "--server", server, "--model", "mlp", "--version", "1",
                  "--input", "features=" + json.dumps(features.tolist()),
                  "--output_filter", "output_0")
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["model_spec"]["version"] == 1
    assert list(result["outputs"]) == ["output_0"]
    expected = np.load(os.path.join(MLP_GOLDEN, "c0_out_output_0.npy"))
    np.testing.assert_allclose(np.array(result["outputs"]["output_0"]), expected,
                               rtol=1e-5, atol=1e-6)


def test_metadata_has_serving_default(server):
    r = tensorctl("metadata", "--server", server, "--model", "mlp")
    assert r.returncode == 0, r.stderr
    metadata = json.loads(r.stdout)
    signature = metadata["signature_def"]["serving_default"]
    assert "features" in signature["inputs"]
    assert "output_0" in signature["outputs"]
    assert signature["method_name"] == "tensorflow/serving/predict"


def test_status_available(server):
    r = tensorctl("status", "--server", server, "--model", "mlp")
    assert r.returncode == 0, r.stderr
    status = json.loads(r.stdout)
    states = [v["state"] for v in status["model_version_status"]]
    assert "AVAILABLE" in states


@pytest.mark.parametrize("command", ["predict", "metadata", "status"])
def test_unknown_model_is_not_found(server, command):
    args = [command, "--server", server, "--model", "no_such_model"]
    if command == "predict":
        args += ["--input", "features=[[1.0]]"]
    r = tensorctl(*args)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.startswith("tensorctl: NOT_FOUND: "), r.stderr


def test_unknown_alias_is_invalid_argument_before_predict(server):
    r = tensorctl("predict", "--server", server, "--model", "mlp", "--input", "nope=[1.0]")
    assert r.returncode == 1
    assert "nope" in r.stderr


def test_unreachable_server_fails_fast():
    if not os.path.exists(TENSORCTL):
        pytest.fail("%s missing" % TENSORCTL)
    r = tensorctl("status", "--server", "127.0.0.1:%d" % free_port(), "--model", "mlp",
                  "--timeout_ms=1000")
    assert r.returncode == 1
    assert r.stderr.startswith("tensorctl: UNAVAILABLE: ") or \
        r.stderr.startswith("tensorctl: DEADLINE_EXCEEDED: "), r.stderr
