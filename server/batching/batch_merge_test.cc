#include "server/batching/batch_merge.h"

#include <gtest/gtest.h>

namespace tensord {
namespace {

template <typename T>
Tensor Make(TensorShape shape, std::vector<T> values) {
  Tensor t(DataTypeToEnum<T>::value, std::move(shape));
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

TEST(BatchMergeTest, ConcatenatesAndPadsWithTheFirstRow) {
  TensorMap a{{"x", Make<float>({1, 2}, {1, 2})}, {"s", Make<std::string>({1}, {"a"})}};
  TensorMap b{{"x", Make<float>({2, 2}, {3, 4, 5, 6})}, {"s", Make<std::string>({2}, {"b", "c"})}};
  ASSERT_EQ(*BatchRows(b), 2);
  EXPECT_TRUE(SameInnerShapes(a, b));
  auto merged = MergeInputs({&a, &b}, 4, false, 0);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->at("x").shape(), TensorShape({4, 2}));
  EXPECT_EQ(Values<float>(merged->at("x")), (std::vector<float>{1, 2, 3, 4, 5, 6, 1, 2}));
  EXPECT_EQ(Values<std::string>(merged->at("s")),
            (std::vector<std::string>{"a", "b", "c", "a"}));
}

TEST(BatchMergeTest, PadsInnerDimensionsWithTheChosenValue) {
  TensorMap a{{"ids", Make<int64_t>({1, 2}, {7, 8})}};
  TensorMap b{{"ids", Make<int64_t>({1, 3}, {1, 2, 3})}};
  EXPECT_FALSE(SameInnerShapes(a, b));
  EXPECT_TRUE(SameRanks(a, b));
  EXPECT_EQ(MergeInputs({&a, &b}, 2, false, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto merged = MergeInputs({&a, &b}, 2, true, -1);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->at("ids").shape(), TensorShape({2, 3}));
  EXPECT_EQ(Values<int64_t>(merged->at("ids")), (std::vector<int64_t>{7, 8, -1, 1, 2, 3}));
}

TEST(BatchMergeTest, SlicesShareTheBufferAndCheckTheBatchDimension) {
  TensorMap outputs{{"y", Make<float>({3, 1}, {10, 20, 30})}};
  auto slice = SliceOutputs(outputs, 3, 1, 3);
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(Values<float>(slice->at("y")), (std::vector<float>{20, 30}));
  EXPECT_TRUE(slice->at("y").SharesBufferWith(outputs.at("y")));
  EXPECT_EQ(SliceOutputs(outputs, 4, 0, 1).status().code(), absl::StatusCode::kInternal);
  TensorMap scalar{{"n", Tensor::Scalar<float>(1)}};
  EXPECT_EQ(SliceOutputs(scalar, 1, 0, 1).status().code(), absl::StatusCode::kInternal);

  auto joined = ConcatOutputs({*SliceOutputs(outputs, 3, 0, 1), *slice});
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(Values<float>(joined->at("y")), (std::vector<float>{10, 20, 30}));
}

TEST(BatchMergeTest, UnbatchableRequests) {
  EXPECT_EQ(BatchRows({{"x", Tensor::Scalar<float>(1)}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BatchRows({{"x", Make<float>({2}, {1, 2})}, {"y", Make<float>({3}, {1, 2, 3})}})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BatchRows({}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensord
