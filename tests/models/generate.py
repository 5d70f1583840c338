#!/usr/bin/env python3
"""Builds the tensord test SavedModels with TensorFlow and writes golden data.

TensorFlow is only the oracle here: it builds the models and computes the
expected outputs; tensord itself never links against it.

Usage:
  python3 tests/models/generate.py --out tests/testdata --set small
  python3 tests/models/generate.py --out tests/generated --set large [--full_size]
  python3 tests/models/generate.py --out DIR --only tf2_module cnn_small
  python3 tests/models/generate.py --out DIR --inventory_only

For every model NAME it writes
  DIR/NAME/1/                 the SavedModel (version directory "1")
  DIR/NAME/golden/cases.json  the test cases (format in tests/models/README.md)
  DIR/NAME/golden/*.npy       inputs / expected outputs (np.save, native dtypes,
                              strings as fixed-width bytes dtype 'S')
  DIR/NAME/golden/ops.txt     op types in the MetaGraph, with counts
and DIR/ops_all.txt, the union over every model directory found in DIR.

Each model is built in its own Python process so that TensorFlow's global
name/uid counters start from zero: the output does not depend on which other
models were generated in the same run.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

SEED = 1234

# Default comparison tolerance: |got - want| <= atol + rtol * |want|.
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6

SMALL_MODELS = [
    "keras_mlp",
    "tf1_linear",
    "tf2_module",
    "tf2_strings",
    "tf1_parse_example",
    "cnn_small",
    "keras_preprocessing",
    "keras_transformer",
    "keras_text_cnn",
    "keras_rnn",
    "tf2_control_flow",
    "tf2_ops_extra",
    "keras2_layernorm",
    "keras_attention_masks",
    "keras_gru",
    "tf2_ops_more",
    "keras_preprocessing_modes",
    "keras2_rnn",
]
LARGE_MODELS = [
    # Keras 3's model.export stores every variable twice in the checkpoint
    # (once per KerasVariable, once per underlying tf.Variable), which puts
    # even this 0.4M-parameter model at ~5 MB: too big to commit.
    "mobilenet_v2_tiny",
    "resnet50",
    "mobilenet_v2",
    "efficientnet_b0",
    "densenet121",
]
ALL_MODELS = SMALL_MODELS + LARGE_MODELS
# Production-sized models for tests/bench (hundreds of MB each): made only on request
# (`--set production`, `make bench-models`), never by `make models`.
PRODUCTION_MODELS = [
    "bert_base",
]

# Reduced input resolution of the large models (all of them accept >= 32).
LARGE_REDUCED_SIZE = 64
LARGE_FULL_SIZE = 224
LARGE_BATCH = 2

# Tolerance exception for the deep networks (mobilenet_v2_tiny and the
# keras.applications models): their result depends on the summation order of
# long dot products (GEMM blocking, im2col, vectorisation) in each of 50-120
# layers, so a correct independent implementation does not match TF to 1e-5.
# Measured with --crosscheck (TF's oneDNN kernels against the Eigen kernels
# that made the goldens) on the softmax outputs at 64x64: resnet50 max abs
# 5.2e-6 / needs rtol 1.0e-4 at atol 1e-6; mobilenet_v2_tiny 1.3e-5 / 5.3e-5;
# efficientnet_b0 2.2e-6 / 3.3e-6; mobilenet_v2 and densenet121 < 1.3e-7.
# rtol 1e-3 leaves ~10x head-room; a wrong kernel moves the probabilities by
# far more.  (The small models match to < 1.1e-6 relative, so they keep the
# default tolerance.)
DEEP_RTOL = 1e-3
DEEP_ATOL = 1e-6

ALIAS_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")


# ---------------------------------------------------------------------------
# Everything below this line up to "Model builders" runs in the worker process
# (TensorFlow is imported lazily so the driver stays light).
# ---------------------------------------------------------------------------

def _import_tf():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # oneDNN kernels give results that depend on the host CPU's ISA; the plain
    # Eigen kernels make the goldens reproducible across machines.
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    import numpy as np  # noqa: F401
    import tensorflow as tf
    tf.get_logger().setLevel("ERROR")
    tf.config.experimental.enable_op_determinism()
    return tf


class Case(object):
    """One golden case: a signature, its inputs, and the tolerance."""

    def __init__(self, signature, inputs, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
        self.signature = signature
        self.inputs = inputs  # alias -> numpy array (strings: list/object array of bytes)
        self.rtol = rtol
        self.atol = atol


def _rng(offset=0):
    import numpy as np
    return np.random.RandomState(SEED + offset)


def _keras_seed():
    import keras
    keras.utils.set_random_seed(SEED)
    _make_keras_export_deterministic()


def _make_keras_export_deterministic():
    """Keras' exporter lists the variables an endpoint uses in an order that
    changes from run to run, and that order decides checkpoint keys and graph
    node order.  Sorting the lists by variable name makes model.export()
    byte-for-byte reproducible; the exported model is otherwise unchanged."""
    try:
        from keras.src.export import saved_model_export_archive as archive
    except ImportError:
        return
    original = getattr(archive, "_list_variables_used_by_fns", None)
    if original is None or getattr(original, "_tensord_sorted", False):
        return

    def sorted_variables(fns):
        trainable, non_trainable = original(fns)
        key = lambda v: (v.name, tuple(v.shape.as_list()))  # noqa: E731
        names = [key(v) for v in trainable + non_trainable]
        if len(set(names)) != len(names):  # ambiguous: keep Keras' order
            return trainable, non_trainable
        return sorted(trainable, key=key), sorted(non_trainable, key=key)

    sorted_variables._tensord_sorted = True
    archive._list_variables_used_by_fns = sorted_variables


def _as_string_array(value, what):
    """Converts bytes data to a fixed-width 'S' array, refusing values that
    'S' cannot represent (numpy strips trailing NUL bytes)."""
    import numpy as np
    obj = np.asarray(value, dtype=object)
    for item in obj.reshape(-1):
        if isinstance(item, str):
            item = item.encode("utf-8")
        if not isinstance(item, bytes):
            raise TypeError("%s: expected bytes, got %r" % (what, type(item)))
        if item.endswith(b"\0"):
            raise ValueError(
                "%s: value %r ends with a NUL byte, which numpy 'S' arrays cannot "
                "represent; change the test data" % (what, item))
    return obj.astype("S") if obj.size else np.zeros(obj.shape, dtype="S1")


def _to_numpy_for_save(value, what):
    """Inputs: typed numpy arrays, or (nested) lists of bytes for strings.
    Outputs: whatever Tensor.numpy() returns (object arrays for strings)."""
    import numpy as np
    if isinstance(value, (list, tuple)):
        obj = np.array(value, dtype=object)
        if not all(isinstance(v, (bytes, str)) for v in obj.reshape(-1)):
            raise TypeError("%s: give numeric data as a typed numpy array" % what)
        return _as_string_array(obj, what)
    arr = np.asarray(value)
    if arr.dtype.kind in ("O", "U"):
        return _as_string_array(arr, what)
    if arr.dtype.kind == "S":
        # Already fixed-width: trailing NULs may have been lost silently.
        raise TypeError("%s: give strings as a list of bytes, not an 'S' array" % what)
    return arr


def _randomize_and_calibrate_bn(model, calib_x, seed_offset=99):
    """Gives every BatchNormalization layer random gamma/beta and sets its
    moving statistics to the statistics of a calibration batch.

    With keras' defaults (moving mean 0, variance 1) inference-mode BN is
    close to an identity, which both leaves the BN kernel untested and lets
    activations of deep random networks explode.  A training-mode forward pass
    with momentum 0 copies each layer's batch statistics into its moving
    statistics, so the inference-mode network stays well scaled.
    """
    import keras
    import numpy as np
    rng = _rng(seed_offset)
    bns = []

    def walk(layer):
        if isinstance(layer, keras.layers.BatchNormalization):
            bns.append(layer)
        for sub in getattr(layer, "layers", []) or []:
            walk(sub)

    walk(model)
    for bn in bns:
        if bn.scale:
            g = bn.gamma.numpy()
            bn.gamma.assign(rng.uniform(0.6, 1.4, g.shape).astype(g.dtype))
        if bn.center:
            b = bn.beta.numpy()
            bn.beta.assign((0.1 * rng.randn(*b.shape)).astype(b.dtype))
    momenta = [bn.momentum for bn in bns]
    for bn in bns:
        bn.momentum = 0.0
    with warnings.catch_warnings():
        # keras.applications built on input_tensor expect a list of inputs.
        warnings.filterwarnings("ignore", message="The structure of `inputs`")
        model(calib_x, training=True)
    for bn, m in zip(bns, momenta):
        bn.momentum = m
    return len(bns)


# ---------------------------------------------------------------------------
# Model builders.  Each takes (export_dir, full_size), writes the SavedModel to
# export_dir (which does not exist yet) and returns a list of Case.
# ---------------------------------------------------------------------------

def build_keras_mlp(export_dir, full_size):
    import keras
    _keras_seed()
    inp = keras.Input(shape=(16,), name="features")
    x = keras.layers.Dense(32, activation="relu", name="hidden1")(inp)
    x = keras.layers.Dense(8, activation="tanh", name="hidden2")(x)
    out = keras.layers.Dense(4, activation="softmax", name="probs")(x)
    model = keras.Model(inp, out, name="keras_mlp")
    # What a Keras 3 user does to get a serving SavedModel; it writes the
    # signatures "serve" and "serving_default".
    model.export(export_dir, format="tf_saved_model", verbose=False)
    rng = _rng()
    return [
        Case("serving_default", {"features": rng.randn(1, 16).astype("float32")}),
        Case("serving_default", {"features": rng.randn(5, 16).astype("float32")}),
    ]


def build_keras_transformer(export_dir, full_size):
    """A Transformer encoder block: token and position embeddings, MultiHeadAttention (Einsum,
    Softmax), LayerNormalization, a GELU feed-forward, Dropout (identity when serving)."""
    import keras
    import numpy as np
    _keras_seed()
    layers = keras.layers
    seq, vocab, width = 8, 50, 16
    tokens = keras.Input(shape=(seq,), dtype="int32", name="tokens")
    h = layers.Embedding(vocab, width, name="token_embedding")(tokens)
    positions = layers.Embedding(seq, width, name="position_embedding")(np.arange(seq))
    h = h + positions
    attention = layers.MultiHeadAttention(num_heads=2, key_dim=8, name="attention")(h, h)
    h = layers.LayerNormalization(name="norm1")(h + layers.Dropout(0.1)(attention))
    ff = layers.Dense(32, activation="gelu", name="ff1")(h)
    ff = layers.Dense(width, name="ff2")(ff)
    h = layers.LayerNormalization(name="norm2")(h + ff)
    logits = layers.Dense(3, name="logits")(layers.GlobalAveragePooling1D()(h))
    keras.Model(tokens, logits).export(export_dir, format="tf_saved_model", verbose=False)
    rng = _rng()
    return [Case("serving_default",
                 {"tokens": rng.randint(0, vocab, (3, seq)).astype("int32")})]


def build_bert_base(export_dir, full_size):
    """A BERT-base-sized encoder as Keras 3 layers: 12 layers, hidden 768, 12 heads, intermediate
    3072 (exact GELU), vocabulary 30522, sequence length 128; int32 token ids and attention mask
    (1 = attend); outputs the sequence and the tanh-pooled first token. Random weights."""
    import keras
    import numpy as np
    _keras_seed()
    layers = keras.layers
    seq, vocab, width, heads, inner, depth = 128, 30522, 768, 12, 3072, 12
    ids = keras.Input(shape=(seq,), dtype="int32", name="input_ids")
    mask = keras.Input(shape=(seq,), dtype="int32", name="attention_mask")
    h = layers.Embedding(vocab, width, name="token_embedding")(ids)
    h = h + layers.Embedding(seq, width, name="position_embedding")(np.arange(seq))
    h = layers.LayerNormalization(epsilon=1e-12, name="embedding_norm")(h)
    attend = keras.ops.cast(mask[:, None, :], "bool")  # (batch, 1, seq): every query alike
    for i in range(depth):
        attention = layers.MultiHeadAttention(num_heads=heads, key_dim=width // heads,
                                              name="attention_%d" % i)(
            h, h, attention_mask=attend)
        h = layers.LayerNormalization(epsilon=1e-12, name="attention_norm_%d" % i)(
            h + attention)
        ff = layers.Dense(inner, activation="gelu", name="intermediate_%d" % i)(h)
        ff = layers.Dense(width, name="output_%d" % i)(ff)
        h = layers.LayerNormalization(epsilon=1e-12, name="output_norm_%d" % i)(h + ff)
    pooled = layers.Dense(width, activation="tanh", name="pooler")(h[:, 0, :])
    keras.Model([ids, mask], {"sequence_output": h, "pooled_output": pooled}).export(
        export_dir, format="tf_saved_model", verbose=False)
    rng = _rng(18)
    token_ids = rng.randint(0, vocab, (2, seq)).astype("int32")
    attention_mask = np.ones((2, seq), "int32")
    attention_mask[1, 100:] = 0  # the second sequence is padded
    return [Case("serving_default", {"input_ids": token_ids, "attention_mask": attention_mask},
                 rtol=DEEP_RTOL, atol=1e-4)]


def build_keras2_layernorm(export_dir, full_size):
    """Keras 2 (tf_keras) normalisation layers as TensorFlow 2.15-era models export them:
    LayerNormalization over the last axis lowers to FusedBatchNormV3 in *training* mode on an
    NCHW reshape (the batch statistics are the per-row mean and variance), BatchNormalization
    to FusedBatchNormV3 in inference mode. Needs `pip install tf_keras`."""
    import numpy as np
    import tensorflow as tf
    import tf_keras
    tf_keras.utils.set_random_seed(SEED)
    layers = tf_keras.layers
    seq, width = 5, 6
    x = tf_keras.Input(shape=(seq, width), name="sequence")
    h = layers.Dense(width, name="proj")(x)
    h = layers.LayerNormalization(name="norm_seq")(h)                 # over the last axis
    h = layers.BatchNormalization(name="batch_norm")(h)
    flat = layers.Flatten()(h)
    flat = layers.LayerNormalization(epsilon=1e-3, name="norm_flat")(flat)
    out = layers.Dense(3, name="logits")(flat)
    model = tf_keras.Model(x, out)
    rng = _rng()
    # Non-trivial norm parameters and moving statistics, as after training: scales and
    # variances in [0.5, 1.5], offsets and means in [-0.5, 0.5].
    for layer in model.layers:
        if isinstance(layer, (layers.LayerNormalization, layers.BatchNormalization)):
            weights = layer.get_weights()  # gamma, beta[, moving_mean, moving_variance]
            ranges = [(0.5, 1.5), (-0.5, 0.5), (-0.5, 0.5), (0.5, 1.5)]
            layer.set_weights([rng.uniform(*ranges[i], w.shape).astype("float32")
                               for i, w in enumerate(weights)])
    tf.saved_model.save(model, export_dir)
    return [Case("serving_default",
                 {"sequence": rng.randn(4, seq, width).astype("float32")}, rtol=1e-5, atol=1e-5)]


def build_keras2_rnn(export_dir, full_size):
    """Keras 2 (tf_keras) recurrent layers as TensorFlow 2.x-era models export them: LSTM and GRU
    run through the library functions Keras registers for the cuDNN-compatible implementation
    ("api_implements" functions with a CPU and a GPU variant), a Bidirectional(LSTM), a stacked
    GRU -> LSTM, and an LSTM over an Embedding with mask_zero. Needs `pip install tf_keras`."""
    import tensorflow as tf
    import tf_keras
    tf_keras.utils.set_random_seed(SEED)
    layers = tf_keras.layers
    seq, width = 6, 5
    x = tf_keras.Input(shape=(seq, width), name="sequence")
    lstm = layers.LSTM(4, name="lstm")(x)
    gru = layers.GRU(3, name="gru")(x)
    bidi = layers.Bidirectional(layers.LSTM(3), name="bidi")(x)
    stacked = layers.LSTM(3, name="stack_top")(layers.GRU(4, return_sequences=True,
                                                          name="stack_bottom")(x))
    tokens = tf_keras.Input(shape=(seq,), dtype="int32", name="tokens")
    masked = layers.Embedding(20, 4, mask_zero=True, name="embedding")(tokens)
    masked = layers.LSTM(3, name="masked_lstm")(masked)
    out = layers.Concatenate(name="features")([lstm, gru, bidi, stacked, masked])
    model = tf_keras.Model([x, tokens], out)

    @tf.function(input_signature=[tf.TensorSpec([None, seq, width], tf.float32, name="sequence"),
                                  tf.TensorSpec([None, seq], tf.int32, name="tokens")])
    def serve(sequence, tokens):
        return {"features": model([sequence, tokens])}

    # save_traces=False: without the per-layer call functions Keras 2 would add (~6 MB here);
    # the serving signature is the one tf.saved_model.save(model) would write.
    model.save(export_dir, save_format="tf", save_traces=False,
               signatures={"serving_default": serve})
    rng = _rng(14)
    padded = rng.randint(1, 20, (3, seq)).astype("int32")
    padded[0, 3:] = 0
    padded[1, 1:] = 0
    return [Case("serving_default", {"sequence": rng.randn(3, seq, width).astype("float32"),
                                     "tokens": padded}, rtol=1e-5, atol=1e-5)]


def build_keras_attention_masks(export_dir, full_size):
    """Attention with masks as Keras 3 exports it: a causal self-attention over an Embedding with
    mask_zero (padding and causal masks combined before the Softmax), a cross-attention taken
    with an explicit boolean attention_mask input, and a feed-forward with the tanh form of
    GELU (gelu(approximate=True))."""
    import keras
    import numpy as np
    _keras_seed()
    layers = keras.layers
    seq, vocab, width = 6, 30, 8
    tokens = keras.Input(shape=(seq,), dtype="int32", name="tokens")
    memory = keras.Input(shape=(4, width), name="memory")
    allowed = keras.Input(shape=(seq, 4), dtype="bool", name="attention_mask")
    h = layers.Embedding(vocab, width, mask_zero=True, name="embedding")(tokens)
    h = h + layers.MultiHeadAttention(num_heads=2, key_dim=4, name="causal")(
        h, h, use_causal_mask=True)
    h = h + layers.MultiHeadAttention(num_heads=2, key_dim=4, name="cross")(
        h, memory, attention_mask=allowed)
    h = layers.LayerNormalization(name="norm")(h)
    ff = layers.Dense(16, activation=lambda v: keras.activations.gelu(v, approximate=True),
                      name="ff1")(h)
    h = layers.Dense(width, name="ff2")(ff) + h
    logits = layers.Dense(3, name="logits")(layers.GlobalAveragePooling1D()(h))
    keras.Model([tokens, memory, allowed], {"hidden": h, "logits": logits}).export(
        export_dir, format="tf_saved_model", verbose=False)
    rng = _rng(11)
    ids = rng.randint(1, vocab, (3, seq)).astype("int32")
    ids[0, 4:] = 0  # padding at the end of the first sequence
    ids[2, 1:] = 0  # a sequence of one token
    mask = rng.rand(3, seq, 4) > 0.4
    mask[:, :, 0] = True  # every query sees at least one memory slot
    return [Case("serving_default", {"tokens": ids,
                                     "memory": rng.randn(3, 4, width).astype("float32"),
                                     "attention_mask": mask}, rtol=1e-5, atol=1e-5)]


def build_keras_gru(export_dir, full_size):
    """GRU variants Keras 3 exports as While loops: Bidirectional(GRU) with concatenated and with
    summed directions, a GRU -> GRU stack, and a GRU with reset_after=False (the reset gate
    applied before the recurrent matrix product)."""
    import keras
    _keras_seed()
    layers = keras.layers
    seq, width = 6, 5
    x = keras.Input(shape=(seq, width), name="sequence")
    bidi = layers.Bidirectional(layers.GRU(4), name="bidi_concat")(x)
    summed = layers.Bidirectional(layers.GRU(3, return_sequences=True), merge_mode="sum",
                                  name="bidi_sum")(x)
    stacked = layers.GRU(4, name="stacked")(layers.GRU(5, return_sequences=True,
                                                         name="stack_bottom")(summed))
    before = layers.GRU(3, reset_after=False, name="reset_before")(x)
    out = layers.Concatenate(name="features")([bidi, stacked, before])
    keras.Model(x, out).export(export_dir, format="tf_saved_model", verbose=False)
    rng = _rng(12)
    return [Case("serving_default", {"sequence": rng.randn(2, seq, width).astype("float32")},
                 rtol=1e-5, atol=1e-5)]


def build_keras_text_cnn(export_dir, full_size):
    """A text CNN: Embedding, two Conv1D branches (valid and same padding), GlobalMax- and
    GlobalAveragePooling1D, Concatenate and Add merges."""
    import keras
    _keras_seed()
    layers = keras.layers
    tokens = keras.Input(shape=(12,), dtype="int32", name="tokens")
    e = layers.Embedding(40, 8, name="embedding")(tokens)
    narrow = layers.Conv1D(6, 3, activation="relu", name="conv_narrow")(e)
    wide = layers.Conv1D(6, 5, padding="same", activation="relu", name="conv_wide")(e)
    merged = layers.Concatenate()([layers.GlobalMaxPooling1D()(narrow),
                                   layers.GlobalAveragePooling1D()(wide)])
    out = layers.Dense(2, name="logits")(layers.Add()([merged, merged]))
    keras.Model(tokens, out).export(export_dir, format="tf_saved_model", verbose=False)
    rng = _rng()
    return [Case("serving_default", {"tokens": rng.randint(0, 40, (4, 12)).astype("int32")})]


def build_keras_rnn(export_dir, full_size):
    """Recurrent layers as Keras 3 exports them (While loops over TensorLists): LSTM, GRU, a
    bidirectional LSTM and a stacked LSTM -> GRU, with a padding mask on one branch."""
    import keras
    _keras_seed()
    layers = keras.layers
    seq, width = 7, 5
    x = keras.Input(shape=(seq, width), name="sequence")
    lstm = layers.LSTM(6, name="lstm")(x)
    gru = layers.GRU(4, name="gru")(x)
    bidi = layers.Bidirectional(layers.LSTM(3), name="bidi")(x)
    stacked = layers.LSTM(4, return_sequences=True, name="stack1")(x)
    stacked = layers.GRU(3, name="stack2")(stacked)
    tokens = keras.Input(shape=(seq,), dtype="int32", name="tokens")
    # mask_zero: token 0 is padding, so the loop keeps the last state through masked steps.
    masked = layers.Embedding(20, 4, mask_zero=True, name="embedding")(tokens)
    masked = layers.GRU(3, name="masked_gru")(masked)
    out = layers.Concatenate(name="features")([lstm, gru, bidi, stacked, masked])
    keras.Model([x, tokens], out).export(export_dir, format="tf_saved_model", verbose=False)
    rng = _rng()
    padded = rng.randint(1, 20, (3, seq)).astype("int32")
    padded[0, 4:] = 0
    padded[2, 1:] = 0
    return [
        Case("serving_default", {"sequence": rng.randn(3, seq, width).astype("float32"),
                                 "tokens": padded}, rtol=1e-5, atol=1e-5),
        Case("serving_default", {"sequence": rng.randn(1, seq, width).astype("float32"),
                                 "tokens": rng.randint(1, 20, (1, seq)).astype("int32")},
             rtol=1e-5, atol=1e-5),
    ]


def build_tf2_control_flow(export_dir, full_size):
    """tf.function control flow: tf.cond (If / StatelessIf), tf.while_loop and Python loops
    over tensors (While / StatelessWhile, with TensorArrays), tf.switch_case (Case), nested
    loops, a loop that updates a variable, and a cond on a variable's value."""
    import numpy as np
    import tensorflow as tf

    class ControlFlow(tf.Module):
        def __init__(self):
            super().__init__(name="control_flow")
            self.w = tf.Variable(_rng(2).randn(3, 3).astype(np.float32), name="w")
            self.threshold = tf.Variable(0.5, name="threshold")
            self.calls = tf.Variable(0, dtype=tf.int64, name="calls")

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x"),
                                      tf.TensorSpec([], tf.int32, name="n"),
                                      tf.TensorSpec([], tf.int32, name="branch")])
        def __call__(self, x, n, branch):
            out = {}
            # tf.cond on data: a stateless If with different ops per branch.
            out["cond"] = tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.nn.relu(x) * 2.0,
                                  lambda: tf.abs(x) - 1.0)
            # A cond reading a variable inside a branch: a stateful If.
            out["cond_var"] = tf.cond(tf.reduce_max(x) > self.threshold,
                                      lambda: tf.matmul(x, self.w), lambda: x)

            # tf.while_loop with a data-dependent trip count and a variable read in the body.
            def body(i, acc):
                return i + 1, tf.tanh(tf.matmul(acc, self.w)) + x

            _, out["while"] = tf.while_loop(lambda i, acc: i < n, body,
                                            (tf.constant(0), tf.zeros_like(x)))
            # A Python for over tf.range with a TensorArray: what autograph makes of it.
            squares = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            for i in tf.range(n):
                squares = squares.write(i, tf.cast(i * i, tf.float32) + tf.reduce_mean(x))
            out["tensor_array"] = squares.stack()
            # Nested loops: sum over i < n of sum over j < i of (i * j).
            total = tf.constant(0, tf.int64)
            for i in tf.range(n):
                for j in tf.range(i):
                    total += tf.cast(i * j, tf.int64)
            out["nested"] = total
            # tf.switch_case with an out-of-range index falling through to the last branch.
            out["switch"] = tf.switch_case(branch, [lambda: x + 1.0, lambda: x * x,
                                                    lambda: tf.reduce_sum(x, 1, keepdims=True)
                                                    * tf.ones_like(x)])
            return out

        # A loop whose body writes a variable: the model is stateful across requests.
        @tf.function(input_signature=[tf.TensorSpec([], tf.int32, name="k")])
        def count(self, k):
            for _ in tf.range(k):
                self.calls.assign_add(1)
            return {"calls": self.calls.read_value()}

    module = ControlFlow()
    tf.saved_model.save(module, export_dir, signatures={
        "serving_default": module.__call__, "count": module.count})
    rng = _rng(3)
    x = rng.randn(4, 3).astype(np.float32)
    return [
        Case("serving_default", {"x": x, "n": np.array(3, "int32"), "branch": np.array(0, "int32")}),
        Case("serving_default", {"x": -np.abs(x[:2]), "n": np.array(0, "int32"),
                                 "branch": np.array(1, "int32")}),
        Case("serving_default", {"x": x[:1] * 0.1, "n": np.array(5, "int32"),
                                 "branch": np.array(7, "int32")}),
        Case("count", {"k": np.array(4, "int32")}),
    ]


def build_tf2_ops_extra(export_dir, full_size):
    """The rest of the tf.Module op list: gather_nd, mirror pads, log1p/expm1, clip, all/any,
    casts between numeric types (saturating float -> int is TF's rule), outputs of several
    dtypes (uint8, int8, int64, bool, string, float64), and a MutableHashTable filled at export
    time, restored from the checkpoint, read with find/size."""
    import numpy as np
    import tensorflow as tf

    class Extra(tf.Module):
        def __init__(self):
            super().__init__(name="ops_extra")
            self.table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
            self.table.insert(tf.constant(["apple", "banana", "cherry"]),
                              tf.constant([3, 5, 8], tf.int64))
            self.offset = tf.Variable(0.25, name="offset")

        @tf.function(input_signature=[
            tf.TensorSpec([None, 3], tf.float32, name="x"),
            tf.TensorSpec([None, 2], tf.int32, name="indices"),
            tf.TensorSpec([None], tf.string, name="words"),
        ])
        def __call__(self, x, indices, words):
            out = {}
            out["gather_nd"] = tf.gather_nd(x, indices)
            out["mirror_reflect"] = tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT")
            out["mirror_symmetric"] = tf.pad(x, [[0, 1], [3, 0]], mode="SYMMETRIC")
            out["log1p"] = tf.math.log1p(tf.abs(x))
            out["expm1"] = tf.math.expm1(tf.minimum(x, 3.0))
            out["clip"] = tf.clip_by_value(x, -0.5, self.offset)
            positive = x > 0.0
            out["all"] = tf.reduce_all(positive, axis=1)
            out["any"] = tf.reduce_any(positive, axis=0)
            scaled = x * 100.0
            out["to_uint8"] = tf.cast(tf.clip_by_value(scaled, 0.0, 255.0), tf.uint8)
            out["to_int8"] = tf.cast(tf.clip_by_value(scaled, -128.0, 127.0), tf.int8)
            out["to_int64"] = tf.cast(scaled, tf.int64)
            out["to_float64"] = tf.cast(x, tf.float64) * 3.0
            out["to_half"] = tf.cast(tf.cast(x, tf.float16), tf.float32)
            out["bool_to_int"] = tf.cast(positive, tf.int32)
            out["uint8_roundtrip"] = tf.cast(tf.cast(tf.cast(scaled, tf.int32) % 256, tf.uint8),
                                             tf.float32)
            out["found"] = self.table.lookup(words)
            out["size"] = self.table.size()
            out["upper"] = tf.strings.upper(words)
            return out

    module = Extra()
    tf.saved_model.save(module, export_dir, signatures={"serving_default": module.__call__})
    rng = _rng(4)
    return [
        Case("serving_default", {
            "x": rng.randn(4, 3).astype(np.float32),
            "indices": np.array([[0, 1], [3, 2], [2, 0]], "int32"),
            "words": [b"banana", b"kiwi", b"apple"]}),
        Case("serving_default", {
            "x": (3.0 * rng.randn(3, 3)).astype(np.float32),
            "indices": np.zeros((0, 2), "int32"),
            "words": [b"cherry"]}),
    ]


def build_tf2_ops_more(export_dir, full_size):
    """More of the tf.Module op list: casts between every pair of numeric types TensorFlow
    defines for Cast, complex included (wrap-around between integer widths, truncation towards
    zero from floats, the real part from complex),
    uint8 and bool inputs, Reverse on several axes, EuclideanNorm, and a stateful Case (a
    switch_case whose branches write a variable)."""
    import numpy as np
    import tensorflow as tf
    numeric = [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32,
               tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.bool, tf.complex64,
               tf.complex128]

    class More(tf.Module):
        def __init__(self):
            super().__init__(name="ops_more")
            self.total = tf.Variable(0.0, name="total")

        @tf.function(input_signature=[
            tf.TensorSpec([None, 4], tf.float64, name="wide"),
            tf.TensorSpec([None, 4], tf.uint8, name="pixels"),
            tf.TensorSpec([None, 4], tf.bool, name="flags"),
        ])
        def __call__(self, wide, pixels, flags):
            out = {}
            # Every (from, to) pair, starting from values each type holds exactly (small
            # non-negative integers, so unsigned and narrow types start equal) and from the
            # pixels (uint8 -> wider, and back with wrap-around from int32).
            small = tf.round(tf.abs(wide) * 10.0)
            for src in numeric:
                start = tf.cast(small, src)
                for dst in numeric:
                    if src != dst:
                        key = "%s_to_%s" % (src.name, dst.name)
                        # bfloat16 and float16 have no .npy form: compare them as float32.
                        value = tf.cast(start, dst)
                        if dst in (tf.float16, tf.bfloat16):
                            value = tf.cast(value, tf.float32)
                        out[key] = value
            # Complex values with imaginary parts: casts to real types keep the real part.
            z = tf.complex(wide, 1.0 - wide)
            for dst in (tf.complex64, tf.float32, tf.int32, tf.bool):
                out["complex_to_%s" % dst.name] = tf.raw_ops.Cast(x=z, DstT=dst)
            out["truncate_f64_to_i32"] = tf.cast(wide * 7.0, tf.int32)
            out["truncate_f32_to_i64"] = tf.cast(tf.cast(wide, tf.float32) * -3.0, tf.int64)
            as_int = tf.cast(pixels, tf.int32) * 37 - 900
            out["wrap_i32_to_i8"] = tf.cast(as_int, tf.int8)
            out["wrap_i32_to_u16"] = tf.cast(as_int * 100, tf.uint16)
            out["wrap_i32_to_u8"] = tf.cast(as_int, tf.uint8)
            out["pixels_scaled"] = tf.cast(pixels, tf.float32) / 255.0
            out["reverse_pixels"] = tf.reverse(pixels, axis=[1])
            out["reverse_both"] = tf.reverse(wide, axis=[0, 1])
            out["flags_where"] = tf.where(flags, wide, -wide)
            out["flags_any"] = tf.reduce_any(tf.math.logical_xor(flags, wide > 0.0), axis=1)
            out["euclidean_rows"] = tf.math.reduce_euclidean_norm(wide, axis=1)
            out["euclidean_all"] = tf.math.reduce_euclidean_norm(
                tf.cast(pixels, tf.float32), keepdims=True)
            return out

        # A Case whose branches write a variable: a stateful Case; the total persists across
        # requests.
        @tf.function(input_signature=[tf.TensorSpec([], tf.int32, name="op"),
                                      tf.TensorSpec([None], tf.float32, name="values")])
        def accumulate(self, op, values):
            def add():
                self.total.assign_add(tf.reduce_sum(values))
                return self.total.read_value()

            def scale():
                self.total.assign(self.total * 2.0)
                return self.total.read_value()

            def reset():
                self.total.assign(0.0)
                return self.total.read_value()

            return {"total": tf.switch_case(op, [add, scale, reset])}

    module = More()
    tf.saved_model.save(module, export_dir, signatures={
        "serving_default": module.__call__, "accumulate": module.accumulate})
    rng = _rng(13)
    wide = rng.randn(3, 4) * 4.0
    wide[0, 0] = 0.0
    return [
        Case("serving_default", {
            "wide": wide,
            "pixels": rng.randint(0, 256, (3, 4)).astype("uint8"),
            "flags": rng.rand(3, 4) > 0.5}),
        # Each case runs in a fresh process (tests/parity_test.py), so each starts from 0;
        # tests/e2e/stateful_test.py checks the total across requests against TensorFlow.
        Case("accumulate", {"op": np.array(0, "int32"),
                            "values": np.array([1.5, 2.0, -0.25], "float32")}),
        # Out of range: the last branch (reset).
        Case("accumulate", {"op": np.array(5, "int32"), "values": np.zeros(0, "float32")}),
    ]


