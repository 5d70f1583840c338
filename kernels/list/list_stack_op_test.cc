#include "gtest/gtest.h"
#include "kernels/list/list_test_util.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::FloatList;
using testing::NodeBuilder;
using testing::RunKernel;

TEST(ListStackOpTest, StacksElementsWithZerosForUnsetOnes) {
  auto node = NodeBuilder("TensorListStack").Attr("element_dtype", DT_FLOAT).Build();
  const Tensor list = FloatList({AsTensor<float>({1, 2}, {2}), Tensor(), AsTensor<float>({5, 6}, {2})});
  auto out = RunKernel(node, {list, AsTensor<int32_t>({-1}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  testing::ExpectTensorEqual((*out)[0], AsTensor<float>({1, 2, 0, 0, 5, 6}, {3, 2}));

  // An empty list stacks to [0, shape] when the shape is known, and fails otherwise.
  auto empty = RunKernel(node, {FloatList({}), AsTensor<int32_t>({4}, {1})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), TensorShape({0, 4}));
  EXPECT_FALSE(RunKernel(node, {FloatList({}), Tensor::Scalar<int32_t>(-1)}).ok());

  // Elements of different shapes, and a wrong num_elements, are errors.
  EXPECT_FALSE(RunKernel(node, {FloatList({AsTensor<float>({1}, {1}), AsTensor<float>({1, 2}, {2})}),
                                Tensor::Scalar<int32_t>(-1)})
                   .ok());
  auto counted = NodeBuilder("TensorListStack").Attr("element_dtype", DT_FLOAT)
                     .Attr("num_elements", 2).Build();
  EXPECT_FALSE(RunKernel(counted, {list, Tensor::Scalar<int32_t>(-1)}).ok());
}

}  // namespace
}  // namespace tensord
