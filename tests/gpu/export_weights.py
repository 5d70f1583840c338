"""Writes the weights of the keras_mlp and keras_transformer test models to DIR/<model>.npz,
keyed by variable path ("hidden1/kernel"), for tests/gpu/torch_bench.py, which runs the same
architectures in PyTorch on the GPU machine (that machine has no TensorFlow).

The Transformer's position embedding is not a variable: Keras computed it at export from a
constant input, so it is the graph's one float constant of shape [seq, width] ("positions").

    python3 tests/gpu/export_weights.py DIR
"""
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2
from tensorflow.python.framework import tensor_util

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = ("keras_mlp", "keras_transformer")


def variables(export_dir):
    loaded = tf.saved_model.load(export_dir)
    return {v.name.split(":")[0]: v.numpy() for v in loaded.variables
            if v.dtype == tf.float32}


def float_constants(export_dir, shape):
    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        proto.ParseFromString(f.read())
    graph = proto.meta_graphs[0].graph_def
    nodes = list(graph.node) + [n for f in graph.library.function for n in f.node_def]
    found = []
    for node in nodes:
        if node.op == "Const" and node.attr["dtype"].type == tf.float32.as_datatype_enum:
            value = tensor_util.MakeNdarray(node.attr["value"].tensor)
            if value.shape == shape:
                found.append(value)
    return found


def main(out):
    os.makedirs(out, exist_ok=True)
    for model in MODELS:
        export_dir = os.path.join(REPO, "tests", "testdata", model, "1")
        weights = variables(export_dir)
        if model == "keras_transformer":
            seq = 8
            width = weights["token_embedding/embeddings"].shape[1]
            positions = float_constants(export_dir, (seq, width))
            if len(positions) != 1:
                sys.exit("%s: expected one [%d, %d] position constant, found %d"
                         % (model, seq, width, len(positions)))
            weights["positions"] = positions[0]
        np.savez(os.path.join(out, model + ".npz"), **weights)
        print("%s: %d arrays" % (model, len(weights)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
