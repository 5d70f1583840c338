"""End-to-end parity tests of the real tensorctl binary against TensorFlow's results.

* Golden cases: every tests/testdata/*/golden/cases.json and tests/generated/*/golden/cases.json
  (written by tests/models/generate.py, outputs computed by TensorFlow). Each case runs
  `tensorctl run <model>/1 --input alias=@in.npy ... --output_dir TMP` and compares every output
  .npy with the golden one (floats with the case's rtol/atol, everything else exactly).
  With $TENSORCTL_DEVICE set (gpu on the GPU machine), the cases run with that --device.
* TF Serving's own test models (../shared/testdata/tfserving next to the repository, reference
  data that is not part of the product): the expected values of its README §2/§5, including
  the models that must fail to load.
* Error handling of the command line: unknown signature or input, wrong dtypes, bad JSON and
  .npy input: a non-zero exit status and a one-line "tensorctl: ..." message.

The binary is bazel-bin/clients/tensorctl/tensorctl (build it with `make build`), or $TENSORCTL.
"""

import glob
import json
import os
import re
import struct
import subprocess

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TENSORCTL = os.environ.get("TENSORCTL",
                           os.path.join(REPO, "bazel-bin", "clients", "tensorctl", "tensorctl"))
TFSERVING = os.environ.get("TFSERVING_TESTDATA",
                           os.path.join(os.environ.get("TENSORD_SHARED_DIR",
                                                       os.path.join(os.path.dirname(REPO), "shared")),
                                        "testdata", "tfserving"))
# Extra generated model directories to check, e.g. the full-size (224x224) CNNs.
EXTRA_MODELS = os.environ.get("TENSORD_EXTRA_MODELS", "")
# The golden cases' --device policy (tests/gpu/check.sh runs them with "gpu"); default: auto.
DEVICE = os.environ.get("TENSORCTL_DEVICE", "")
SERVABLES = os.path.join(TFSERVING, "servables", "tensorflow", "testdata")
KERAS_MLP = os.path.join(REPO, "tests", "testdata", "keras_mlp", "1")

GOLDEN_TIMEOUT_S = 900
RUN_TIMEOUT_S = 120


