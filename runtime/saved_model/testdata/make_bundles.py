#!/usr/bin/env python3
"""Writes the tensor bundles that tensor_bundle_test.cc reads, using TensorFlow itself.

  python3 runtime/saved_model/testdata/make_bundles.py

Outputs (committed, a few KiB in all) in this directory:
  dtypes.{index,data-00000-of-00001}   one shard, one key per dtype, strings, empty/scalar tensors
  sharded.{index,data-0000K-of-00002}  two shards, written by two SaveV2 calls + MergeV2Checkpoints
  object.{index,data-00000-of-00001}   a TF2 object-based checkpoint (tf.train.Checkpoint)
  golden.txt                           every tensor of dtypes/sharded: key, dtype, dims, bytes

golden.txt has one line per tensor: `bundle key dtype dims hex`, dtype = the DataType enum name,
dims comma-separated ("-" for a scalar), hex = the little-endian element bytes for numbers, or for
strings the hex of each element joined with ',' ("-" when there are no bytes at all).
"""
import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import types_pb2

HERE = os.path.dirname(os.path.abspath(__file__))

# Keys are chosen to share prefixes (exercises the index's prefix compression).
DTYPES_TENSORS = {
    "float32": np.array([[0.5, -1.25, 3.0], [1e-8, 65504.0, -0.0]], np.float32),
    "float32/big": (np.arange(1000, dtype=np.float32) * 0.25 - 7.0),
    "float32/empty": np.zeros([0, 3], np.float32),
    "float32/scalar": np.float32(2.5),
    "float64": np.array([np.pi, -1e300, 5e-324], np.float64),
    "half": np.array([1.5, -2.25, 65504.0, 0.0001], np.float16),
    "bfloat16": tf.constant([1.0, -3.5, 256.0], tf.bfloat16),
    "int8": np.array([-128, 0, 127], np.int8),
    "int16": np.array([-32768, 1, 32767], np.int16),
    "int32": np.array([[1, -2], [2147483647, -2147483648]], np.int32),
    "int64": np.array([1 << 40, -1, -(1 << 62)], np.int64),
    "uint8": np.array([0, 200, 255], np.uint8),
    "uint16": np.array([65535, 7], np.uint16),
    "uint32": np.array([4294967295, 3], np.uint32),
    "uint64": np.array([18446744073709551615, 9], np.uint64),
    "bool": np.array([True, False, True, True]),
    "complex64": np.array([1 + 2j, -0.5 - 4j], np.complex64),
    "string": np.array([b"", b"hello", b"x" * 200, b"\x00\xff"], object),
    "string/scalar": np.array(b"tensord", object),
    "string/matrix": np.array([[b"a", b"bc"], [b"def", b"ghij"]], object),
}

SHARD_TENSORS = [
    {"w0": np.array([1.0, 2.0], np.float32), "s0": np.array([b"shard", b"zero"], object)},
    {"w1": np.array([10, 20, 30], np.int64), "z": np.array([False, True])},
]


def save(prefix, tensors):
    names = sorted(tensors)
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                      tensors=[tf.constant(tensors[n]) for n in names])


def golden_line(bundle, key, value):
    t = tf.constant(value)
    dims = ",".join(str(d) for d in t.shape) or "-"
    if t.dtype == tf.string:
        payload = ",".join(s.hex() for s in np.asarray(t.numpy(), object).reshape(-1))
    elif t.dtype == tf.bfloat16:
        payload = tf.bitcast(t, tf.uint16).numpy().astype("<u2").tobytes().hex()
    else:
        payload = t.numpy().astype(t.dtype.as_numpy_dtype().dtype.newbyteorder("<")).tobytes().hex()
    dtype = types_pb2.DataType.Name(t.dtype.as_datatype_enum)
    return f"{bundle} {key} {dtype} {dims} {payload or '-'}\n"


def main():
    for f in os.listdir(HERE):
        if f.split(".")[0] in ("dtypes", "sharded", "object"):
            os.remove(os.path.join(HERE, f))

    save(os.path.join(HERE, "dtypes"), DTYPES_TENSORS)

    tmp = tempfile.mkdtemp()
    parts = []
    for i, tensors in enumerate(SHARD_TENSORS):
        part = os.path.join(tmp, "part-%05d-of-%05d" % (i, len(SHARD_TENSORS)))
        save(part, tensors)
        parts.append(part)
    tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=parts,
                                  destination_prefix=os.path.join(HERE, "sharded"),
                                  delete_old_dirs=True)
    shutil.rmtree(tmp, ignore_errors=True)

    ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0, 3.0]), step=tf.Variable(7, dtype=tf.int64))
    ckpt.write(os.path.join(HERE, "object"))

    with open(os.path.join(HERE, "golden.txt"), "w") as out:
        for key in sorted(DTYPES_TENSORS):
            out.write(golden_line("dtypes", key, DTYPES_TENSORS[key]))
        for tensors in SHARD_TENSORS:
            for key in sorted(tensors):
                out.write(golden_line("sharded", key, tensors[key]))


if __name__ == "__main__":
    main()
