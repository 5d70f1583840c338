"""End-to-end tests of tensorctl's server commands (predict, metadata, status, classify,
regress, list, reload) against the real tensord server. Classify, regress, list and reload are
checked against what TF Serving's official Python client gets from the same server.

Needs bazel-bin/server/tensord and bazel-bin/clients/tensorctl/tensorctl
(`bazel build //server:tensord //clients/tensorctl:tensorctl`). The half_plus_two cases need
../shared (or $TENSORD_SHARED_DIR) and are skipped without it.

    python3 -m pytest -q tests/e2e/tensorctl_server_test.py
"""
import json
import os
import signal
import subprocess
import time

import grpc
import numpy as np
import pytest
from google.protobuf import json_format, text_format
from tensorflow_serving.apis import get_model_status_pb2, model_management_pb2

from tensord_process import (HAVE_SHARED, TFS_TESTDATA, Server, free_port,
                             official_classify_regress)

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


# --- classify / regress / list / reload ---------------------------------------------------------

PARSE_EXAMPLE_BASE = os.path.join(REPO, "tests", "testdata", "tf1_parse_example")


def _config_text(models):
    """A ModelServerConfig for (name, base_path, version_labels) triples."""
    lines = ["model_config_list {"]
    for name, base_path, labels in models:
        lines += ["  config {", "    name: '%s'" % name, "    base_path: '%s'" % base_path,
                  "    model_platform: 'tensorflow'"]
        lines += ["    version_labels { key: '%s' value: %d }" % kv for kv in labels.items()]
        lines.append("  }")
    return "\n".join(lines + ["}"]) + "\n"


def _start(tmp_path_factory, flags):
    for path in (SERVER, TENSORCTL):
        if not os.path.exists(path):
            pytest.fail("%s missing: run `bazel build //server:tensord "
                        "//clients/tensorctl:tensorctl` first" % path)
    return Server(flags, tmp_path_factory.mktemp("tensord"))


@pytest.fixture(scope="module")
def two_models(tmp_path_factory):
    """tensord with keras_mlp as "mlp" and tf1_parse_example (classify/regress signatures over
    tf.Examples) as "parse_example", whose version 1 has the label "stable"."""
    config = tmp_path_factory.mktemp("config") / "models.config"
    config.write_text(_config_text([("mlp", MLP_BASE, {}),
                                    ("parse_example", PARSE_EXAMPLE_BASE, {"stable": 1})]))
    srv = _start(tmp_path_factory, ["--model_config_file=%s" % config,
                                    "--file_system_poll_wait_seconds=0",
                                    "--device_policy=cpu"])
    srv.config_path = str(config)
    yield srv
    assert srv.stop() == 0, srv.log()


@pytest.fixture(scope="module")
def half_plus_two(tmp_path_factory):
    if not HAVE_SHARED:
        pytest.skip("../shared (TF Serving testdata) absent")
    srv = _start(tmp_path_factory, [
        "--model_name=half_plus_two", "--file_system_poll_wait_seconds=0",
        "--model_base_path=" + os.path.join(TFS_TESTDATA, "saved_model_half_plus_two_cpu")])
    yield srv
    assert srv.stop() == 0, srv.log()


def _address(srv):
    return "127.0.0.1:%d" % srv.port


def _tensorctl_results(r, method):
    """tensorctl's "results" with scores as float32, the precision they have on the wire."""
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    results = json.loads(r.stdout)["results"]
    if method == "classify":
        return [[[label, float(np.float32(score))] for label, score in cl] for cl in results]
    return [float(np.float32(v)) for v in results]


PARSE_EXAMPLES = [{"x": 1.0, "x2": 4.0}, {"x": 3.5}, {"x2": -2.5}, {"x": -7.25, "x2": 0.5}]
HPT_EXAMPLES = [{"x": 1.0}, {"x": 2.0}, {"x": -3.5}]

# (server fixture, model, method, signature, examples, expected results). The expected values are
# the models' formulas (y = 0.5 x + 2, y2 = 0.5 x2 + 3 with x / x2 defaulting to 0 / 1), and are
# exact in float32; the tests also compare with the official client.
CASES = [
    ("two_models", "parse_example", "classify", "classify_x_to_y", PARSE_EXAMPLES,
     [[["small", 2.5]], [["big", 3.75]], [["small", 2.0]], [["small", -1.625]]]),
    ("two_models", "parse_example", "regress", "serving_default", PARSE_EXAMPLES,
     [2.5, 3.75, 2.0, -1.625]),
    ("two_models", "parse_example", "regress", "regress_x2_to_y2", PARSE_EXAMPLES,
     [5.0, 3.5, 1.75, 3.25]),
    ("half_plus_two", "half_plus_two", "classify", "classify_x_to_y", HPT_EXAMPLES,
     [[["", 2.5]], [["", 3.0]], [["", 0.25]]]),
    ("half_plus_two", "half_plus_two", "regress", "regress_x_to_y2", HPT_EXAMPLES,
     [3.5, 4.0, 1.25]),
]


