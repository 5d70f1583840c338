#include <complex>
#include <limits>
#include <string>

#include "Eigen/Core"
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

struct Format {
  int64_t precision = -1;
  bool scientific = false;
  bool shortest = false;
  int64_t width = -1;
  std::string fill;
};

absl::StatusOr<std::vector<Tensor>> RunOp(const Tensor& input, const Format& f = {},
                                          DeviceType device = DeviceType::kCpu) {
  auto node = NodeBuilder("AsString")
                  .Attr("T", input.dtype())
                  .Attr("precision", f.precision)
                  .Attr("scientific", f.scientific)
                  .Attr("shortest", f.shortest)
                  .Attr("width", f.width)
                  .Attr("fill", f.fill)
                  .Build();
  return RunKernel(node, {input}, device);
}

void ExpectStrings(const absl::StatusOr<std::vector<Tensor>>& out,
                   const std::vector<std::string>& want) {
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<std::string>(want, {static_cast<int64_t>(want.size())}));
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Expected strings from TensorFlow 2.21 (tf.strings.as_string).
TEST(AsStringTest, FloatFormats) {
  const std::vector<float> values = {0.0f,  1.0f, -2.5f, 3.14159265f, 1e-7f, 123456789.0f,
                                     1e20f, kInf, -kInf, kNaN,        -0.0f};
  const Tensor input = AsTensor<float>(values, {11});
  for (DeviceType device : TestDevices()) {
    ExpectStrings(RunOp(input, {}, device),
                  {"0.000000", "1.000000", "-2.500000", "3.141593", "0.000000", "123456792.000000",
                   "100000002004087734272.000000", "inf", "-inf", "nan", "-0.000000"});
  }
  Format shortest;
  shortest.shortest = true;
  ExpectStrings(RunOp(input, shortest), {"0", "1", "-2.5", "3.14159", "1e-07", "1.23457e+08",
                                         "1e+20", "inf", "-inf", "nan", "-0"});
  Format scientific;
  scientific.scientific = true;
  ExpectStrings(RunOp(input, scientific),
                {"0.000000e+00", "1.000000e+00", "-2.500000e+00", "3.141593e+00", "1.000000e-07",
                 "1.234568e+08", "1.000000e+20", "inf", "-inf", "nan", "-0.000000e+00"});
  Format precision;
  precision.precision = 2;
  ExpectStrings(RunOp(input, precision),
                {"0.00", "1.00", "-2.50", "3.14", "0.00", "123456792.00",
                 "100000002004087734272.00", "inf", "-inf", "nan", "-0.00"});
}

TEST(AsStringTest, WidthAndFill) {
  const Tensor input = AsTensor<float>({3.5f, -1.25f}, {2});
  Format f;
  f.width = 10;
  ExpectStrings(RunOp(input, f), {"  3.500000", " -1.250000"});
  f.fill = "0";
  ExpectStrings(RunOp(input, f), {"003.500000", "-01.250000"});
  f.fill = "-";
  ExpectStrings(RunOp(input, f), {"3.500000  ", "-1.250000 "});

  const Tensor ints = AsTensor<int32_t>({7, -5}, {2});
  Format w5;
  w5.width = 5;
  ExpectStrings(RunOp(ints, w5), {"    7", "   -5"});
  w5.fill = "0";
  ExpectStrings(RunOp(ints, w5), {"00007", "-0005"});
  Format plus;
  plus.fill = "+";
  ExpectStrings(RunOp(ints, plus), {"+7", "-5"});
}

TEST(AsStringTest, OtherTypes) {
  ExpectStrings(RunOp(AsTensor<double>({3.14159265, 123456789.0, 1e20}, {3})),
                {"3.141593", "123456789.000000", "100000000000000000000.000000"});
  ExpectStrings(RunOp(AsTensor<Eigen::half>({Eigen::half(0.1f), Eigen::half(2.5f)}, {2})),
                {"0.099976", "2.500000"});
  ExpectStrings(
      RunOp(AsTensor<Eigen::bfloat16>({Eigen::bfloat16(0.1f), Eigen::bfloat16(2.5f)}, {2})),
      {"0.100098", "2.500000"});
  ExpectStrings(RunOp(AsTensor<int32_t>({0, -5, 2147483647}, {3})), {"0", "-5", "2147483647"});
  ExpectStrings(RunOp(AsTensor<int64_t>({std::numeric_limits<int64_t>::min(), 9}, {2})),
                {"-9223372036854775808", "9"});
  ExpectStrings(RunOp(AsTensor<uint8_t>({255, 0}, {2})), {"255", "0"});
  ExpectStrings(RunOp(AsTensor<int8_t>({-128, 5}, {2})), {"-128", "5"});
  ExpectStrings(RunOp(AsTensor<uint64_t>({18446744073709551615ull}, {1})),
                {"18446744073709551615"});
  Format w7;
  w7.width = 7;
  ExpectStrings(RunOp(AsTensor<bool>({true, false}, {2}), w7), {"true", "false"});
  Format w4;
  w4.width = 4;
  ExpectStrings(RunOp(AsTensor<std::string>({"ab", ""}, {2}), w4), {"  ab", "    "});
  ExpectStrings(RunOp(AsTensor<std::complex<float>>({{1, 2}}, {1})), {"(1.000000,2.000000)"});
  Format p1;
  p1.precision = 1;
  ExpectStrings(RunOp(AsTensor<std::complex<float>>({{1, 2}}, {1}), p1), {"(1.0,2.0)"});
}

TEST(AsStringTest, ShapeIsKept) {
  auto out = RunOp(AsTensor<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<std::string>({"1", "2", "3", "4", "5", "6"}, {2, 3}));
  out = RunOp(AsTensor<float>({}, {0, 4}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<std::string>({}, {0, 4}));
}

TEST(AsStringTest, AttrErrors) {
  auto expect_error = [](const Tensor& input, const Format& f, const std::string& message) {
    auto out = RunOp(input, f);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find(message), std::string::npos) << out.status();
  };
  const Tensor ints = AsTensor<int32_t>({1}, {1});
  const Tensor floats = AsTensor<float>({1}, {1});
  Format f;
  f.precision = 1;
  expect_error(ints, f, "precision not supported for datatype int32");
  f = {};
  f.scientific = true;
  expect_error(ints, f, "scientific and shortest format not supported for datatype int32");
  f.shortest = true;
  expect_error(floats, f, "Cannot select both scientific and shortest notation");
  f = {};
  f.fill = "x";
  expect_error(floats, f, "Fill argument not supported: \"x\"");
  f.fill = "00";
  expect_error(floats, f, "Fill string must be one or fewer characters");
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
