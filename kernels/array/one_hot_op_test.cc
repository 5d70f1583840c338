// Expectations from TensorFlow 2.21: tf.one_hot([[0, 2], [-1, 1]], 3, on_value=5,
// off_value=-1, axis=...).
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef OneHot(DataType t, int axis, DataType ti = DT_INT32) {
  return NodeBuilder("OneHot").Attr("T", t).Attr("TI", ti).Attr("axis", axis).Build();
}
Tensor Depth(int32_t d) { return AsTensor<int32_t>({d}, {}); }

TEST(OneHotOpTest, EveryAxis) {
  const Tensor idx = AsTensor<int32_t>({0, 2, -1, 1}, {2, 2});
  const Tensor on = AsTensor<int32_t>({5}, {});
  const Tensor off = AsTensor<int32_t>({-1}, {});
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(OneHot(DT_INT32, 0), {idx, Depth(3), on, off}, device),
                      AsTensor<int32_t>({5, -1, -1, -1, -1, -1, -1, 5, -1, 5, -1, -1}, {3, 2, 2}));
    ExpectTensorEqual(RunOne(OneHot(DT_INT32, 1), {idx, Depth(3), on, off}, device),
                      AsTensor<int32_t>({5, -1, -1, -1, -1, 5, -1, -1, -1, 5, -1, -1}, {2, 3, 2}));
    ExpectTensorEqual(RunOne(OneHot(DT_INT32, -1), {idx, Depth(3), on, off}, device),
                      AsTensor<int32_t>({5, -1, -1, -1, -1, 5, -1, -1, -1, -1, 5, -1}, {2, 2, 3}));
  }
}

TEST(OneHotOpTest, IndexAndValueTypes) {
  ExpectTensorEqual(
      RunOne(OneHot(DT_FLOAT, -1, DT_UINT8), {AsTensor<uint8_t>({1, 7}, {2}), Depth(2),
                                              AsTensor<float>({1}, {}), AsTensor<float>({0}, {})}),
      AsTensor<float>({0, 1, 0, 0}, {2, 2}));
  ExpectTensorEqual(
      RunOne(OneHot(DT_STRING, -1, DT_INT64),
             {AsTensor<int64_t>({2}, {}), Depth(3), Strings({"y"}, {}), Strings({"n"}, {})}),
      Strings({"n", "n", "y"}, {3}));
  ExpectTensorEqual(RunOne(OneHot(DT_BOOL, -1, DT_INT8),
                           {AsTensor<int8_t>({0, 1}, {2}), Depth(0), AsTensor<bool>({true}, {}),
                            AsTensor<bool>({false}, {})}),
                    AsTensor<bool>({}, {2, 0}));
}

TEST(OneHotOpTest, Errors) {
  const Tensor idx = Int32s({1});
  const Tensor on = AsTensor<float>({1}, {});
  const Tensor off = AsTensor<float>({0}, {});
  ExpectInvalidArgument(OneHot(DT_FLOAT, -1), {idx, Depth(-1), on, off},
                        "depth must be non-negative, got: -1");
  ExpectInvalidArgument(OneHot(DT_FLOAT, -1), {idx, Int32s({3}), on, off},
                        "depth must be a scalar, but got: [1]");
  ExpectInvalidArgument(OneHot(DT_FLOAT, -1), {idx, Depth(3), AsTensor<float>({1}, {1}), off},
                        "on_value must be a scalar, but got: [1]");
  ExpectInvalidArgument(OneHot(DT_FLOAT, 2), {idx, Depth(3), on, off},
                        "Expected axis to be -1 or between [0, 2).  But received: 2");
  ExpectInvalidArgument(OneHot(DT_FLOAT, -2), {idx, Depth(3), on, off},
                        "Expected axis to be -1 or between [0, 2).  But received: -2");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