@pytest.mark.parametrize("fixture,model,method,signature,examples,expected", CASES,
                         ids=["%s-%s-%s" % (c[1], c[2], c[3]) for c in CASES])
def test_classify_regress_match_official_client(request, fixture, model, method, signature,
                                                examples, expected):
    srv = request.getfixturevalue(fixture)
    r = tensorctl(method, "--server", _address(srv), "--model", model,
                  "--signature_def", signature, "--examples", json.dumps(examples))
    got = _tensorctl_results(r, method)
    assert got == official_classify_regress(srv, method, model, signature, examples)
    assert got == expected


def test_regress_with_context_label_and_examples_file(two_models, tmp_path):
    examples = [{"x2": 1.0}, {"x": 2.0}]  # the second example falls back to the context's x2
    context = {"x2": 10.0}
    path = tmp_path / "examples.json"
    path.write_text(json.dumps(examples))
    r = tensorctl("regress", "--server", _address(two_models), "--model", "parse_example",
                  "--label", "stable", "--signature_def", "regress_x2_to_y2",
                  "--examples", "@%s" % path, "--context", json.dumps(context))
    got = _tensorctl_results(r, "regress")
    assert got == official_classify_regress(two_models, "regress", "parse_example",
                                            "regress_x2_to_y2", examples, context=context,
                                            label="stable")
    assert got == [3.5, 8.0]


def test_integer_for_a_float_feature_is_the_servers_error(two_models):
    """{"x": 1} is an int64 feature, as in TF Serving's REST API; the model parses x as float,
    so the server rejects it exactly as it rejects the official client's int64_list."""
    with pytest.raises(grpc.RpcError) as official:
        official_classify_regress(two_models, "regress", "parse_example", "serving_default",
                                  [{"x": 1}])
    r = tensorctl("regress", "--server", _address(two_models), "--model", "parse_example",
                  "--examples", '[{"x": 1}]')
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == "tensorctl: %s: %s\n" % (official.value.code().name,
                                                 official.value.details())


def test_bad_examples_fail_before_the_server(two_models):
    r = tensorctl("classify", "--server", _address(two_models), "--model", "parse_example",
                  "--examples", '[{"x": [1, 2.5]}]')
    assert r.returncode == 1
    assert r.stderr == ("tensorctl: example 0: Unexpected element type in feature: x expecting "
                        "type: int64\n")
    r = tensorctl("classify", "--server", _address(two_models), "--model", "parse_example")
    assert r.returncode == 2
    assert "needs --examples" in r.stderr


def test_list_two_models(two_models):
    r = tensorctl("list", "--server", _address(two_models))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("MODEL          VERSION  STATE\n"
                        "mlp            1        AVAILABLE\n"
                        "parse_example  1        AVAILABLE\n")


def test_list_json_matches_get_model_status(two_models):
    r = tensorctl("list", "--server", _address(two_models), "--json")
    assert r.returncode == 0, r.stderr
    models = json.loads(r.stdout)["models"]
    assert [m["name"] for m in models] == ["mlp", "parse_example"]
    for m in models:
        req = get_model_status_pb2.GetModelStatusRequest()
        req.model_spec.name = m["name"]
        official = json_format.MessageToDict(two_models.models.GetModelStatus(req, timeout=30),
                                             preserving_proto_field_name=True)
        assert m["model_version_status"] == official["model_version_status"]
        # On the CPU (--device_policy=cpu) a version keeps no weights in GPU memory.
        assert m["device_memory_bytes"] == {"1": "0"}


@pytest.mark.parametrize("config_name", ["own", "relative_base_path"])
def test_reload_reports_what_the_official_client_gets(two_models, tmp_path, config_name):
    """Reloads the server's own config (a no-op), or one the server must reject. Whatever the
    server answers, tensorctl reports the same as the official client: the status as JSON and exit
    0, or "tensorctl: CODE: message" and exit 1."""
    if config_name == "own":
        path = two_models.config_path
    else:
        path = str(tmp_path / "relative.config")
        with open(path, "w") as f:
            f.write(_config_text([("mlp", "relative/mlp", {})]))
    with open(path) as f:
        req = model_management_pb2.ReloadConfigRequest()
        text_format.Parse(f.read(), req.config)
    r = tensorctl("reload", "--server", _address(two_models), "--config", path)
    try:
        resp = two_models.models.HandleReloadConfigRequest(req, timeout=60)
    except grpc.RpcError as e:
        assert r.returncode == 1
        assert r.stdout == ""
        assert r.stderr == "tensorctl: %s: %s\n" % (e.code().name, e.details())
        assert config_name != "own" or e.code() == grpc.StatusCode.UNIMPLEMENTED
        return
    assert config_name == "own"
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == json_format.MessageToDict(
        resp.status, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    assert json.loads(r.stdout) == {"error_code": "OK", "error_message": ""}
