// Multi-dim expectations were produced with TensorFlow 2.21 on p = tf.reshape(tf.range(24),
// [2, 3, 4]).
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef GatherV2(DataType t, int batch_dims = 0, DataType tindices = DT_INT32,
                               DataType taxis = DT_INT32) {
  return NodeBuilder("GatherV2")
      .Attr("Tparams", t)
      .Attr("Tindices", tindices)
      .Attr("Taxis", taxis)
      .Attr("batch_dims", batch_dims)
      .Build();
}
Tensor Axis(int32_t axis) { return AsTensor<int32_t>({axis}, {}); }

TEST(GatherV2OpTest, GathersAlongAxis) {
  const Tensor p = Iota<int32_t>({2, 3, 4});
  for (DeviceType device : TestDevices()) {
    // An embedding lookup: rows of a matrix.
    ExpectTensorEqual(
        RunOne(GatherV2(DT_FLOAT), {Iota<float>({5, 2}), Int32s({4, 0, 4}), Axis(0)}, device),
        AsTensor<float>({8, 9, 0, 1, 8, 9}, {3, 2}));
    // tf.gather(p, [[2, 0], [1, 1]], axis=1).
    ExpectTensorEqual(
        RunOne(GatherV2(DT_INT32), {p, AsTensor<int32_t>({2, 0, 1, 1}, {2, 2}), Axis(1)}, device),
        AsTensor<int32_t>({8,  9,  10, 11, 0,  1,  2,  3,  4,  5,  6,  7,  4,  5,  6,  7,
                           20, 21, 22, 23, 12, 13, 14, 15, 16, 17, 18, 19, 16, 17, 18, 19},
                          {2, 2, 2, 4}));
    ExpectTensorEqual(RunOne(GatherV2(DT_INT32, 0, DT_INT64, DT_INT64),
                             {p, AsTensor<int64_t>({3}, {}), AsTensor<int64_t>({-1}, {})}, device),
                      AsTensor<int32_t>({3, 7, 11, 15, 19, 23}, {2, 3}));
  }
  ExpectTensorEqual(
      RunOne(GatherV2(DT_STRING), {Strings({"a", "b", "c"}, {3}), Int32s({2, 2, 0}), Axis(0)}),
      Strings({"c", "c", "a"}, {3}));
  ExpectTensorEqual(RunOne(GatherV2(DT_FLOAT), {Iota<float>({5, 2}), Int32s({}), Axis(0)}),
                    Iota<float>({0, 2}));
}

TEST(GatherV2OpTest, BatchDims) {
  const Tensor p = Iota<int32_t>({2, 3, 4});
  const Tensor idx = AsTensor<int32_t>({2, 0, 1, 1}, {2, 2});
  // tf.gather(p, [[2, 0], [1, 1]], axis=1, batch_dims=1).
  ExpectTensorEqual(
      RunOne(GatherV2(DT_INT32, 1), {p, idx, Axis(1)}),
      AsTensor<int32_t>({8, 9, 10, 11, 0, 1, 2, 3, 16, 17, 18, 19, 16, 17, 18, 19}, {2, 2, 4}));
  // tf.gather(p, [[3, 0], [1, 2]], axis=2, batch_dims=1).
  ExpectTensorEqual(
      RunOne(GatherV2(DT_INT32, -1), {p, AsTensor<int32_t>({3, 0, 1, 2}, {2, 2}), Axis(2)}),
      AsTensor<int32_t>({3, 0, 7, 4, 11, 8, 13, 14, 17, 18, 21, 22}, {2, 3, 2}));
}

TEST(GatherV2OpTest, Errors) {
  ExpectInvalidArgument(GatherV2(DT_FLOAT), {Iota<float>({5}), Int32s({0, 1, 2, 7}), Axis(0)},
                        "indices[3] = 7 is not in [0, 5)");
  ExpectInvalidArgument(GatherV2(DT_FLOAT),
                        {Iota<float>({5, 2}), AsTensor<int32_t>({0, 1, 2, -1}, {2, 2}), Axis(0)},
                        "indices[1,1] = -1 is not in [0, 5)");
  ExpectInvalidArgument(GatherV2(DT_INT32),
                        {Int32s({1, 2, 3}), AsTensor<int32_t>({5}, {}), Axis(0)},
                        "indices = 5 is not in [0, 3)");
  const Tensor p = Iota<float>({2, 3});
  ExpectInvalidArgument(GatherV2(DT_FLOAT), {p, Int32s({0}), Axis(2)},
                        "Expected axis in the range [-2, 2), but got 2");
  ExpectInvalidArgument(GatherV2(DT_FLOAT), {p, Int32s({0}), Int32s({0, 1})},
                        "axis must be scalar");
  ExpectInvalidArgument(GatherV2(DT_FLOAT, 1), {p, AsTensor<int32_t>({0}, {1, 1}), Axis(1)},
                        "params.shape[0]: 2 should be equal to indices.shape[0]: 1");
  ExpectInvalidArgument(GatherV2(DT_FLOAT, 1), {p, AsTensor<int32_t>({0, 1}, {2, 1}), Axis(0)},
                        "batch_dims (1) must be less than or equal to axis (0).");
  ExpectInvalidArgument(GatherV2(DT_FLOAT, -3), {p, AsTensor<int32_t>({0}, {1, 1}), Axis(1)},
                        "Expected batch_dims in the range [-2, 2], but got -3");
  ExpectInvalidArgument(GatherV2(DT_FLOAT), {Iota<float>({}), Int32s({0}), Axis(0)},
                        "params must be at least 1 dimensional");
}

