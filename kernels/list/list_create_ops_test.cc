#include "gtest/gtest.h"
#include "kernels/list/list_test_util.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::GetList;
using testing::NodeBuilder;
using testing::RunKernel;

TEST(ListCreateOpsTest, ReserveMakesUnsetElementsOfTheGivenShape) {
  auto node = NodeBuilder("TensorListReserve").Attr("element_dtype", DT_FLOAT)
                  .Attr("shape_type", DT_INT32).Build();
  auto out = RunKernel(node, {AsTensor<int32_t>({-1, 3}, {2}), Tensor::Scalar<int32_t>(4)});
  ASSERT_TRUE(out.ok()) << out.status();
  const TensorList* list = GetList((*out)[0]);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(list->elements.size(), 4u);
  EXPECT_FALSE(list->elements[0].IsInitialized());
  EXPECT_EQ(list->element_shape.DebugString(), "[?,3]");
  EXPECT_FALSE(RunKernel(node, {AsTensor<int32_t>({3}, {1}), Tensor::Scalar<int32_t>(-2)}).ok());

  auto empty = RunKernel(NodeBuilder("EmptyTensorList").Attr("element_dtype", DT_FLOAT)
                             .Attr("shape_type", DT_INT32).Build(),
                         {Tensor::Scalar<int32_t>(-1), Tensor::Scalar<int32_t>(10)});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(GetList((*empty)[0])->elements.empty());
  EXPECT_TRUE(GetList((*empty)[0])->element_shape.unknown_rank);
}

TEST(ListCreateOpsTest, FromTensorSplitsRowsAndChecksTheShape) {
  auto node = NodeBuilder("TensorListFromTensor").Attr("element_dtype", DT_FLOAT)
                  .Attr("shape_type", DT_INT32).Build();
  auto out = RunKernel(node, {AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2}),
                              AsTensor<int32_t>({2}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  const TensorList* list = GetList((*out)[0]);
  ASSERT_EQ(list->elements.size(), 3u);
  testing::ExpectTensorEqual(list->elements[2], AsTensor<float>({5, 6}, {2}));
  auto bad = RunKernel(node, {AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2}),
                              AsTensor<int32_t>({3}, {1})});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
}

}  // namespace
}  // namespace tensord