def build_tf1_linear(export_dir, full_size):
    """TF1 graph: ref variables (VariableV2/Assign), placeholder, a local
    variable and a vocabulary table that only the main_op initialises, and a
    vocabulary asset file."""
    import numpy as np
    import tensorflow as tf
    tf1 = tf.compat.v1
    rng = _rng()
    # The asset is written to a temporary directory and referenced by the
    # relative name "labels.txt" (the graph's asset Const holds that string,
    # so the model bytes do not depend on the temp dir).  A loader must feed
    # the asset tensor with <export_dir>/assets/labels.txt; using the Const's
    # value would not find the file.
    export_dir = os.path.abspath(export_dir)
    asset_src_dir = tempfile.mkdtemp(prefix="tensord_assets_")
    old_cwd = os.getcwd()
    os.chdir(asset_src_dir)
    try:
        labels_path = "labels.txt"
        with open(labels_path, "w") as f:
            f.write("\n".join(["cat", "dog", "bird", "fish", "horse"]) + "\n")
        graph = tf.Graph()
        with graph.as_default():
            tf1.set_random_seed(SEED)
            x = tf1.placeholder(tf.float32, shape=[None, 8], name="x")
            w1 = tf1.Variable((0.5 * rng.randn(8, 16)).astype(np.float32),
                              name="w1", use_resource=False)
            b1 = tf1.Variable((0.1 * rng.randn(16)).astype(np.float32),
                              name="b1", use_resource=False)
            w2 = tf1.Variable((0.5 * rng.randn(16, 5)).astype(np.float32),
                              name="w2", use_resource=False)
            b2 = tf1.Variable((0.1 * rng.randn(5)).astype(np.float32),
                              name="b2", use_resource=False)
            # Not in the checkpoint: only main_op (local_variables_initializer)
            # gives it its value, so a server that skips main_op fails.
            temperature = tf1.Variable(
                1.5, name="temperature", use_resource=False, trainable=False,
                collections=[tf1.GraphKeys.LOCAL_VARIABLES])
            hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1), name="hidden")
            logits = tf.nn.bias_add(tf.matmul(hidden, w2), b2, name="logits")
            probs = tf.nn.softmax(logits / temperature, name="probs")
            class_id = tf.argmax(probs, axis=1, name="class_id")  # int64
            asset = tf.constant(labels_path, name="labels_asset")
            tf1.add_to_collection(tf1.GraphKeys.ASSET_FILEPATHS, asset)
            table = tf1.lookup.StaticHashTable(
                tf1.lookup.TextFileInitializer(
                    asset, tf.int64, tf1.lookup.TextFileIndex.LINE_NUMBER,
                    tf.string, tf1.lookup.TextFileIndex.WHOLE_LINE),
                default_value="UNKNOWN", name="labels_table")
            label = tf.identity(table.lookup(class_id), name="label")
            main_op = tf1.saved_model.main_op.main_op()  # local vars + tables
            sig = tf1.saved_model.signature_def_utils.predict_signature_def(
                inputs={"x": x},
                outputs={
                    "logits": tf.identity(logits, name="logits_out"),
                    "probabilities": tf.identity(probs, name="probabilities"),
                    "class_id": tf.identity(class_id, name="class_id_out"),
                    "label": label,
                })
            with tf1.Session(graph=graph) as sess:
                sess.run(tf1.global_variables_initializer())
                builder = tf1.saved_model.Builder(export_dir)
                builder.add_meta_graph_and_variables(
                    sess, ["serve"],
                    signature_def_map={"serving_default": sig},
                    assets_collection=tf1.get_collection(tf1.GraphKeys.ASSET_FILEPATHS),
                    main_op=main_op,
                    # As tf.estimator / TF Serving exports do: the C++ side
                    # must fill in default attr values from the OpDefs.
                    strip_default_attrs=True)
                builder.save()
    finally:
        os.chdir(old_cwd)
        shutil.rmtree(asset_src_dir)
    rng = _rng(1)
    return [
        Case("serving_default", {"x": rng.randn(1, 8).astype("float32")}),
        Case("serving_default", {"x": (2.0 * rng.randn(6, 8)).astype("float32")}),
    ]


def build_tf2_module(export_dir, full_size):
    import numpy as np
    import tensorflow as tf
    rng = _rng()

    class OpsModule(tf.Module):
        def __init__(self):
            super().__init__(name="ops_module")
            self.w = tf.Variable(rng.randn(4, 3).astype(np.float32), name="w")
            self.b = tf.Variable(rng.randn(3).astype(np.float32), name="b")
            self.scale = tf.Variable(rng.uniform(0.5, 1.5, (4,)).astype(np.float32),
                                     name="scale")
            self.int_table = tf.Variable(np.arange(10, dtype=np.int64) * 3 - 7,
                                         name="int_table")
            self.step = tf.Variable(3, dtype=tf.int32, name="step")
            self.bn_mean = tf.Variable(rng.randn(3).astype(np.float32), name="bn_mean")
            self.bn_var = tf.Variable(rng.uniform(0.5, 2.0, (3,)).astype(np.float32),
                                      name="bn_var")
            self.bn_gamma = tf.Variable(rng.uniform(0.5, 1.5, (3,)).astype(np.float32),
                                        name="bn_gamma")
            self.bn_beta = tf.Variable(rng.randn(3).astype(np.float32), name="bn_beta")

        # Element-wise float math, broadcasting [None,4] against [4].
        # Inputs must satisfy |y| >= 0.25 (divisors).
        @tf.function(input_signature=[
            tf.TensorSpec([None, 4], tf.float32, name="x"),
            tf.TensorSpec([4], tf.float32, name="y"),
        ])
        def math(self, x, y):
            a = tf.abs(x)
            out = {}
            out["exp"] = tf.exp(tf.minimum(x, 5.0))
            out["log"] = tf.math.log(a + 1.0)
            out["sqrt"] = tf.sqrt(a)
            out["rsqrt"] = tf.math.rsqrt(a + 0.5)
            out["square"] = tf.square(x)
            out["abs"] = a
            out["neg"] = tf.negative(x)
            out["maximum"] = tf.maximum(x, y)
            out["minimum"] = tf.minimum(x, 0.25)
            out["pow"] = tf.pow(a + 0.1, y)
            out["realdiv"] = x / y
            out["floordiv"] = tf.math.floordiv(x, y)
            out["floormod"] = tf.math.floormod(x, y)
            out["sigmoid"] = tf.sigmoid(x)
            out["tanh"] = tf.tanh(x)
            out["relu6"] = tf.nn.relu6(4.0 * x)
            out["elu"] = tf.nn.elu(x)
            out["softplus"] = tf.nn.softplus(x)
            out["erf"] = tf.math.erf(x)
            out["round"] = tf.round(x)  # half to even
            out["floor"] = tf.floor(x)
            out["ceil"] = tf.math.ceil(x)
            out["sign"] = tf.sign(x)
            out["reciprocal"] = tf.math.reciprocal(y)
            out["squared_difference"] = tf.math.squared_difference(x, y)
            out["l2_normalize"] = tf.math.l2_normalize(x, axis=1)
            out["scaled"] = x * self.scale - y  # Mul/Sub with a variable, broadcast
            out["where"] = tf.where(x > y, x, 2.0 * y)  # Greater, SelectV2 (broadcast)
            out["where_v1"] = tf.compat.v1.where(  # Select (same shapes)
                tf.greater_equal(x, 0.0), x, tf.zeros_like(x))
            out["positive_and_small"] = tf.logical_and(x > 0.0, x < 1.0)
            out["dense"] = tf.nn.relu(tf.matmul(x, self.w) + self.b)
            return out

        # Shape manipulation, indexing, reductions, matmuls.
        # Inputs: idx values in [0, 3), n >= 0.
        @tf.function(input_signature=[
            tf.TensorSpec([None, 3, 4], tf.float32, name="t"),
            tf.TensorSpec([None], tf.int32, name="idx"),
            tf.TensorSpec([], tf.int32, name="n"),
        ])
        def shapes(self, t, idx, n):
            out = {}
            out["reshape"] = tf.reshape(t, [-1, 12])
            out["transpose"] = tf.transpose(t, [0, 2, 1])
            out["concat"] = tf.concat([t, 2.0 * t], axis=-1)
            out["stack"] = tf.stack([t[:, 0, :], t[:, 2, :]], axis=1)  # Pack, shrink
            out["slice"] = tf.slice(t, [0, 1, 1], [-1, 2, 2])
            out["strided"] = t[:, ::2, 1:3]
            out["strided_newaxis"] = t[..., tf.newaxis, 0]  # ellipsis+new+shrink
            out["strided_reverse"] = t[:, -1, ::-1]
            out["squeeze"] = tf.squeeze(t[:, :1, :], axis=[1])
            out["expand_dims"] = tf.expand_dims(t, 1)
            shape = tf.shape(t)
            out["shape"] = shape
            out["shape64"] = tf.shape(t, out_type=tf.int64)
            out["fill"] = tf.fill(tf.stack([shape[0], 2]), 7.0)
            out["zeros_like"] = tf.zeros_like(t)
            out["ones_like"] = tf.ones_like(idx)
            out["tile"] = tf.tile(t, [1, 2, 1])
            out["pad"] = tf.pad(t, [[0, 0], [1, 0], [0, 2]])
            top_values, top_indices = tf.math.top_k(t, k=2)
            out["top_k_values"] = top_values
            out["top_k_indices"] = top_indices
            out["segment_sum"] = tf.math.segment_sum(t[0], tf.constant([0, 0, 2]))
            out["unsorted_segment_sum"] = tf.math.unsorted_segment_sum(
                t[0], tf.constant([2, -1, 2]), 3)
            out["pad_const"] = tf.pad(t, [[0, 0], [0, 1], [1, 1]], constant_values=-1.0)
            out["gather_axis1"] = tf.gather(t, idx, axis=1)
            out["gather_var"] = tf.gather(self.int_table, idx + 2)  # ResourceGather
            out["gather_batch"] = tf.gather(t, tf.zeros_like(idx), axis=0)  # GatherV2
            out["range"] = tf.range(n)
            out["range_delta"] = tf.range(1.0, 4.0, 0.5)
            out["one_hot"] = tf.one_hot(idx, depth=3)
            out["cumsum"] = tf.cumsum(t, axis=2)
            out["cumsum_excl_rev"] = tf.cumsum(t, axis=1, exclusive=True, reverse=True)
            out["argmax"] = tf.argmax(t, axis=2)  # int64
            out["argmin"] = tf.argmin(t, axis=1, output_type=tf.int32)
            out["sum"] = tf.reduce_sum(t, axis=1)
            out["sum_all"] = tf.reduce_sum(t)
            out["mean_keep"] = tf.reduce_mean(t, axis=[1, 2], keepdims=True)
            out["max"] = tf.reduce_max(t, axis=2)
            out["min_keep"] = tf.reduce_min(t, axis=-1, keepdims=True)
            out["prod"] = tf.reduce_prod(t, axis=1)
            out["batch_matmul"] = tf.matmul(t, t, transpose_b=True)  # [B,3,3]
            out["batch_matmul_bcast"] = tf.matmul(t, self.w)  # [B,3,4]x[4,3]
            out["einsum"] = tf.einsum("bij,jk->bik", t, self.w)
            return out

        # Integer and boolean arithmetic.  Inputs: b != 0.
        @tf.function(input_signature=[
            tf.TensorSpec([None], tf.int32, name="a"),
            tf.TensorSpec([None], tf.int32, name="b"),
            tf.TensorSpec([None], tf.int64, name="c"),
        ])
        def integers(self, a, b, c):
            out = {}
            out["add"] = a + b
            out["sub"] = a - b
            out["mul"] = a * b * self.step
            out["floordiv"] = tf.math.floordiv(a, b)  # rounds toward -inf
            out["floormod"] = tf.math.floormod(a, b)  # sign of the divisor
            out["c64"] = c * 3 + tf.cast(a, tf.int64)
            out["maximum"] = tf.maximum(a, b)
            out["minimum"] = tf.minimum(c, 5)
            out["abs"] = tf.abs(a)
            out["neg"] = tf.negative(c)
            out["sign"] = tf.sign(a)
            out["square"] = tf.square(c)
            out["greater"] = a > b
            out["greater_equal"] = a >= b
            out["less"] = a < b
            out["less_equal"] = a <= b
            out["equal"] = tf.equal(a, b)
            out["not_equal"] = tf.not_equal(c, 0)
            out["and_or_not"] = tf.logical_or(tf.logical_and(a > 0, b > 0),
                                              tf.logical_not(tf.equal(a, b)))
            out["where"] = tf.where(a > b, a, b)
            out["to_float"] = tf.cast(a, tf.float32) / 3.0
            out["to_int_trunc"] = tf.cast(tf.cast(a, tf.float32) * 0.7, tf.int32)
            out["to_bool"] = tf.cast(a, tf.bool)
            out["bool_to_int"] = tf.cast(a > b, tf.int64)
            out["cumsum"] = tf.cumsum(c)
            out["sum"] = tf.reduce_sum(c)
            out["max_keep"] = tf.reduce_max(a, keepdims=True)
            out["prod"] = tf.reduce_prod(b)
            out["argmax"] = tf.argmax(a)
            out["argmin"] = tf.argmin(c)
            out["size_range"] = tf.range(0, tf.size(a), 2)
            out["pow"] = tf.pow(tf.abs(b), 2)
            return out

        # A few NN ops Keras 3 does not emit but TF1 / Keras 2 models do.
        @tf.function(input_signature=[
            tf.TensorSpec([None, 2, 2, 3], tf.float32, name="images"),
        ])
        def nn(self, images):
            out = {}
            bn, _, _ = tf.compat.v1.nn.fused_batch_norm(
                images, self.bn_gamma, self.bn_beta, mean=self.bn_mean,
                variance=self.bn_var, epsilon=1e-3, is_training=False)
            out["fused_batch_norm"] = bn  # FusedBatchNormV3
            out["bias_add"] = tf.nn.bias_add(images, self.bn_beta)
            out["leaky_relu"] = tf.nn.leaky_relu(images, alpha=0.2)
            flat = tf.reshape(images, [-1, 12])
            out["softmax"] = tf.nn.softmax(flat)
            out["log_softmax"] = tf.nn.log_softmax(flat)
            out["relu"] = tf.nn.relu(images)
            return out

    module = OpsModule()
    tf.saved_model.save(module, export_dir, signatures={
        "serving_default": module.math,
        "shapes": module.shapes,
        "integers": module.integers,
        "nn": module.nn,
    })

    rng = _rng(1)

    def nonzero_y(shape):
        y = rng.uniform(0.25, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
        return y.astype("float32")

    # Exact halves exercise Round's half-to-even rule and Floor/Ceil/Sign at 0.
    x_special = np.array([[0.5, 1.5, 2.5, -0.5],
                          [-1.5, -2.5, 0.0, 3.75],
                          [-0.49, 0.51, -3.0, 1.0]], dtype=np.float32)
    a1 = np.array([7, -7, 7, -7, 0, 12, -1, 5], dtype=np.int32)
    b1 = np.array([2, 2, -2, -2, 3, 5, 4, -3], dtype=np.int32)
    return [
        Case("serving_default", {"x": x_special, "y": np.array([0.5, -1.25, 2.0, -0.75], "float32")}),
        Case("serving_default", {"x": (1.5 * rng.randn(5, 4)).astype("float32"), "y": nonzero_y((4,))}),
        Case("shapes", {"t": rng.randn(2, 3, 4).astype("float32"),
                        "idx": np.array([2, 0, 1, 1], "int32"), "n": np.array(5, "int32")}),
        Case("shapes", {"t": rng.randn(1, 3, 4).astype("float32"),
                        "idx": np.array([1], "int32"), "n": np.array(0, "int32")}),
        Case("integers", {"a": a1, "b": b1,
                          "c": np.array([3, -4, 0, 10, 2, -9, 6, 1], "int64")}),
        Case("integers", {"a": rng.randint(-20, 20, 5).astype("int32"),
                          "b": np.array([3, -1, 7, -6, 2], "int32"),
                          "c": rng.randint(-100, 100, 5).astype("int64")}),
        Case("nn", {"images": rng.randn(2, 2, 2, 3).astype("float32")}),
    ]


def _example(features):
    """Serialises a tf.train.Example from {name: list of float|int|bytes}."""
    import tensorflow as tf
    feats = {}
    for name in sorted(features):
        values = features[name]
        if isinstance(values[0], float):
            feats[name] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        elif isinstance(values[0], int):
            feats[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        else:
            feats[name] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    return tf.train.Example(
        features=tf.train.Features(feature=feats)).SerializeToString(deterministic=True)


def build_tf2_strings(export_dir, full_size):
    import numpy as np
    import tensorflow as tf

    class StringsModule(tf.Module):
        def __init__(self):
            super().__init__(name="strings_module")
            # Initialised by the SavedModel's __saved_model_init_op.
            self.table = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(
                    tf.constant([b"apple", b"banana", b"cherry"]),
                    tf.constant([1, 2, 3], tf.int64)),
                default_value=-1)

        @tf.function(input_signature=[
            tf.TensorSpec([None], tf.string, name="first"),
            tf.TensorSpec([None], tf.string, name="second"),
            tf.TensorSpec([None], tf.int64, name="number"),
            tf.TensorSpec([None], tf.float32, name="value"),
        ])
        def strings(self, first, second, number, value):
            return {
                "joined": tf.strings.join([first, second], separator="-"),
                "joined_scalar": tf.strings.join([first, ":", second]),
                "hash_bucket": tf.strings.to_hash_bucket_fast(first, 1024),
                "length": tf.strings.length(first),
                "number_str": tf.strings.as_string(number),
                "value_str": tf.strings.as_string(value, precision=3),
                "token_id": self.table.lookup(first),
                "is_apple": tf.equal(first, "apple"),
            }

        @tf.function(input_signature=[
            tf.TensorSpec([None], tf.string, name="examples"),
        ])
        def parse(self, examples):
            return tf.io.parse_example(examples, {
                "age": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
                "weight": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.5, 1.5]),
                "name": tf.io.FixedLenFeature([], tf.string, default_value="unknown"),
            })

    module = StringsModule()
    tf.saved_model.save(module, export_dir, signatures={
        "serving_default": module.strings,
        "parse_example": module.parse,
    })
    examples = [
        _example({"age": [42], "weight": [1.25, -2.0], "name": [b"alice"]}),
        _example({"weight": [3.0, 4.5], "name": [b"bob"]}),          # age missing
        _example({"age": [7]}),                                      # weight, name missing
        _example({"name": [b"carol"], "age": [-3], "extra": [1.0]}),  # unknown feature
        b"",  # an empty serialized Example: every feature takes its default
    ]
    return [
        Case("serving_default", {
            "first": [b"apple", b"kiwi", b"", b"cherry pie"],
            "second": [b"x", b"", b"zz", b"\xc3\xa9t\xc3\xa9"],
            "number": np.array([0, -17, 123456789012, 5], "int64"),
            "value": np.array([0.0, -1.5, 3.14159, 1e-4], "float32"),
        }),
        Case("serving_default", {
            "first": [b"banana"], "second": [b"split"],
            "number": np.array([7], "int64"), "value": np.array([2.5], "float32"),
        }),
        Case("parse_example", {"examples": examples}),
        Case("parse_example", {"examples": examples[:1]}),
    ]


