#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace string_ops {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

template <typename T>
absl::StatusOr<std::vector<Tensor>> RunOp(const std::vector<std::string>& in,
                                          DeviceType device = DeviceType::kCpu) {
  auto node = NodeBuilder("StringToNumber").Attr("out_type", DataTypeToEnum<T>::value).Build();
  return RunKernel(node, {AsTensor<std::string>(in, {static_cast<int64_t>(in.size())})}, device);
}

// Expected values from TensorFlow 2.21 (tf.strings.to_number).
TEST(StringToNumberTest, Float) {
  const float inf = std::numeric_limits<float>::infinity();
  for (DeviceType device : TestDevices()) {
    auto out = RunOp<float>(
        {"1.5", " 1.5 ", "\t7\n", "inf", "-Inf", "infinity", "1e3", "0x10", ".5", "5.", "+3", "-0",
         "3.4e39", "1e-50", "0x1p-2", "0X1A", "1.4e-45", "12345678901234567890123456789012"},
        device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual(
        (*out)[0], AsTensor<float>({1.5f, 1.5f, 7, inf, -inf, inf, 1000, 16, 0.5f, 5, 3, -0.0f, inf,
                                    0, 0.25f, 26, 1.401298464324817e-45f, 1.2345678616041472e+31f},
                                   {18}));
    EXPECT_TRUE(std::signbit((*out)[0].data<float>()[11]));
  }
  auto out = RunOp<float>({"nan", "NaN", "-nan", "nan(1)"});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan((*out)[0].data<float>()[i]));
}

TEST(StringToNumberTest, Double) {
  auto out = RunOp<double>(
      {"1.5", "1e400", "0x1p3", "1e-46", "4.9e-324", "1234567890123456789012345678901"});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<double>({1.5, std::numeric_limits<double>::infinity(), 8,
                                                 1e-46, 4.9e-324, 1.2345678901234568e+30},
                                                {6}));
}

TEST(StringToNumberTest, Integers) {
  auto out =
      RunOp<int32_t>({"12", "-12", "+12", " 12 ", "2147483647", "-2147483648", "012", "\t5"});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<int32_t>({12, -12, 12, 12, 2147483647,
                                                  std::numeric_limits<int32_t>::min(), 12, 5},
                                                 {8}));
  auto out64 = RunOp<int64_t>({"9223372036854775807", "-9223372036854775808", "-1"});
  ASSERT_TRUE(out64.ok()) << out64.status();
  ExpectTensorEqual((*out64)[0], AsTensor<int64_t>({std::numeric_limits<int64_t>::max(),
                                                    std::numeric_limits<int64_t>::min(), -1},
                                                   {3}));
  auto outu = RunOp<uint32_t>({"4294967295", "+5"});
  ASSERT_TRUE(outu.ok()) << outu.status();
  ExpectTensorEqual((*outu)[0], AsTensor<uint32_t>({4294967295u, 5}, {2}));
  auto outu64 = RunOp<uint64_t>({"18446744073709551615", " 3"});
  ASSERT_TRUE(outu64.ok()) << outu64.status();
  ExpectTensorEqual((*outu64)[0], AsTensor<uint64_t>({18446744073709551615ull, 3}, {2}));
}

TEST(StringToNumberTest, RejectsWhatTensorFlowRejects) {
  for (const char* s :
       {"1.5x", "", "  ", "1,5", "0x", "1e", "e5", "- 1", "+-1", "1.5f", ".", "infinit"}) {
    auto out = RunOp<float>({"1", s});
    ASSERT_FALSE(out.ok()) << "'" << s << "'";
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find(
                  std::string("StringToNumberOp could not correctly convert string: ") + s),
              std::string::npos)
        << out.status();
  }
  for (const char* s : {"12.0", "2147483648", "0x10", "", "1e3", "- 1", "1 2"}) {
    EXPECT_FALSE(RunOp<int32_t>({s}).ok()) << "'" << s << "'";
  }
  EXPECT_FALSE(RunOp<int64_t>({"9223372036854775808"}).ok());
  EXPECT_FALSE(RunOp<uint32_t>({"-1"}).ok());
  EXPECT_FALSE(RunOp<uint32_t>({"4294967296"}).ok());
}

TEST(StringToNumberTest, Empty) {
  auto node = NodeBuilder("StringToNumber").Attr("out_type", DT_INT64).Build();
  auto out = RunKernel(node, {AsTensor<std::string>({}, {2, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<int64_t>({}, {2, 0}));
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
