"""State across requests on the real tensord binary: TF-generated models whose signatures write
variables (a stateful Case that adds to, doubles or resets a total; a loop that counts calls)
answer a sequence of Predict calls exactly as the same SavedModel loaded in TensorFlow answers
the same sequence, with request batching off and on (stateful models are never merged).

    python3 -m pytest -q tests/e2e/stateful_test.py
"""
import os

import numpy as np
import pytest
import tensorflow as tf
from tensorflow_serving.apis import predict_pb2

from tensord_process import REPO, Server, model_config_text

TESTDATA = os.path.join(REPO, "tests", "testdata")
MODELS = {"ops_more": "tf2_ops_more", "control_flow": "tf2_control_flow"}

# (model, signature, inputs) in the order both runtimes receive them.
CALLS = [
    ("ops_more", "accumulate", {"op": np.int32(0), "values": np.array([1.5, 2.0], np.float32)}),
    ("control_flow", "count", {"k": np.int32(2)}),
    ("ops_more", "accumulate", {"op": np.int32(1), "values": np.zeros(0, np.float32)}),
    ("ops_more", "accumulate", {"op": np.int32(0), "values": np.array([-0.25], np.float32)}),
    ("control_flow", "count", {"k": np.int32(3)}),
    ("ops_more", "accumulate", {"op": np.int32(2), "values": np.zeros(0, np.float32)}),
    ("ops_more", "accumulate", {"op": np.int32(0), "values": np.array([4.0, 0.5], np.float32)}),
    ("ops_more", "accumulate", {"op": np.int32(9), "values": np.zeros(0, np.float32)}),
    ("ops_more", "accumulate", {"op": np.int32(0), "values": np.array([7.0], np.float32)}),
    ("control_flow", "count", {"k": np.int32(0)}),
]


def _tensorflow_answers():
    loaded = {name: tf.saved_model.load(os.path.join(TESTDATA, model, "1"))
              for name, model in MODELS.items()}
    answers = []
    for name, signature, inputs in CALLS:
        outputs = loaded[name].signatures[signature](
            **{k: tf.constant(v) for k, v in inputs.items()})
        answers.append({k: v.numpy() for k, v in outputs.items()})
    return answers


@pytest.mark.parametrize("batching", [False, True], ids=["unbatched", "batching"])
def test_state_follows_tensorflow_across_requests(tmp_path, batching):
    config = os.path.join(str(tmp_path), "models.config")
    with open(config, "w") as f:
        f.write(model_config_text([(name, os.path.join(TESTDATA, model))
                                   for name, model in MODELS.items()]))
    flags = ["--model_config_file=" + config] + (["--enable_batching"] if batching else [])
    server = Server(flags, tmp_path)
    try:
        for (name, signature, inputs), want in zip(CALLS, _tensorflow_answers()):
            req = predict_pb2.PredictRequest()
            req.model_spec.name = name
            req.model_spec.signature_name = signature
            for alias, value in inputs.items():
                req.inputs[alias].CopyFrom(tf.make_tensor_proto(value))
            reply = server.predict.Predict(req, timeout=30)
            assert sorted(reply.outputs) == sorted(want)
            for alias, value in want.items():
                got = tf.make_ndarray(reply.outputs[alias])
                assert got.dtype == value.dtype, alias
                np.testing.assert_allclose(got, value, rtol=1e-6, err_msg="%s %s %s" % (
                    name, signature, alias))
    finally:
        assert server.stop() == 0, server.log()