def build_keras_preprocessing(export_dir, full_size):
    """Keras preprocessing layers with fixed vocabularies and statistics, as users put them in
    front of a model: StringLookup, IntegerLookup, Hashing, Normalization, CategoryEncoding,
    Discretization and TextVectorization (lower-casing, punctuation stripping, whitespace split,
    padded to a fixed length)."""
    import numpy as np
    import tensorflow as tf
    layers = tf.keras.layers

    class Preprocessing(tf.Module):
        def __init__(self):
            super().__init__(name="preprocessing")
            self.words = layers.StringLookup(vocabulary=["red", "green", "blue"])
            self.ids = layers.IntegerLookup(vocabulary=[10, 20, 30])
            self.hashing = layers.Hashing(num_bins=16)
            self.normalize = layers.Normalization(mean=[1.0, -2.0], variance=[4.0, 0.25])
            self.multi_hot = layers.CategoryEncoding(num_tokens=6, output_mode="multi_hot")
            self.counts = layers.CategoryEncoding(num_tokens=6, output_mode="count")
            self.buckets = layers.Discretization(bin_boundaries=[-1.0, 0.0, 2.5])
            self.text = layers.TextVectorization(vocabulary=["the", "cat", "sat", "on", "mat"],
                                                 output_sequence_length=6)

        @tf.function(input_signature=[
            tf.TensorSpec([None], tf.string, name="word"),
            tf.TensorSpec([None], tf.int64, name="id"),
            tf.TensorSpec([None, 2], tf.float32, name="features"),
            tf.TensorSpec([None, 4], tf.int64, name="tokens"),
            tf.TensorSpec([None], tf.string, name="sentence"),
        ])
        def __call__(self, word, id, features, tokens, sentence):
            return {
                "word_index": self.words(word),
                "id_index": self.ids(id),
                "word_hash": self.hashing(word),
                "normalized": self.normalize(features),
                "multi_hot": self.multi_hot(tokens),
                "counts": self.counts(tokens),
                "buckets": self.buckets(features),
                "sentence_ids": self.text(sentence),
            }

    module = Preprocessing()
    tf.saved_model.save(module, export_dir, signatures={"serving_default": module.__call__})
    return [Case("serving_default", {
        "word": [b"red", b"blue", b"purple", b""],
        "id": np.array([30, 10, 99, -1], "int64"),
        "features": np.array([[1.0, -2.0], [-3.5, 0.75], [2.5, 10.0], [0.0, -1.0]], "float32"),
        "tokens": np.array([[0, 1, 1, 5], [2, 2, 2, 2], [5, 4, 3, 9], [0, 0, 0, 0]], "int64"),
        "sentence": [b"The cat sat on the MAT!", b"", b"a dog, a cat", b"the the the the the the the"],
    })]


def build_keras_preprocessing_modes(export_dir, full_size):
    """Keras preprocessing beyond the defaults: StringLookup and TextVectorization reading their
    vocabulary from a file (a TF2 asset, InitializeTableFromTextFileV2 in the init function),
    TextVectorization with bigrams and multi_hot / count / tf_idf outputs, StringLookup with
    two OOV buckets and one_hot output, CategoryEncoding one_hot, and Hashing with a salt and
    over integers."""
    import numpy as np
    import tensorflow as tf
    layers = tf.keras.layers
    vocab_dir = tempfile.mkdtemp()
    vocab_file = os.path.join(vocab_dir, "vocab.txt")
    with open(vocab_file, "w") as f:
        f.write("the\ncat\nsat\non\nmat\ndog\n")

    class Modes(tf.Module):
        def __init__(self):
            super().__init__(name="preprocessing_modes")
            self.file_lookup = layers.StringLookup(vocabulary=vocab_file)
            self.oov_buckets = layers.StringLookup(vocabulary=["red", "green"], num_oov_indices=2,
                                                   output_mode="one_hot")
            self.bigrams = layers.TextVectorization(vocabulary=vocab_file, ngrams=2,
                                                    output_sequence_length=8)
            self.multi_hot = layers.TextVectorization(vocabulary=vocab_file,
                                                      output_mode="multi_hot")
            self.count = layers.TextVectorization(vocabulary=vocab_file, output_mode="count",
                                                  standardize="lower")
            self.tf_idf = layers.TextVectorization(
                vocabulary=["the", "cat", "sat"], idf_weights=[0.5, 1.5, 2.0],
                output_mode="tf_idf")
            self.one_hot = layers.CategoryEncoding(num_tokens=5, output_mode="one_hot")
            self.salted = layers.Hashing(num_bins=32, salt=[7, 42])
            self.int_hash = layers.Hashing(num_bins=10)

        @tf.function(input_signature=[
            tf.TensorSpec([None], tf.string, name="word"),
            tf.TensorSpec([None], tf.string, name="sentence"),
            tf.TensorSpec([None], tf.int64, name="category"),
        ])
        def __call__(self, word, sentence, category):
            return {
                "file_index": self.file_lookup(word),
                "oov_one_hot": self.oov_buckets(word),
                "bigram_ids": self.bigrams(sentence),
                "multi_hot": self.multi_hot(sentence),
                "count": self.count(sentence),
                "tf_idf": self.tf_idf(sentence),
                "category_one_hot": self.one_hot(category),
                "salted_hash": self.salted(word),
                "int_hash": self.int_hash(category),
            }

    module = Modes()
    tf.saved_model.save(module, export_dir, signatures={"serving_default": module.__call__})
    shutil.rmtree(vocab_dir)
    return [Case("serving_default", {
        "word": [b"cat", b"red", b"purple", b"", b"dog", b"green"],
        "sentence": [b"The cat sat on the mat", b"a dog", b"", b"cat cat dog, the!",
                     b"mat on the cat", b"SAT the"],
        "category": np.array([0, 4, 2, 2, 1, 3], "int64"),
    })]


