#include "kernels/math/cwise_util.h"

#include <vector>

#include "gtest/gtest.h"
#include "runtime/framework/device.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace math {
namespace {

using Dims = std::vector<int64_t>;

TEST(BroadcastPlanTest, SameShapeCollapsesToOneDim) {
  auto plan = BroadcastPlan::Make({TensorShape{2, 3, 4}, TensorShape{2, 3, 4}});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->output_shape(), (TensorShape{2, 3, 4}));
  EXPECT_EQ(plan->dims(), Dims({24}));
  EXPECT_EQ(plan->inner_stride(0), 1);
  EXPECT_EQ(plan->inner_stride(1), 1);
}

TEST(BroadcastPlanTest, ScalarOperandHasStrideZero) {
  auto plan = BroadcastPlan::Make({TensorShape{5, 6}, TensorShape{}});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->dims(), Dims({30}));
  EXPECT_EQ(plan->inner_stride(0), 1);
  EXPECT_EQ(plan->inner_stride(1), 0);
}

TEST(BroadcastPlanTest, RowAndColumnBroadcasts) {
  auto plan = BroadcastPlan::Make({TensorShape{2, 3, 4}, TensorShape{4}});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->dims(), Dims({6, 4}));
  EXPECT_EQ(plan->stride(0, 0), 4);
  EXPECT_EQ(plan->stride(1, 0), 0);
  EXPECT_EQ(plan->stride(1, 1), 1);

  plan = BroadcastPlan::Make({TensorShape{2, 1}, TensorShape{1, 3}});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->output_shape(), (TensorShape{2, 3}));
  EXPECT_EQ(plan->dims(), Dims({2, 3}));
  EXPECT_EQ(plan->stride(0, 0), 1);
  EXPECT_EQ(plan->stride(0, 1), 0);
  EXPECT_EQ(plan->stride(1, 0), 0);
  EXPECT_EQ(plan->stride(1, 1), 1);
}

TEST(BroadcastPlanTest, ThreeOperandsAndSizeOneDims) {
  auto plan = BroadcastPlan::Make({TensorShape{1, 5, 1}, TensorShape{3, 5, 1}, TensorShape{}});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->output_shape(), (TensorShape{3, 5, 1}));
  EXPECT_EQ(plan->dims(), Dims({3, 5}));
  EXPECT_EQ(plan->stride(0, 0), 0);
  EXPECT_EQ(plan->stride(1, 0), 5);
  EXPECT_EQ(plan->stride(2, 1), 0);
}

TEST(BroadcastPlanTest, ScalarsAndEmpty) {
  auto plan = BroadcastPlan::Make({TensorShape{}, TensorShape{}});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->dims(), Dims({1}));
  EXPECT_EQ(plan->num_elements(), 1);

  plan = BroadcastPlan::Make({TensorShape{0, 3}, TensorShape{1, 3}});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->output_shape(), (TensorShape{0, 3}));
  EXPECT_EQ(plan->num_elements(), 0);
}

TEST(BroadcastPlanTest, Incompatible) {
  EXPECT_FALSE(BroadcastPlan::Make({TensorShape{2, 3}, TensorShape{4}}).has_value());
  EXPECT_FALSE(BroadcastPlan::Make({TensorShape{0}, TensorShape{2}}).has_value());
  EXPECT_EQ(IncompatibleShapesMessage(TensorShape{2, 3}, TensorShape{4}),
            "Incompatible shapes: [2,3] vs. [4]");
}

// Every output element is visited exactly once with the right operand offsets, whatever the
// block boundaries the thread pool picks.
TEST(ForEachRunTest, VisitsEveryElementWithCorrectOffsets) {
  CpuDevice cpu(CpuDevice::Options{4});
  const TensorShape a{7, 1, 5, 1};
  const TensorShape b{3, 1, 9};
  auto plan = BroadcastPlan::Make({a, b});
  ASSERT_TRUE(plan.has_value());
  const int64_t n = plan->num_elements();
  std::vector<int> visits(n, 0);
  std::vector<int64_t> a_index(n), b_index(n);
  ForEachRun<2>(cpu.eigen_device(), *plan, Eigen::TensorOpCost(1e4, 1e4, 1e4),
                [&](const std::array<int64_t, 2>& off, int64_t begin, int64_t len) {
                  for (int64_t i = 0; i < len; ++i) {
                    ++visits[begin + i];
                    a_index[begin + i] = off[0] + i * plan->inner_stride(0);
                    b_index[begin + i] = off[1] + i * plan->inner_stride(1);
                  }
                });
  // Output [7, 3, 5, 9]; a = [7,1,5,1] and b = [3,1,9].
  int64_t flat = 0;
  for (int i0 = 0; i0 < 7; ++i0) {
    for (int i1 = 0; i1 < 3; ++i1) {
      for (int i2 = 0; i2 < 5; ++i2) {
        for (int i3 = 0; i3 < 9; ++i3, ++flat) {
          ASSERT_EQ(visits[flat], 1);
          ASSERT_EQ(a_index[flat], i0 * 5 + i2);
          ASSERT_EQ(b_index[flat], i1 * 9 + i3);
        }
      }
    }
  }
}

}  // namespace
}  // namespace math
}  // namespace tensord