def tensorctl(*args, timeout=RUN_TIMEOUT_S):
    if not os.access(TENSORCTL, os.X_OK):
        pytest.fail("%s is missing: build it with `make build` (or set $TENSORCTL)" % TENSORCTL)
    return subprocess.run([TENSORCTL] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def ok_json(result):
    assert result.returncode == 0, "tensorctl failed (exit %d):\n%s" % (
        result.returncode, result.stderr)
    return json.loads(result.stdout)


# ---------------------------------------------------------------------------------------------
# Golden cases generated with TensorFlow.

def _golden_params():
    params = []
    groups = [("testdata", os.path.join(REPO, "tests", "testdata")),
              ("generated", os.path.join(REPO, "tests", "generated"))]
    if EXTRA_MODELS:
        groups.append(("extra", EXTRA_MODELS))
    for group, base in groups:
        pattern = os.path.join(base, "*", "golden", "cases.json")
        for cases_json in sorted(glob.glob(pattern)):
            with open(cases_json) as f:
                spec = json.load(f)
            model_dir = os.path.dirname(os.path.dirname(cases_json))
            for i, case in enumerate(spec["cases"]):
                params.append(pytest.param(
                    model_dir, spec.get("tags", ["serve"]), case,
                    id="%s/%s/c%d-%s" % (group, spec["model"], i, case["signature"])))
    return params


def assert_matches_golden(alias, got, want, rtol, atol):
    assert got.shape == want.shape, "%s: shape %s, want %s" % (alias, got.shape, want.shape)
    if want.dtype.kind in "fc":
        assert got.dtype == want.dtype, "%s: dtype %s, want %s" % (alias, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=alias)
    elif want.dtype.kind == "S":
        assert got.dtype.kind == "S", "%s: dtype %s, want bytes" % (alias, got.dtype)
        assert got.tolist() == want.tolist(), alias
    else:
        assert got.dtype == want.dtype, "%s: dtype %s, want %s" % (alias, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=alias)


@pytest.mark.parametrize("model_dir,tags,case", _golden_params())
def test_golden(model_dir, tags, case, tmp_path):
    golden = os.path.join(model_dir, "golden")
    args = ["run", os.path.join(model_dir, "1"), "--tag_set", ",".join(tags),
            "--signature_def", case["signature"], "--output_dir", tmp_path]
    if DEVICE:
        args += ["--device", DEVICE]
    for alias, name in sorted(case["inputs"].items()):
        args += ["--input", "%s=@%s" % (alias, os.path.join(golden, name))]
    files = ok_json(tensorctl(*args, timeout=GOLDEN_TIMEOUT_S))["outputs"]
    assert sorted(files) == sorted(case["outputs"])
    for alias, name in sorted(case["outputs"].items()):
        assert_matches_golden(alias, np.load(files[alias]), np.load(os.path.join(golden, name)),
                              case["rtol"], case["atol"])


def _golden_models():
    return sorted(glob.glob(os.path.join(REPO, "tests", "testdata", "*", "1", "saved_model.pb")))


@pytest.mark.parametrize("saved_model_pb", _golden_models(),
                         ids=lambda p: os.path.basename(os.path.dirname(os.path.dirname(p))))
def test_inspect_matches_saved_model(saved_model_pb):
    from tensorflow.core.framework import types_pb2
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    with open(saved_model_pb, "rb") as f:
        proto.ParseFromString(f.read())
    got = ok_json(tensorctl("inspect", "--json", os.path.dirname(saved_model_pb)))

    def tensor(info):
        shape = None if info.tensor_shape.unknown_rank else [d.size for d in info.tensor_shape.dim]
        out = {"name": info.name, "dtype": types_pb2.DataType.Name(info.dtype), "shape": shape}
        if info.WhichOneof("encoding") == "coo_sparse":
            out["coo_sparse"] = {"values": info.coo_sparse.values_tensor_name,
                                 "indices": info.coo_sparse.indices_tensor_name,
                                 "dense_shape": info.coo_sparse.dense_shape_tensor_name}
        return out

    want = {"meta_graphs": [{
        "tags": list(meta.meta_info_def.tags),
        "signatures": {key: {"method_name": sig.method_name,
                             "inputs": {a: tensor(i) for a, i in sig.inputs.items()},
                             "outputs": {a: tensor(i) for a, i in sig.outputs.items()}}
                       for key, sig in meta.signature_def.items()},
    } for meta in proto.meta_graphs]}
    assert got == want

    text = tensorctl("inspect", os.path.dirname(saved_model_pb))
    assert text.returncode == 0, text.stderr
    assert "signature_def['serving_default']:" in text.stdout


TF2_CONTROL_FLOW = os.path.join(REPO, "tests", "testdata", "tf2_control_flow", "1")


def test_inspect_placement_puts_every_node_on_the_cpu():
    got = ok_json(tensorctl("inspect", "--placement", "--json", TF2_CONTROL_FLOW))
    nodes = got["nodes"]
    assert any(n["in_function"] for n in nodes) and any(not n["in_function"] for n in nodes)
    assert all(n["assigned"] == "/device:CPU:0" for n in nodes), nodes
    assert got["devices"] == {"/device:CPU:0": len(nodes)}
    assert got["copies"] == 0
    assert got["soft_placed"] == sum(n["requested"].upper().find("GPU") >= 0 for n in nodes)
    text = tensorctl("inspect", "--placement", TF2_CONTROL_FLOW)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("placement: /device:CPU:0=%d; 0 copies; " % len(nodes))
    assert len(text.stdout.splitlines()) == len(nodes) + 2

    # Asked for a GPU this host does not have, every node the graph leaves free asks for it
    # (int32 shape arithmetic aside, which asks for the CPU, where TensorFlow keeps int32) and
    # is soft-placed on the CPU, and the model still runs, with the same results.
    gpu = ok_json(tensorctl("inspect", "--placement", "--json", "--device", "gpu",
                            TF2_CONTROL_FLOW))
    free = {(n["node"], n["in_function"]) for n in nodes if n["requested"] == ""}
    requested = {(n["node"], n["in_function"]): n["requested"] for n in gpu["nodes"]}
    on_gpu = [key for key in free if requested[key] == "/device:GPU:0"]
    assert 0 < len(on_gpu) <= len(free)
    assert all(requested[key] in ("/device:GPU:0", "/device:CPU:0") for key in free)
    asked = [n for n in gpu["nodes"] if n["requested"].upper().find("GPU") >= 0]
    assert len(asked) >= len(on_gpu)
    assert all(n["soft_placed"] and n["assigned"] == "/device:CPU:0" for n in asked)
    assert gpu["soft_placed"] == len(asked)
    features = "features=[[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, " \
               "1.3, 1.4, 1.5]]"
    on_cpu = ok_json(tensorctl("run", KERAS_MLP, "--input", features))
    soft = ok_json(tensorctl("run", KERAS_MLP, "--input", features, "--device", "gpu"))
    assert soft == on_cpu and on_cpu["outputs"]


# ---------------------------------------------------------------------------------------------
# TF Serving's test models (shared/testdata/tfserving/README.md §2 and §5).

def _varint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def _field(number, payload):
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def example(**features):
    """A serialized tf.train.Example with float features, e.g. example(x=1.0)."""
    entries = b""
    for key, value in sorted(features.items()):
        float_list = _field(1, struct.pack("<f", value))          # FloatList.value (packed)
        feature = _field(2, float_list)                          # Feature.float_list
        entries += _field(1, _field(1, key.encode()) + _field(2, feature))  # map entry
    return _field(1, entries)                                    # Example.features


def b64_examples(*examples):
    import base64
    return json.dumps([{"b64": base64.b64encode(e).decode()} for e in examples])


X = "[[1.0], [2.0], [5.0]]"
Y = [[2.5], [3.0], [4.5]]
HALF_PLUS_TWO_FAMILY = [
    "saved_model_half_plus_two_cpu/00000123",
    "saved_model_half_plus_two_2_versions/00000123",
    "saved_model_half_plus_two_2_versions/00000124",
    "saved_model_half_plus_two_gpu/00000123",
    "saved_model_half_plus_two_gpu_trt/00000123",
    "saved_model_half_plus_two_mkl/00000123",
    "saved_model_half_plus_two_mlmd/00000123",
    "saved_model_half_plus_two_cpu_with_saved_model_config/00000123",
    "saved_model_half_plus_two_cpu_with_empty_saved_model_config/00000123",
]

# (id, model path under the TF Serving testdata, signature, {alias: JSON}, {alias: expected})
TFSERVING_CASES = [
    (m[len("saved_model_"):], m, "serving_default", {"x": X}, {"y": Y})
    for m in HALF_PLUS_TWO_FAMILY
] + [
    ("half_plus_two_cpu/regress_x2_to_y3", "saved_model_half_plus_two_cpu/00000123",
     "regress_x2_to_y3", {"inputs": "[[0.0], [2.0]]"}, {"outputs": [[3.0], [4.0]]}),
    ("half_plus_two_cpu/regress_x_to_y2", "saved_model_half_plus_two_cpu/00000123",
     "regress_x_to_y2", {"inputs": b64_examples(example(x=1.0), example(x=2.0))},
     {"outputs": [[3.5], [4.0]]}),
    ("half_plus_two_cpu/classify_x_to_y", "saved_model_half_plus_two_cpu/00000123",
     "classify_x_to_y", {"inputs": b64_examples(example(x=1.0))}, {"scores": [[2.5]]}),
    ("half_plus_two_2_versions/classify_x2_to_y3", "saved_model_half_plus_two_2_versions/00000123",
     "classify_x2_to_y3", {"inputs": "[[0.0], [2.0]]"}, {"scores": [[3.0], [4.0]]}),
    ("half_plus_two_mkl/regress_x_to_y2", "saved_model_half_plus_two_mkl/00000123",
     "regress_x_to_y2", {"inputs": b64_examples(example(x=1.0))},
     {"outputs": np.full((1, 10, 10, 1), 3.5).tolist()}),
    ("half_plus_three/serving_default", "saved_model_half_plus_three/00000123",
     "serving_default", {"x": "[1.0, 2.0, 5.0]"}, {"y": [3.5, 4.0, 5.5]}),
    ("half_plus_two_tf2_cpu/serving_default", "saved_model_half_plus_two_tf2_cpu/00000123",
     "serving_default", {"x": "[1.0]"}, {"y": [2.5]}),
    ("half_plus_two_tf2_cpu/serving_default_defaults", "saved_model_half_plus_two_tf2_cpu/00000123",
     "serving_default", {}, {"y": [2.0]}),
    ("half_plus_two_tf2_cpu/regress_x2_to_y3", "saved_model_half_plus_two_tf2_cpu/00000123",
     "regress_x2_to_y3", {"inputs": "[2.0]"}, {"outputs": [4.0]}),
    ("half_plus_two_tf2_cpu/regress_x_to_y", "saved_model_half_plus_two_tf2_cpu/00000123",
     "regress_x_to_y", {"inputs": b64_examples(example(x=1.0), example(x=2.0))},
     {"outputs": [[2.5], [3.0]]}),
    ("counter/get_counter", "saved_model_counter/00000123", "get_counter", {}, {"output": 0.0}),
    ("counter/incr_counter", "saved_model_counter/00000123", "incr_counter", {}, {"output": 1.0}),
    ("counter/incr_counter_by", "saved_model_counter/00000123", "incr_counter_by",
     {"delta": "3.0"}, {"output": 3.0}),
    ("counter/reset_counter", "saved_model_counter/00000123", "reset_counter", {},
     {"output": 0.0}),
    ("matrix_half_plus_two/serving_default", "../../../batching/testdata/matrix_half_plus_two/1",
     "serving_default", {"x": json.dumps(np.ones((2, 3, 3)).tolist())},
     {"y": np.full((2, 3, 3), 2.5).tolist()}),
]

# Directories that hold no SavedModel (legacy SessionBundle exports, TFLite, a missing .pb).
TFSERVING_NOT_SAVED_MODELS = [
    ("bad_half_plus_two", "bad_half_plus_two/00000123"),
    ("session_bundle_half_plus_two", "../../../session_bundle/testdata/half_plus_two/00000123"),
    ("half_plus_two_tflite", "saved_model_half_plus_two_tflite/00000123"),
    ("tf_text_regression", "tf_text_regression/01"),
]

needs_tfserving = pytest.mark.skipif(
    not os.path.isdir(SERVABLES),
    reason="TF Serving reference data not found at %s" % TFSERVING)


@needs_tfserving
@pytest.mark.parametrize("model,signature,inputs,expected",
                         [pytest.param(*c[1:], id=c[0]) for c in TFSERVING_CASES])
def test_tfserving_model(model, signature, inputs, expected):
    args = ["run", os.path.normpath(os.path.join(SERVABLES, model)), "--signature_def", signature]
    for alias, value in sorted(inputs.items()):
        args += ["--input", "%s=%s" % (alias, value)]
    outputs = ok_json(tensorctl(*args))["outputs"]
    assert sorted(outputs) == sorted(expected)
    for alias, want in expected.items():
        got = np.asarray(outputs[alias], dtype=np.float64)
        assert got.shape == np.shape(want), "%s: shape %s, want %s" % (
            alias, got.shape, np.shape(want))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=alias)


@needs_tfserving
@pytest.mark.parametrize("model", [pytest.param(m, id=i) for i, m in TFSERVING_NOT_SAVED_MODELS])
def test_tfserving_not_a_saved_model(model):
    path = os.path.normpath(os.path.join(SERVABLES, model))
    for args in (["run", path, "--input", "x=[[1.0]]"], ["inspect", path]):
        result = tensorctl(*args)
        assert result.returncode == 1, result
        assert result.stderr.startswith("tensorctl: "), result.stderr
        assert re.search(r"saved_?model\s*\.pb", result.stderr, re.IGNORECASE), result.stderr
        assert path in result.stderr, result.stderr


# ---------------------------------------------------------------------------------------------
# Command-line errors (on the committed keras_mlp model: input "features" float [-1, 16]).

def assert_fails(result, pattern, status=1):
    assert result.returncode == status, "exit %d, want %d\nstdout: %s\nstderr: %s" % (
        result.returncode, status, result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("tensorctl: "), result.stderr
    assert re.search(pattern, result.stderr), "%r not in %r" % (pattern, result.stderr)


ROW = json.dumps([[0.5] * 16])


def test_keras_mlp_json_input():
    outputs = ok_json(tensorctl("run", KERAS_MLP, "--input", "features=" + ROW))["outputs"]
    probs = np.asarray(outputs["output_0"])
    assert probs.shape == (1, 4)
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-5)  # softmax


