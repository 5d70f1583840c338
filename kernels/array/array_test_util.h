// Helpers shared by the array kernel tests.
#ifndef TENSORD_KERNELS_ARRAY_ARRAY_TEST_UTIL_H_
#define TENSORD_KERNELS_ARRAY_ARRAY_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace testing {

// A tensor of shape `dims` holding start, start + 1, ... in row-major order.
template <typename T>
Tensor Iota(const std::vector<int64_t>& dims, int start = 0) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = static_cast<T>(start + i);
  return t;
}

// A string tensor holding "s<start>", "s<start+1>", ... in row-major order.
inline Tensor StringIota(const std::vector<int64_t>& dims, int start = 0) {
  Tensor t(DT_STRING, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<std::string>()[i] = "s" + std::to_string(start + i);
  }
  return t;
}

inline Tensor Int32s(const std::vector<int32_t>& values) {
  return AsTensor<int32_t>(values, {static_cast<int64_t>(values.size())});
}
inline Tensor Int64s(const std::vector<int64_t>& values) {
  return AsTensor<int64_t>(values, {static_cast<int64_t>(values.size())});
}
inline Tensor Strings(const std::vector<std::string>& values, const std::vector<int64_t>& dims) {
  return AsTensor<std::string>(values, dims);
}

// Runs the node on `device` and returns its single output (an uninitialised tensor, after a
// test failure, when the run fails).
inline Tensor RunOne(const ::tensorflow::NodeDef& node, const std::vector<Tensor>& inputs,
                     DeviceType device = DeviceType::kCpu) {
  auto out = RunKernel(node, inputs, device);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

// Expects the run to fail with INVALID_ARGUMENT and a message containing `substring`.
inline void ExpectInvalidArgument(const ::tensorflow::NodeDef& node,
                                  const std::vector<Tensor>& inputs, const std::string& substring,
                                  DeviceType device = DeviceType::kCpu) {
  auto out = RunKernel(node, inputs, device);
  ASSERT_FALSE(out.ok()) << "expected an error containing: " << substring;
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr(substring));
}

}  // namespace testing
}  // namespace tensord

#endif  // TENSORD_KERNELS_ARRAY_ARRAY_TEST_UTIL_H_
