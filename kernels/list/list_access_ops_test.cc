#include "gtest/gtest.h"
#include "kernels/list/list_test_util.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::FloatList;
using testing::GetList;
using testing::NodeBuilder;
using testing::RunKernel;

PartialShape Dims(std::vector<int64_t> dims) {
  PartialShape shape;
  shape.unknown_rank = false;
  shape.dims = std::move(dims);
  return shape;
}

TEST(ListAccessOpsTest, GetItemReadsSetElementsAndZerosForUnsetOnes) {
  const Tensor list = FloatList({AsTensor<float>({1, 2}, {2}), Tensor()}, Dims({-1}));
  auto node = NodeBuilder("TensorListGetItem").Attr("element_dtype", DT_FLOAT).Build();
  auto first = RunKernel(node, {list, Tensor::Scalar<int32_t>(0), AsTensor<int32_t>({-1}, {1})});
  ASSERT_TRUE(first.ok()) << first.status();
  testing::ExpectTensorEqual((*first)[0], AsTensor<float>({1, 2}, {2}));
  // An unset element needs a fully defined shape, here from the element_shape input.
  auto zeros = RunKernel(node, {list, Tensor::Scalar<int32_t>(1), AsTensor<int32_t>({3}, {1})});
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  testing::ExpectTensorEqual((*zeros)[0], AsTensor<float>({0, 0, 0}, {3}));
  EXPECT_FALSE(
      RunKernel(node, {list, Tensor::Scalar<int32_t>(1), AsTensor<int32_t>({-1}, {1})}).ok());
  EXPECT_FALSE(
      RunKernel(node, {list, Tensor::Scalar<int32_t>(2), AsTensor<int32_t>({-1}, {1})}).ok());
}

TEST(ListAccessOpsTest, SetItemMakesANewListAndLeavesTheInputAlone) {
  const Tensor list = FloatList({Tensor(), Tensor()}, Dims({2}));
  auto set = NodeBuilder("TensorListSetItem").Attr("element_dtype", DT_FLOAT).Build();
  auto out = RunKernel(set, {list, Tensor::Scalar<int32_t>(1), AsTensor<float>({7, 8}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  testing::ExpectTensorEqual(GetList((*out)[0])->elements[1], AsTensor<float>({7, 8}, {2}));
  EXPECT_FALSE(GetList(list)->elements[1].IsInitialized());
  // Wrong shape, wrong dtype, out of range without resizing: errors.
  EXPECT_FALSE(RunKernel(set, {list, Tensor::Scalar<int32_t>(0), AsTensor<float>({1}, {1})}).ok());
  EXPECT_FALSE(
      RunKernel(set, {list, Tensor::Scalar<int32_t>(0), AsTensor<int32_t>({1, 2}, {2})}).ok());
  EXPECT_FALSE(
      RunKernel(set, {list, Tensor::Scalar<int32_t>(5), AsTensor<float>({1, 2}, {2})}).ok());
  auto resize = NodeBuilder("TensorListSetItem").Attr("element_dtype", DT_FLOAT)
                    .Attr("resize_if_index_out_of_bounds", true).Build();
  auto grown = RunKernel(resize, {list, Tensor::Scalar<int32_t>(4), AsTensor<float>({1, 2}, {2})});
  ASSERT_TRUE(grown.ok()) << grown.status();
  EXPECT_EQ(GetList((*grown)[0])->elements.size(), 5u);
}

TEST(ListAccessOpsTest, PushBackLengthAndElementShape) {
  const Tensor list = FloatList({AsTensor<float>({1, 2}, {2})}, Dims({-1}));
  auto pushed = RunKernel(NodeBuilder("TensorListPushBack").Attr("element_dtype", DT_FLOAT).Build(),
                          {list, AsTensor<float>({3, 4, 5}, {3})});
  ASSERT_TRUE(pushed.ok()) << pushed.status();
  auto length = RunKernel(NodeBuilder("TensorListLength").Build(), {(*pushed)[0]});
  ASSERT_TRUE(length.ok()) << length.status();
  testing::ExpectTensorEqual((*length)[0], Tensor::Scalar<int32_t>(2));
  auto shape = RunKernel(NodeBuilder("TensorListElementShape").Attr("shape_type", DT_INT64).Build(),
                         {list});
  ASSERT_TRUE(shape.ok()) << shape.status();
  testing::ExpectTensorEqual((*shape)[0], AsTensor<int64_t>({-1}, {1}));
  auto unknown = RunKernel(NodeBuilder("TensorListElementShape").Attr("shape_type", DT_INT32).Build(),
                           {FloatList({})});
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  testing::ExpectTensorEqual((*unknown)[0], Tensor::Scalar<int32_t>(-1));
  // A non-list input is an error naming the node, not a crash.
  EXPECT_EQ(RunKernel(NodeBuilder("TensorListLength").Build(), {Tensor::Scalar<float>(1)})
                .status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensord
