// Expectations from TensorFlow 2.21's tf.RaggedTensor.to_tensor.
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef ToTensor(DataType t, std::vector<std::string> types) {
  return NodeBuilder("RaggedTensorToTensor")
      .Attr("T", t)
      .Attr("Tindex", DT_INT64)
      .Attr("Tshape", DT_INT64)
      .Attr("num_row_partition_tensors", static_cast<int64_t>(types.size()))
      .Attr("row_partition_types", types)
      .Build();
}

TEST(RaggedTensorToTensorOpTest, ValueRowIdsWithAndWithoutShape) {
  const Tensor values = AsTensor<int64_t>({1, 2, 3, 4, 5}, {5});
  const Tensor rowids = AsTensor<int64_t>({0, 0, 2, 2, 2}, {5});
  const Tensor rows = AsTensor<int64_t>({4}, {});
  const Tensor fill = AsTensor<int64_t>({-1}, {});
  const auto node = ToTensor(DT_INT64, {"FIRST_DIM_SIZE", "VALUE_ROWIDS"});
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(node, {AsTensor<int64_t>({-1}, {}), values, fill, rows, rowids},
                             device),
                      AsTensor<int64_t>({1, 2, -1, -1, -1, -1, 3, 4, 5, -1, -1, -1}, {4, 3}));
    ExpectTensorEqual(RunOne(node, {AsTensor<int64_t>({-1, 2}, {2}), values, fill, rows, rowids},
                             device),
                      AsTensor<int64_t>({1, 2, -1, -1, 3, 4, -1, -1}, {4, 2}));
    ExpectTensorEqual(RunOne(node, {AsTensor<int64_t>({2, 4}, {2}), values, fill, rows, rowids},
                             device),
                      AsTensor<int64_t>({1, 2, -1, -1, -1, -1, -1, -1}, {2, 4}));
  }
}

TEST(RaggedTensorToTensorOpTest, RowSplitsWithInnerDimsAndStrings) {
  const auto node = ToTensor(DT_FLOAT, {"ROW_SPLITS"});
  ExpectTensorEqual(RunOne(node, {AsTensor<int64_t>({-1}, {}),
                                  AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2}),
                                  AsTensor<float>({0}, {}), AsTensor<int64_t>({0, 1, 1, 3}, {4})}),
                    AsTensor<float>({1, 2, 0, 0, 0, 0, 0, 0, 3, 4, 5, 6}, {3, 2, 2}));
  ExpectTensorEqual(RunOne(ToTensor(DT_STRING, {"ROW_SPLITS"}),
                           {AsTensor<int64_t>({-1}, {}), Strings({"a", "b", "c"}, {3}),
                            Strings({""}, {}), AsTensor<int64_t>({0, 2, 3}, {3})}),
                    Strings({"a", "b", "c", ""}, {2, 2}));
}

}  // namespace
}  // namespace testing
}  // namespace tensord
