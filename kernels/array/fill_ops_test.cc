#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

TEST(FillOpTest, FillsEveryDtype) {
  auto node = [](DataType t, DataType index) {
    return NodeBuilder("Fill").Attr("T", t).Attr("index_type", index).Build();
  };
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(
        RunOne(node(DT_FLOAT, DT_INT32), {Int32s({2, 3}), AsTensor<float>({1.5f}, {})}, device),
        AsTensor<float>(std::vector<float>(6, 1.5f), {2, 3}));
    ExpectTensorEqual(RunOne(node(DT_STRING, DT_INT64), {Int64s({2}), Strings({"ab"}, {})}, device),
                      Strings({"ab", "ab"}, {2}));
    ExpectTensorEqual(
        RunOne(node(DT_INT8, DT_INT32), {Int32s({}), AsTensor<int8_t>({-3}, {})}, device),
        AsTensor<int8_t>({-3}, {}));
    ExpectTensorEqual(
        RunOne(node(DT_BOOL, DT_INT32), {Int32s({0, 4}), AsTensor<bool>({true}, {})}, device),
        AsTensor<bool>({}, {0, 4}));
  }
}

TEST(FillOpTest, Errors) {
  auto node = NodeBuilder("Fill").Attr("T", DT_FLOAT).Attr("index_type", DT_INT32).Build();
  ExpectInvalidArgument(node, {Int32s({2, -1}), AsTensor<float>({1}, {})},
                        "Dimension -1 must be >= 0");
  ExpectInvalidArgument(node, {AsTensor<int32_t>({2}, {1, 1}), AsTensor<float>({1}, {})},
                        "dims must represent a vector, got shape [1,1]");
  ExpectInvalidArgument(node, {Int32s({2}), AsTensor<float>({1}, {1})},
                        "value must be a scalar, got shape [1]");
}

TEST(FillLikeOpsTest, ZerosLikeAndOnesLike) {
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(NodeBuilder("ZerosLike").Attr("T", DT_FLOAT).Build(),
                             {AsTensor<float>({1, 2, 3}, {3})}, device),
                      AsTensor<float>({0, 0, 0}, {3}));
    ExpectTensorEqual(RunOne(NodeBuilder("ZerosLike").Attr("T", DT_STRING).Build(),
                             {Strings({"x", "y"}, {1, 2})}, device),
                      Strings({"", ""}, {1, 2}));
    ExpectTensorEqual(RunOne(NodeBuilder("OnesLike").Attr("T", DT_INT64).Build(),
                             {Iota<int64_t>({2, 2}, 5)}, device),
                      AsTensor<int64_t>({1, 1, 1, 1}, {2, 2}));
    ExpectTensorEqual(RunOne(NodeBuilder("OnesLike").Attr("T", DT_BOOL).Build(),
                             {AsTensor<bool>({false, false}, {2})}, device),
                      AsTensor<bool>({true, true}, {2}));
    ExpectTensorEqual(RunOne(NodeBuilder("OnesLike").Attr("T", DT_COMPLEX64).Build(),
                             {AsTensor<std::complex<float>>({{3, 4}}, {1})}, device),
                      AsTensor<std::complex<float>>({{1, 0}}, {1}));
    ExpectTensorEqual(RunOne(NodeBuilder("OnesLike").Attr("T", DT_HALF).Build(),
                             {Iota<Eigen::half>({0})}, device),
                      Iota<Eigen::half>({0}));
  }
}

}  // namespace
}  // namespace testing
}  // namespace tensord
