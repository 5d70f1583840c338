#include "kernels/control_flow/predicate.h"

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/framework/resource.h"

namespace tensord {
namespace {

using testing::AsTensor;

TEST(PredicateTest, FollowsTensorFlowsTruthRules) {
  EXPECT_TRUE(*PredicateValue(Tensor::Scalar<bool>(true)));
  EXPECT_FALSE(*PredicateValue(Tensor::Scalar<bool>(false)));
  EXPECT_TRUE(*PredicateValue(Tensor::Scalar<int64_t>(-3)));
  EXPECT_FALSE(*PredicateValue(Tensor::Scalar<double>(0.0)));
  EXPECT_TRUE(*PredicateValue(Tensor::Scalar<std::string>("no")));
  EXPECT_FALSE(*PredicateValue(Tensor::Scalar<std::string>("")));
  // Non-scalars: true when they have elements, whatever the values.
  EXPECT_TRUE(*PredicateValue(AsTensor<bool>({false}, {1})));
  EXPECT_FALSE(*PredicateValue(AsTensor<float>({}, {2, 0})));
  EXPECT_EQ(PredicateValue(Tensor(DT_RESOURCE, TensorShape{})).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensord
