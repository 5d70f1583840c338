"""Writes the seed corpora of the fuzz targets under corpus/<target>/seed-*.

Seeds are small valid inputs made with TensorFlow's own writers (tensors, examples, TFRecord
files) or taken from the project's committed test data (SavedModels, checkpoints), plus the
REST bodies and config files of TF Serving's documentation. Multi-part inputs use the
fuzz_util.h framing: a 4-byte little-endian length, then the part. Crash inputs found later are
kept beside the seeds as crash-* and are not touched here.

    python3 tests/fuzz/make_seeds.py
"""
import glob
import json
import os
import struct

import numpy as np
import tensorflow as tf
from tensorflow_serving.apis import predict_pb2, prediction_log_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def sized(part):
    return struct.pack("<I", len(part)) + part


def write(target, name, data):
    path = os.path.join(HERE, "corpus", target, "seed-" + name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def tensor_protos():
    protos = {
        "float_content": tf.make_tensor_proto(np.arange(6, dtype=np.float32).reshape(2, 3)),
        "float_val": tf.make_tensor_proto([1.5], dtype=tf.float32, shape=[4]),
        "int64": tf.make_tensor_proto(np.array([[1, -2], [3, 4]], np.int64)),
        "int8": tf.make_tensor_proto(np.array([1, -2, 3], np.int8)),
        "half": tf.make_tensor_proto(np.array([0.5, -1, 65504], np.float16)),
        "bfloat16": tf.make_tensor_proto(tf.constant([1.0, 2.5], tf.bfloat16)),
        "bool": tf.make_tensor_proto(np.array([True, False])),
        "string": tf.make_tensor_proto([b"a", b"", b"\xff\x00bytes"]),
        "scalar": tf.make_tensor_proto(3.25),
        "complex64": tf.make_tensor_proto(np.array([1 + 2j], np.complex64)),
        "empty": tf.make_tensor_proto(np.zeros((0, 4), np.float32)),
    }
    for name, proto in protos.items():
        write("tensor_proto_fuzzer", name, proto.SerializeToString())


def rest_bodies():
    # First byte: the signature (0 float x, 1 string s, 2 int64 ids, 3 several inputs).
    bodies = [
        (0, {"instances": [[1.0, 2.0], [3.0, 4.0]]}),
        (0, {"signature_name": "serving_default", "inputs": [[1, 2, 3]]}),
        (0, {"instances": [1.0, "NaN", -0.0]}),
        (1, {"instances": [{"b64": "aGVsbG8="}, "plain"]}),
        (1, {"inputs": {"s": [[{"b64": "AAE="}]]}}),
        (2, {"instances": [[1, 2], [3, 4]]}),
        (3, {"instances": [{"x": [1.0], "s": "a", "ids": [1, 2], "flag": True, "h": 0.5,
                            "d": 1e300}]}),
        (3, {"inputs": {"x": [[1.0]], "s": [{"b64": "eA=="}], "ids": 7, "flag": [False],
                        "h": [1.0], "d": [[2.0]]}}),
        (0, {"examples": [{"x": 1.0, "w": ["a", "b"], "ids": [1, 2]}],
             "context": {"c": {"b64": "eg=="}}}),
    ]
    for i, (signature, body) in enumerate(bodies):
        write("rest_request_fuzzer", "%d" % i, bytes([signature]) + json.dumps(body).encode())
    # Bare number lists, for the number-list fast path (the first byte also picks its dtype).
    lists = [
        (0, [[[0.123456789012345678, -1e-3], [2.5e10, 0]], [[1, 2], [3, 4]]]),
        (3, [[0, 255], [17, 1]]),
        (4, [-9223372036854775808, 9223372036854775807]),
    ]
    for i, (signature, value) in enumerate(lists):
        write("rest_request_fuzzer", "list%d" % i, bytes([signature]) + json.dumps(value).encode())


def examples():
    def example(features):
        ex = tf.train.Example()
        for key, values in features.items():
            f = ex.features.feature[key]
            if isinstance(values[0], float):
                f.float_list.value.extend(values)
            elif isinstance(values[0], int):
                f.int64_list.value.extend(values)
            else:
                f.bytes_list.value.extend(values)
        return ex.SerializeToString()
    ex0 = example({"x": [1.5], "v": [1.0, 2.0, 3.0, 4.0], "ids": [3, 4], "w": [b"a"],
                   "r": [b"p", b"q"]})
    ex1 = example({"ids": [7], "w": [b"bb", b"c"], "v": [5.0, 6.0]})
    write("example_fuzzer", "two", sized(ex0) + sized(ex1))
    write("example_fuzzer", "empty", sized(example({})))


def saved_models():
    for model in ("keras_mlp", "tf1_linear", "tf1_parse_example", "tf2_control_flow"):
        with open(os.path.join(REPO, "tests", "testdata", model, "1", "saved_model.pb"),
                  "rb") as f:
            write("saved_model_fuzzer", model, f.read())


def bundles():
    testdata = os.path.join(REPO, "runtime", "saved_model", "testdata")
    for index in sorted(glob.glob(os.path.join(testdata, "*.index"))):
        prefix = index[:-len(".index")]
        data_path = prefix + ".data-00000-of-00001"
        if not os.path.exists(data_path):
            continue  # sharded bundles need shards the target does not write
        with open(index, "rb") as f, open(data_path, "rb") as d:
            write("tensor_bundle_fuzzer", os.path.basename(prefix), sized(f.read()) + d.read())


def warmup_records():
    path = os.path.join(HERE, "warmup.tmp")
    with tf.io.TFRecordWriter(path) as writer:
        for rows in (1, 2):
            req = predict_pb2.PredictRequest()
            req.model_spec.name = "mlp"
            req.inputs["features"].CopyFrom(
                tf.make_tensor_proto(np.ones((rows, 16), np.float32)))
            log = prediction_log_pb2.PredictionLog()
            log.predict_log.request.CopyFrom(req)
            writer.write(log.SerializeToString())
    with open(path, "rb") as f:
        write("tfrecord_fuzzer", "predict_logs", f.read())
    os.remove(path)


def configs():
    write("model_config_fuzzer", "two_models", """model_config_list {
  config {
    name: 'mlp'
    base_path: '/models/mlp'
    model_platform: 'tensorflow'
    model_version_policy { specific { versions: 1 versions: 2 } }
    version_labels { key: 'stable' value: 1 }
  }
  config { name: 'cnn' base_path: '/models/cnn' model_platform: 'tensorflow'
           model_version_policy { latest { num_versions: 2 } } }
}
""")
    write("model_config_fuzzer", "all_versions", """model_config_list {
  config { name: 'a' base_path: '/m/a' model_platform: 'tensorflow'
           model_version_policy { all {} } }
}
""")
    write("batching_parameters_fuzzer", "padded", """max_batch_size { value: 16 }
batch_timeout_micros { value: 2000 }
num_batch_threads { value: 4 }
max_enqueued_batches { value: 100 }
allowed_batch_sizes: 4
allowed_batch_sizes: 8
allowed_batch_sizes: 16
pad_variable_length_inputs: true
""")
    write("batching_parameters_fuzzer", "splitting", """max_batch_size { value: 64 }
enable_large_batch_splitting { value: true }
max_execution_batch_size { value: 32 }
""")


if __name__ == "__main__":
    tensor_protos()
    rest_bodies()
    examples()
    saved_models()
    bundles()
    warmup_records()
    configs()