def build_tf1_parse_example(export_dir, full_size):
    """Like TF Serving's half_plus_two: y = a*x + b, y2 = a*x2 + c, with
    classify / regress / predict signatures over serialized tf.Examples."""
    import numpy as np
    import tensorflow as tf
    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        serialized = tf1.placeholder(tf.string, shape=[None], name="tf_example")
        features = tf1.io.parse_example(serialized, {
            "x": tf1.io.FixedLenFeature([1], tf.float32, default_value=[0.0]),
            "x2": tf1.io.FixedLenFeature([1], tf.float32, default_value=[1.0]),
        })
        # As in half_plus_two the predict signature feeds this Identity node
        # directly (an intermediate tensor, not a Placeholder).
        x = tf.identity(features["x"], name="x")
        x2 = tf.identity(features["x2"], name="x2")
        a = tf1.Variable(0.5, name="a", use_resource=True)
        b = tf1.Variable(2.0, name="b", use_resource=True)
        # Local variable only set by legacy_init_op.
        c = tf1.Variable(np.float32(-1.0), name="c", use_resource=True, trainable=False,
                         collections=[tf1.GraphKeys.LOCAL_VARIABLES])
        legacy_init_op = tf.group(c.assign(3.0), name="legacy_init_op")
        y = tf.add(tf.multiply(a, x), b, name="y")
        y2 = tf.add(tf.multiply(a, x2), c, name="y2")
        classes = tf.where(y > 2.5, tf.fill(tf.shape(y), "big"),
                           tf.fill(tf.shape(y), "small"), name="classes")
        sdu = tf1.saved_model.signature_def_utils
        regress_x_to_y = sdu.regression_signature_def(serialized, y)
        signatures = {
            "serving_default": regress_x_to_y,
            "regress_x_to_y": regress_x_to_y,
            "regress_x2_to_y2": sdu.regression_signature_def(serialized, y2),
            "classify_x_to_y": sdu.classification_signature_def(serialized, classes, y),
            "predict_x_to_y": sdu.predict_signature_def({"x": x}, {"y": y}),
        }
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(export_dir)
            builder.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map=signatures,
                legacy_init_op=legacy_init_op, strip_default_attrs=True)
            builder.save()
    examples = [
        _example({"x": [1.0], "x2": [4.0]}),
        _example({"x": [3.5]}),               # x2 missing -> default 1.0
        _example({"x2": [-2.5]}),             # x missing -> default 0.0
        _example({"x": [-7.25], "x2": [0.5]}),
    ]
    return [
        Case("serving_default", {"inputs": examples}),
        Case("regress_x_to_y", {"inputs": examples[:1]}),
        Case("regress_x2_to_y2", {"inputs": examples}),
        Case("classify_x_to_y", {"inputs": examples}),
        Case("predict_x_to_y", {"x": np.array([[0.0], [1.0], [-4.5]], "float32")}),
    ]


def build_cnn_small(export_dir, full_size):
    import keras
    from keras import layers
    _keras_seed()
    inp = keras.Input(shape=(32, 32, 3), name="image")
    x = layers.ZeroPadding2D(padding=1)(inp)                               # 34x34
    x = layers.Conv2D(8, 3, strides=2, padding="valid", use_bias=False)(x)  # 16x16
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    b1 = layers.Conv2D(8, 3, padding="same", dilation_rate=2)(x)
    b1 = layers.BatchNormalization()(b1)
    b1 = layers.Activation("relu6")(b1)
    b2 = layers.DepthwiseConv2D(3, padding="same", depth_multiplier=1)(x)
    b2 = layers.BatchNormalization()(b2)
    b2 = layers.Activation("swish")(b2)
    x = layers.Add()([b1, b2])
    x = layers.Concatenate()([x, b2])                                    # 16x16x16
    x = layers.MaxPooling2D(pool_size=2)(x)                              # 8x8
    y = layers.AveragePooling2D(pool_size=3, strides=1, padding="same")(x)
    x = layers.Concatenate(axis=-1)([x, y])                              # 8x8x32
    x = layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(x)  # 4x4
    x = layers.DepthwiseConv2D(3, strides=2, padding="valid", depth_multiplier=2)(x)  # 1x1x32
    x = layers.ReLU(max_value=6.0)(x)
    gap = layers.GlobalAveragePooling2D()(x)
    flat = layers.Flatten()(x)
    x = layers.Concatenate()([gap, flat])
    x = layers.Dense(10)(x)
    out = layers.Softmax(name="probs")(x)
    model = keras.Model(inp, out, name="cnn_small")
    rng = _rng()
    _randomize_and_calibrate_bn(model, rng.randn(16, 32, 32, 3).astype("float32"))
    model.export(export_dir, format="tf_saved_model", verbose=False)
    return [
        Case("serving_default", {"image": rng.randn(1, 32, 32, 3).astype("float32")}),
        Case("serving_default", {"image": rng.randn(3, 32, 32, 3).astype("float32")}),
    ]


def build_mobilenet_v2_tiny(export_dir, full_size):
    import keras
    _keras_seed()
    inp = keras.Input(shape=(32, 32, 3), name="image")
    model = keras.applications.MobileNetV2(
        input_tensor=inp, alpha=0.35, weights=None, classes=10)
    rng = _rng()
    _randomize_and_calibrate_bn(model, rng.randn(16, 32, 32, 3).astype("float32"))
    model.export(export_dir, format="tf_saved_model", verbose=False)
    return [
        Case("serving_default", {"image": rng.randn(2, 32, 32, 3).astype("float32")},
             rtol=DEEP_RTOL, atol=DEEP_ATOL),  # deep: see DEEP_RTOL
    ]


def _build_keras_application(export_dir, full_size, ctor, input_scale=1.0,
                             input_offset=0.0, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    import keras
    _keras_seed()
    size = LARGE_FULL_SIZE if full_size else LARGE_REDUCED_SIZE
    inp = keras.Input(shape=(size, size, 3), name="image")
    model = ctor(input_tensor=inp, weights=None, classes=1000)
    rng = _rng()

    def images(n):
        return (input_offset + input_scale * rng.randn(n, size, size, 3)).astype("float32")

    _randomize_and_calibrate_bn(model, images(8))
    model.export(export_dir, format="tf_saved_model", verbose=False)
    return [Case("serving_default", {"image": images(LARGE_BATCH)}, rtol=rtol, atol=atol)]




def build_resnet50(export_dir, full_size):
    import keras
    return _build_keras_application(export_dir, full_size, keras.applications.ResNet50,
                                    rtol=DEEP_RTOL, atol=DEEP_ATOL)


def build_mobilenet_v2(export_dir, full_size):
    import keras
    return _build_keras_application(export_dir, full_size, keras.applications.MobileNetV2,
                                    rtol=DEEP_RTOL, atol=DEEP_ATOL)


def build_efficientnet_b0(export_dir, full_size):
    import keras
    # EfficientNet starts with Rescaling(1/255) and Normalization, so it is fed
    # pixel-range values.
    return _build_keras_application(export_dir, full_size, keras.applications.EfficientNetB0,
                                    input_scale=64.0, input_offset=128.0,
                                    rtol=DEEP_RTOL, atol=DEEP_ATOL)


def build_densenet121(export_dir, full_size):
    import keras
    return _build_keras_application(export_dir, full_size, keras.applications.DenseNet121,
                                    rtol=DEEP_RTOL, atol=DEEP_ATOL)


BUILDERS = {
    "keras_mlp": build_keras_mlp,
    "tf1_linear": build_tf1_linear,
    "tf2_module": build_tf2_module,
    "tf2_strings": build_tf2_strings,
    "tf1_parse_example": build_tf1_parse_example,
    "keras_preprocessing": build_keras_preprocessing,
    "keras_transformer": build_keras_transformer,
    "keras2_layernorm": build_keras2_layernorm,
    "keras_attention_masks": build_keras_attention_masks,
    "keras_gru": build_keras_gru,
    "tf2_ops_more": build_tf2_ops_more,
    "keras_preprocessing_modes": build_keras_preprocessing_modes,
    "keras2_rnn": build_keras2_rnn,
    "keras_text_cnn": build_keras_text_cnn,
    "keras_rnn": build_keras_rnn,
    "tf2_control_flow": build_tf2_control_flow,
    "tf2_ops_extra": build_tf2_ops_extra,
    "cnn_small": build_cnn_small,
    "mobilenet_v2_tiny": build_mobilenet_v2_tiny,
    "resnet50": build_resnet50,
    "mobilenet_v2": build_mobilenet_v2,
    "efficientnet_b0": build_efficientnet_b0,
    "densenet121": build_densenet121,
    "bert_base": build_bert_base,
}
assert sorted(BUILDERS) == sorted(ALL_MODELS + PRODUCTION_MODELS)


# ---------------------------------------------------------------------------
# SavedModel inspection: signatures and op inventory.
# ---------------------------------------------------------------------------

def _read_saved_model(export_dir):
    from tensorflow.core.protobuf import saved_model_pb2
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    serve = [mg for mg in sm.meta_graphs if list(mg.meta_info_def.tags) == ["serve"]]
    if len(serve) != 1:
        raise RuntimeError("%s: expected exactly one MetaGraph tagged ['serve'], got tags %s"
                           % (export_dir, [list(m.meta_info_def.tags) for m in sm.meta_graphs]))
    return serve[0]


def _node_name(tensor_name):
    name = tensor_name.lstrip("^")
    return name.split(":")[0]


def _called_functions(node, functions):
    called = []
    if node.op in functions:
        called.append(node.op)
    for attr in node.attr.values():
        if attr.HasField("func"):
            called.append(attr.func.name)
        elif attr.HasField("list"):
            called.extend(f.name for f in attr.list.func)
    return [c for c in called if c]


def op_inventory(meta_graph):
    """Returns {op_type: (total_nodes, serving_nodes)}.

    total counts every node of the GraphDef and of every FunctionDef in its
    library.  serving counts nodes reachable from what a server executes: the
    SignatureDefs (incl. __saved_model_init_op), the main/legacy init op, the
    saver's restore op and the asset tensors (following function-valued attrs
    of call/control-flow nodes into the library).
    """
    graph = meta_graph.graph_def
    functions = {f.signature.name: f for f in graph.library.function}
    nodes = {n.name: n for n in graph.node}

    def op_of(node):
        # A node whose op is a library function is a direct function call.
        return "(call)" if node.op in functions else node.op

    total = collections.Counter()
    for n in graph.node:
        total[op_of(n)] += 1
    for f in functions.values():
        for n in f.node_def:
            total[op_of(n)] += 1

    roots = []
    for sig in meta_graph.signature_def.values():
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            roots.append(info.name)
    for key in ("saved_model_main_op", "legacy_init_op", "main_op", "saved_model_assets"):
        if key in meta_graph.collection_def:
            col = meta_graph.collection_def[key]
            roots.extend(col.node_list.value)
    if meta_graph.HasField("saver_def"):
        roots.append(meta_graph.saver_def.restore_op_name)
        roots.append(meta_graph.saver_def.filename_tensor_name)
    for asset in meta_graph.asset_file_def:
        roots.append(asset.tensor_info.name)

    serving = collections.Counter()
    seen_nodes = set()
    seen_funcs = set()
    stack = [_node_name(r) for r in roots if r]
    func_stack = []
    while stack or func_stack:
        while stack:
            name = stack.pop()
            if name in seen_nodes or name not in nodes:
                continue
            seen_nodes.add(name)
            node = nodes[name]
            serving[op_of(node)] += 1
            stack.extend(_node_name(i) for i in node.input)
            func_stack.extend(_called_functions(node, functions))
        while func_stack:
            fname = func_stack.pop()
            if fname in seen_funcs or fname not in functions:
                continue
            seen_funcs.add(fname)
            for node in functions[fname].node_def:
                serving[op_of(node)] += 1
                func_stack.extend(_called_functions(node, functions))
    return {op: (total[op], serving.get(op, 0)) for op in total}


def write_ops_txt(path, name, inventory):
    with open(path, "w") as f:
        f.write("# %s: op types in the 'serve' MetaGraph (GraphDef nodes + all library "
                "FunctionDef nodes)\n" % name)
        f.write("# columns: op_type total_nodes serving_nodes\n")
        f.write("# serving_nodes: nodes reachable from the SignatureDefs, init/main op, "
                "saver restore op and assets; 0 = only in auxiliary functions\n")
        for op in sorted(inventory):
            t, s = inventory[op]
            f.write("%s %d %d\n" % (op, t, s))


def read_ops_txt(path):
    inv = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            op, t, s = line.split()
            inv[op] = (int(t), int(s))
    return inv


def write_ops_all(out_dir):
    per_model = {}
    for name in sorted(os.listdir(out_dir)):
        path = os.path.join(out_dir, name, "golden", "ops.txt")
        if os.path.isfile(path):
            per_model[name] = read_ops_txt(path)
    ops = collections.defaultdict(dict)
    for model, inv in per_model.items():
        for op, counts in inv.items():
            ops[op][model] = counts
    path = os.path.join(out_dir, "ops_all.txt")
    with open(path, "w") as f:
        f.write("# union of the ops.txt of: %s\n" % " ".join(sorted(per_model)))
        f.write("# columns: op_type scope model:serving_nodes/total_nodes ...\n")
        f.write("# scope: serve = needed to serve at least one model; "
                "aux = only in auxiliary functions (save, traced methods)\n")
        for op in sorted(ops):
            users = ops[op]
            scope = "serve" if any(s for _, s in users.values()) else "aux"
            f.write("%s %s %s\n" % (op, scope, " ".join(
                "%s:%d/%d" % (m, users[m][1], users[m][0]) for m in sorted(users))))
    return path, len(ops)


# ---------------------------------------------------------------------------
# Worker: build one model, compute its goldens from the saved model.
# ---------------------------------------------------------------------------

def run_worker(name, out_dir, full_size):
    tf = _import_tf()
    import numpy as np
    model_dir = os.path.join(out_dir, name)
    export_dir = os.path.join(model_dir, "1")
    golden_dir = os.path.join(model_dir, "golden")
    if os.path.exists(model_dir):
        shutil.rmtree(model_dir)
    os.makedirs(model_dir)

    t0 = time.time()
    cases = BUILDERS[name](export_dir, full_size)
    t_build = time.time() - t0
    if not cases:
        raise RuntimeError("%s: builder returned no cases" % name)

    meta_graph = _read_saved_model(export_dir)
    sigdefs = meta_graph.signature_def
    if "serving_default" not in sigdefs:
        raise RuntimeError("%s: no 'serving_default' signature (have %s)"
                           % (name, sorted(sigdefs)))

    # Goldens come from the model as saved, loaded back the way a TF2 user
    # would, so what is checked is exactly what is served.
    t0 = time.time()
    loaded = tf.saved_model.load(export_dir, tags=["serve"])
    os.makedirs(golden_dir)
    json_cases = []
    for i, case in enumerate(cases):
        sigdef = sigdefs[case.signature]
        if sorted(case.inputs) != sorted(sigdef.inputs):
            raise RuntimeError("%s case %d: inputs %s != signature %s inputs %s" % (
                name, i, sorted(case.inputs), case.signature, sorted(sigdef.inputs)))
        fn = loaded.signatures[case.signature]
        feeds = {}
        entry = {"signature": case.signature, "inputs": {}, "outputs": {},
                 "rtol": case.rtol, "atol": case.atol}
        for alias in sorted(case.inputs):
            if not ALIAS_RE.match(alias):
                raise RuntimeError("%s: input alias %r is not file-name safe" % (name, alias))
            arr = _to_numpy_for_save(case.inputs[alias], "%s c%d input %s" % (name, i, alias))
            feeds[alias] = tf.constant(arr)
            fname = "c%d_in_%s.npy" % (i, alias)
            np.save(os.path.join(golden_dir, fname), arr)
            entry["inputs"][alias] = fname
        result = fn(**feeds)
        if sorted(result) != sorted(sigdef.outputs):
            raise RuntimeError("%s case %d: outputs %s != signature outputs %s" % (
                name, i, sorted(result), sorted(sigdef.outputs)))
        for alias in sorted(result):
            if not ALIAS_RE.match(alias):
                raise RuntimeError("%s: output alias %r is not file-name safe" % (name, alias))
            arr = _to_numpy_for_save(result[alias].numpy(),
                                     "%s c%d output %s" % (name, i, alias))
            if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
                raise RuntimeError("%s case %d: output %s is not finite" % (name, i, alias))
            fname = "c%d_out_%s.npy" % (i, alias)
            np.save(os.path.join(golden_dir, fname), arr)
            entry["outputs"][alias] = fname
        json_cases.append(entry)
    with open(os.path.join(golden_dir, "cases.json"), "w") as f:
        json.dump({"model": name, "tags": ["serve"], "cases": json_cases}, f, indent=1)
        f.write("\n")
    t_golden = time.time() - t0

    inventory = op_inventory(meta_graph)
    write_ops_txt(os.path.join(golden_dir, "ops.txt"), name, inventory)
    print("[%s] build %.1fs, goldens %.1fs, %d cases, %d op types (%d serving)" % (
        name, t_build, t_golden, len(json_cases), len(inventory),
        sum(1 for t, s in inventory.values() if s)), flush=True)


def run_crosscheck(name, out_dir):
    """Recomputes the goldens of an existing model with the current
    TF_ENABLE_ONEDNN_OPTS setting and prints the largest differences; used to
    size tolerances (run with TF_ENABLE_ONEDNN_OPTS=1)."""
    tf = _import_tf()
    import numpy as np
    model_dir = os.path.join(out_dir, name)
    with open(os.path.join(model_dir, "golden", "cases.json")) as f:
        spec = json.load(f)
    loaded = tf.saved_model.load(os.path.join(model_dir, "1"), tags=["serve"])
    for i, case in enumerate(spec["cases"]):
        feeds = {a: tf.constant(np.load(os.path.join(model_dir, "golden", p)))
                 for a, p in case["inputs"].items()}
        result = loaded.signatures[case["signature"]](**feeds)
        for alias, p in case["outputs"].items():
            want = np.load(os.path.join(model_dir, "golden", p))
            got = result[alias].numpy()
            if want.dtype.kind not in "fc":
                same = np.array_equal(got.astype(want.dtype), want)
                print("%s c%d %s: %s" % (name, i, alias, "equal" if same else "DIFFERENT"))
                continue
            diff = np.abs(got - want)
            rel = diff / np.maximum(np.abs(want), 1e-30)
            need_rtol = np.max((diff - case["atol"]) / np.maximum(np.abs(want), 1e-30))
            print("%s c%d %s: max_abs %.3g max_rel %.3g rtol needed with atol %.0e: %.3g "
                  "(max |want| %.3g)" % (name, i, alias, diff.max(), rel.max(), case["atol"],
                                         max(need_rtol, 0.0), np.abs(want).max()))


# ---------------------------------------------------------------------------
# Driver.
# ---------------------------------------------------------------------------

def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--set", choices=["small", "large", "all", "production"],
                        default="small",
                        help="which models (ignored when --only is given)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        choices=ALL_MODELS + PRODUCTION_MODELS,
                        help="generate just these models")
    parser.add_argument("--full_size", action="store_true",
                        help="large models at %dx%d instead of %dx%d" % (
                            LARGE_FULL_SIZE, LARGE_FULL_SIZE,
                            LARGE_REDUCED_SIZE, LARGE_REDUCED_SIZE))
    parser.add_argument("--inventory_only", action="store_true",
                        help="only rebuild DIR/ops_all.txt from existing models")
    parser.add_argument("--crosscheck", action="store_true",
                        help="recompute existing goldens in this process and report the "
                             "differences (set TF_ENABLE_ONEDNN_OPTS=1 to compare kernels)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        run_worker(args.worker, args.out, args.full_size)
        return 0

    if args.only:
        names = args.only
    else:
        names = {"small": SMALL_MODELS, "large": LARGE_MODELS, "all": ALL_MODELS,
                 "production": PRODUCTION_MODELS}[args.set]

    if args.crosscheck:
        for name in names:
            run_crosscheck(name, args.out)
        return 0

    os.makedirs(args.out, exist_ok=True)
    if not args.inventory_only:
        for name in names:
            t0 = time.time()
            cmd = [sys.executable, os.path.abspath(__file__), "--out", args.out,
                   "--worker", name]
            if args.full_size:
                cmd.append("--full_size")
            env = dict(os.environ)
            # Keras/TF iterate over sets of names while building the graph;
            # a fixed hash seed makes node order (and saved_model.pb) stable.
            env["PYTHONHASHSEED"] = "0"
            rc = subprocess.call(cmd, env=env)
            if rc != 0:
                print("FAILED: model %s (exit code %d)" % (name, rc), file=sys.stderr)
                return 1
            print("[%s] done in %.1fs" % (name, time.time() - t0), flush=True)
    path, n = write_ops_all(args.out)
    print("wrote %s (%d op types)" % (path, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