def test_profile_counts_each_kernel_per_run():
    result = tensorctl("run", KERAS_MLP, "--input", "features=" + ROW, "--profile", "4")
    assert result.returncode == 0, result.stderr
    text, _, profile = result.stdout.partition("\nprofile: ")
    probs = np.asarray(json.loads(text)["outputs"]["output_0"])
    np.testing.assert_allclose(probs.sum(), 1.0, rtol=1e-5)
    lines = profile.splitlines()
    assert re.match(r"4 runs, \d+\.\d{3} ms per run \(wall\)$", lines[0]), lines[0]
    assert lines[1].split() == ["op", "type", "kernels/run", "ms/run", "share"], lines[1]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    # keras_mlp: three Dense layers (MatMul + BiasAdd, fused at load), Tanh, Softmax.
    assert rows["_FusedMatMul"][0] == "3.0", profile
    assert rows["Softmax"][0] == "1.0" and rows["Tanh"][0] == "1.0", profile
    total = sum(float(v[0]) for k, v in rows.items() if k != "total")
    assert float(rows["total"][0]) == total, profile
    assert rows["total"][2] == "100.0%", profile


def test_unknown_signature():
    assert_fails(tensorctl("run", KERAS_MLP, "--signature_def", "nope", "--input",
                           "features=" + ROW),
                 r"signature 'nope' not found; the model has .*'serving_default'")


def test_unknown_input_alias():
    assert_fails(tensorctl("run", KERAS_MLP, "--input", "z=[[1.0]]"),
                 r"signature 'serving_default' has no input 'z'; its inputs are 'features'")


def test_string_to_float_input():
    assert_fails(tensorctl("run", KERAS_MLP, "--input", 'features=[["a", "b"]]'),
                 r"input 'features': element \[0\]\[0\]: expected a number for dtype float, "
                 r"got a string")


def test_string_npy_to_float_input(tmp_path):
    path = tmp_path / "strings.npy"
    np.save(path, np.array([[b"a"] * 16]))
    assert_fails(tensorctl("run", KERAS_MLP, "--input", "features=@%s" % path),
                 r"input 'features' \(.*strings\.npy\) holds string data but the signature "
                 r"declares float")


def test_float64_npy_is_converted(tmp_path):
    path = tmp_path / "f8.npy"
    np.save(path, np.full((2, 16), 0.5))  # numpy's default float64
    outputs = ok_json(tensorctl("run", KERAS_MLP, "--input", "features=@%s" % path))["outputs"]
    assert np.asarray(outputs["output_0"]).shape == (2, 4)


def test_ragged_input():
    assert_fails(tensorctl("run", KERAS_MLP, "--input", "features=[[1.0, 2.0], [3.0]]"),
                 r"ragged input")


def test_bad_json():
    assert_fails(tensorctl("run", KERAS_MLP, "--input", "features=[[1.0,"),
                 r"input 'features': invalid JSON at line 1 column 7")


def test_unreadable_npy(tmp_path):
    assert_fails(tensorctl("run", KERAS_MLP, "--input", "features=@%s" % (tmp_path / "no.npy")),
                 r"cannot open .*no\.npy")
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"definitely not numpy")
    assert_fails(tensorctl("run", KERAS_MLP, "--input", "features=@%s" % bad),
                 r"not an \.npy file")
    fortran = tmp_path / "fortran.npy"
    np.save(fortran, np.asfortranarray(np.ones((2, 16), dtype=np.float32)))
    assert_fails(tensorctl("run", KERAS_MLP, "--input", "features=@%s" % fortran),
                 r"Fortran order")


def test_wrong_shape_fails_cleanly():
    assert_fails(tensorctl("run", KERAS_MLP, "--input", "features=[[1.0, 2.0]]"), r".")


def test_missing_directory(tmp_path):
    assert_fails(tensorctl("run", tmp_path / "nothing", "--input", "x=[1.0]"), r"nothing")
    assert_fails(tensorctl("inspect", tmp_path / "nothing"), r"nothing")


def test_unknown_tag_set():
    assert_fails(tensorctl("inspect", KERAS_MLP, "--tag_set", "gpu"), r"gpu")
    assert_fails(tensorctl("run", KERAS_MLP, "--tag_set", "gpu", "--input", "features=" + ROW),
                 r"gpu")


@pytest.mark.parametrize("args", [
    [],
    ["frobnicate"],
    ["run"],
    ["run", KERAS_MLP, "--bogus"],
    ["run", KERAS_MLP, "--input", "no_equals_sign"],
    ["inspect", KERAS_MLP, "--input", "x=1"],
], ids=["no-command", "unknown-command", "no-dir", "unknown-flag", "bad-input-flag",
        "run-flag-on-inspect"])
def test_usage_errors(args):
    assert_fails(tensorctl(*args), r"tensorctl: .+\nRun 'tensorctl --help' for usage\.",
                 status=2)


def test_help():
    result = tensorctl("--help")
    assert result.returncode == 0
    assert "run DIR" in result.stdout and "inspect DIR" in result.stdout