TEST(GatherOpTest, Tf1GatherUsesAxisZero) {
  auto node = NodeBuilder("Gather")
                  .Attr("Tparams", DT_INT32)
                  .Attr("Tindices", DT_INT64)
                  .Attr("validate_indices", true)
                  .Build();
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(
        RunOne(node, {Iota<int32_t>({3, 2}), AsTensor<int64_t>({2, 1}, {1, 2})}, device),
        AsTensor<int32_t>({4, 5, 2, 3}, {1, 2, 2}));
  }
}

::tensorflow::NodeDef GatherNd(DataType t, DataType tindices = DT_INT32) {
  return NodeBuilder("GatherNd")
      .Attr("Tparams", t)
      .Attr("Tindices", tindices)
      .Attr("bad_indices_policy", "")
      .Build();
}

TEST(GatherNdOpTest, GathersSlicesAndElements) {
  const Tensor p = Iota<int32_t>({2, 3, 4});
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(
        RunOne(GatherNd(DT_INT32), {p, AsTensor<int32_t>({1, 2, 0, 0}, {2, 2})}, device),
        AsTensor<int32_t>({20, 21, 22, 23, 0, 1, 2, 3}, {2, 4}));
    ExpectTensorEqual(RunOne(GatherNd(DT_INT32, DT_INT64),
                             {p, AsTensor<int64_t>({1, 2, 3, 0, 1, 1}, {2, 3})}, device),
                      Int32s({23, 5}));
    ExpectTensorEqual(RunOne(GatherNd(DT_INT32), {p, AsTensor<int32_t>({1, 0}, {1, 2, 1})}, device),
                      AsTensor<int32_t>({12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                                         0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11},
                                        {1, 2, 3, 4}));
  }
  // An empty innermost index selects the whole of params for each row.
  ExpectTensorEqual(RunOne(GatherNd(DT_INT32), {Iota<int32_t>({3, 2}), Iota<int32_t>({2, 0})}),
                    AsTensor<int32_t>({0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}, {2, 3, 2}));
  ExpectTensorEqual(RunOne(GatherNd(DT_STRING), {Strings({"a", "b", "c", "d"}, {2, 2}),
                                                 AsTensor<int32_t>({1, 0, 0, 1}, {2, 2})}),
                    Strings({"c", "b"}, {2}));
}

TEST(GatherNdOpTest, Errors) {
  ExpectInvalidArgument(GatherNd(DT_FLOAT),
                        {Iota<float>({5, 2}), AsTensor<int32_t>({0, 1, 2, 5}, {1, 2, 2})},
                        "indices[0,1] = [2, 5] does not index into param shape [5,2]");
  ExpectInvalidArgument(GatherNd(DT_FLOAT),
                        {Iota<float>({3, 2}), AsTensor<int32_t>({1, -1}, {1, 2})},
                        "indices[0] = [1, -1] does not index into param shape [3,2]");
  ExpectInvalidArgument(GatherNd(DT_FLOAT),
                        {Iota<float>({2, 3}), AsTensor<int32_t>({0, 1, 1}, {1, 3})},
                        "index innermost dimension length must be <= params rank; saw: 3 vs. 2");
  ExpectInvalidArgument(GatherNd(DT_FLOAT), {Iota<float>({2, 3}), AsTensor<int32_t>({1}, {})},
                        "indices must be at least a vector");
  ExpectInvalidArgument(GatherNd(DT_FLOAT), {Iota<float>({}), Iota<int32_t>({2, 0})},
                        "params must be at least a vector");
  ExpectInvalidArgument(GatherNd(DT_FLOAT), {Iota<float>({0, 3}), AsTensor<int32_t>({0}, {1, 1})},
                        "Requested more than 0 entries, but params is empty.");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
