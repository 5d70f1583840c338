#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

absl::StatusOr<Tensor> RunUnary(const std::string& op, DataType dtype, const Tensor& x,
                                DeviceType device) {
  auto out = RunKernel(NodeBuilder(op).Attr("T", dtype).Build(), {x}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

struct UnaryCase {
  std::string op;
  std::vector<float> x;
  std::vector<float> want;
};

// Expected values computed once with TensorFlow 2.21 (float32).
const std::vector<UnaryCase>& FloatCases() {
  static const auto* cases = new std::vector<UnaryCase>{
      {"Abs",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {3.5, 1.25, 0.5, 0.0, 0.0, 0.300000012, 0.5, 1.5, 2.5, 7.0}},
      {"Neg",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {3.5, 1.25, 0.5, 0.0, -0.0, -0.300000012, -0.5, -1.5, -2.5, -7.0}},
      {"Exp",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {0.0301973838, 0.286504805, 0.606530666, 1.0, 1.0, 1.34985876, 1.64872122, 4.48168898,
        12.1824942, 1096.63318}},
      {"Expm1",
       {-3.0, -0.5, -0.0001, 0.0, 1e-05, 0.3, 2.0},
       {-0.950212955, -0.393469334, -9.99949989e-05, 0.0, 1.00000498e-05, 0.34985882, 6.38905621}},
      {"Log",
       {0.001, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0, 100.0},
       {-6.90775537, -2.30258512, -0.693147182, 0.0, 0.693147182, 1.3083328, 2.30258512,
        4.60517025}},
      {"Log1p",
       {-0.9, -0.5, -0.1, 0.0, 0.2, 1.0, 3.0},
       {-2.30258489, -0.693147182, -0.105360515, 0.0, 0.182321563, 0.693147182, 1.38629436}},
      {"Sqrt",
       {0.001, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0, 100.0},
       {0.0316227786, 0.316227764, 0.707106769, 1.0, 1.41421354, 1.92353845, 3.1622777, 10.0}},
      {"Rsqrt",
       {0.001, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0, 100.0},
       {31.622776, 3.1622777, 1.41421342, 0.999999881, 0.707106709, 0.519875228, 0.316227734,
        0.100000001}},
      {"Square",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {12.25, 1.5625, 0.25, 0.0, 0.0, 0.0900000036, 0.25, 2.25, 6.25, 49.0}},
      {"Reciprocal",
       {-4.0, -0.5, 0.25, 1.0, 3.0, 7.0},
       {-0.25, -2.0, 4.0, 1.0, 0.333333343, 0.142857149}},
      {"Sign",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {-1.0, -1.0, -1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0}},
      {"Floor",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {-4.0, -2.0, -1.0, -0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 7.0}},
      {"Ceil",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {-3.0, -1.0, -0.0, -0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 7.0}},
      {"Round",
       {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -2.6, 3.5},
       {-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 2.0, -3.0, 4.0}},
      {"Rint",
       {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -2.6},
       {-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 2.0, -3.0}},
      {"Sin",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {0.350783229, -0.948984623, -0.47942555, -0.0, 0.0, 0.295520216, 0.47942555, 0.997494996,
        0.598472118, 0.656986594}},
      {"Cos",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {-0.93645668, 0.315322369, 0.87758255, 1.0, 1.0, 0.955336511, 0.87758255, 0.070737198,
        -0.801143587, 0.753902256}},
      {"Tan",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {-0.374585629, -3.00956964, -0.546302497, -0.0, 0.0, 0.309336275, 0.546302497, 14.1014204,
        -0.747022331, 0.87144798}},
      {"Tanh",
       {-20.0, -9.5, -3.0, -1.0, -0.01, 0.0, 0.0001, 0.5, 3.0, 8.0, 30.0},
       {-1.0, -1.0, -0.995054722, -0.761594176, -0.00999966636, 0.0, 9.99999975e-05, 0.462117136,
        0.995054722, 1.0, 1.0}},
      {"Sigmoid",
       {-30.0, -20.0, -9.5, -3.0, -1.0, 0.0, 0.5, 3.0, 10.0, 16.0, 30.0},
       {9.35762427e-14, 2.06115414e-09, 7.48462262e-05, 0.0474258661, 0.268941402, 0.5, 0.622459352,
        0.952574134, 0.999954581, 0.999999881, 1.0}},
      {"Erf",
       {-4.0, -1.0, -0.1, 0.0, 0.5, 1.0, 2.0, 3.0},
       {-1.0, -0.842700839, -0.112462915, 0.0, 0.520499885, 0.842700839, 0.995322347, 0.999978006}},
      {"Erfc",
       {-2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 4.0},
       {1.99532223, 1.52049994, 1.0, 0.479500115, 0.157299221, 0.00467773527, 1.54172568e-08}},
      {"Softplus",
       {-100.0, -20.0, -10.0, -1.0, 0.0, 1.0, 10.0, 13.0, 15.0, 20.0, 100.0},
       {0.0, 2.06115369e-09, 4.53988978e-05, 0.313261688, 0.693147182, 1.31326163, 10.0000458,
        13.0000019, 15.0, 20.0, 100.0}},
      {"Softsign",
       {-3.5, -1.25, -0.5, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, 7.0},
       {-0.777777791, -0.555555582, -0.333333343, -0.0, 0.0, 0.230769247, 0.333333343, 0.600000024,
        0.714285731, 0.875}},
  };
  return *cases;
}

TEST(CwiseUnaryOpTest, FloatMatchesTensorFlow) {
  for (DeviceType device : TestDevices()) {
    for (const UnaryCase& c : FloatCases()) {
      SCOPED_TRACE(c.op);
      const int64_t n = static_cast<int64_t>(c.x.size());
      auto y = RunUnary(c.op, DT_FLOAT, AsTensor<float>(c.x, {n}), device);
      ASSERT_TRUE(y.ok()) << y.status();
      ExpectTensorNear(*y, AsTensor<float>(c.want, {n}));
    }
  }
}

// Long inputs take the vectorised path in several parallel blocks; compare with libm in double.
TEST(CwiseUnaryOpTest, LongFloatInputsMatchLibm) {
  struct Ref {
    std::string op;
    double lo, hi;
    double (*f)(double);
  };
  const std::vector<Ref> refs = {
      {"Exp", -20, 20, [](double x) { return std::exp(x); }},
      {"Log", 1e-3, 1e3, [](double x) { return std::log(x); }},
      {"Tanh", -10, 10, [](double x) { return std::tanh(x); }},
      {"Sigmoid", -15, 15, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"Erf", -4, 4, [](double x) { return std::erf(x); }},
      // Vectorised by tensord (erfc.h), not by Eigen: over its whole non-zero range.
      {"Erfc", -10, 10, [](double x) { return std::erfc(x); }},
      {"Sqrt", 0, 1e4, [](double x) { return std::sqrt(x); }},
      {"Rsqrt", 1e-3, 1e4, [](double x) { return 1 / std::sqrt(x); }},
      {"Softplus", -30, 30, [](double x) { return std::log1p(std::exp(x)); }},
      {"Sin", -10, 10, [](double x) { return std::sin(x); }},
  };
  constexpr int64_t kN = 100003;
  for (DeviceType device : TestDevices()) {
    for (const Ref& r : refs) {
      SCOPED_TRACE(r.op);
      std::vector<float> x(kN), want(kN);
      for (int64_t i = 0; i < kN; ++i) {
        x[i] = static_cast<float>(r.lo + (r.hi - r.lo) * i / (kN - 1));
        want[i] = static_cast<float>(r.f(x[i]));
      }
      auto y = RunUnary(r.op, DT_FLOAT, AsTensor<float>(x, {kN}), device);
      ASSERT_TRUE(y.ok()) << y.status();
      ExpectTensorNear(*y, AsTensor<float>(want, {kN}), 2e-6, 1e-6);
    }
  }
}

TEST(CwiseUnaryOpTest, Double) {
  for (DeviceType device : TestDevices()) {
    auto y = RunUnary("Exp", DT_DOUBLE, AsTensor<double>({0.0, 1.0, -2.0}, {3}), device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorNear(*y, AsTensor<double>({1.0, std::exp(1.0), std::exp(-2.0)}, {3}), 1e-12, 0);
    y = RunUnary("Sigmoid", DT_DOUBLE, AsTensor<double>({0.0, 2.0}, {2}), device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorNear(*y, AsTensor<double>({0.5, 1 / (1 + std::exp(-2.0))}, {2}), 1e-12, 0);
  }
}

TEST(CwiseUnaryOpTest, SpecialFloatValues) {
  for (DeviceType device : TestDevices()) {
    // Eight values, so that the CPU takes its vectorised path.
    const Tensor erfc_x =
        AsTensor<float>({kNaN, kInf, -kInf, 0.0f, -0.0f, 30.0f, -30.0f, 1e-30f}, {8});
    auto erfc = RunUnary("Erfc", DT_FLOAT, erfc_x, device);
    ASSERT_TRUE(erfc.ok()) << erfc.status();
    EXPECT_TRUE(std::isnan(erfc->data<float>()[0]));
    EXPECT_EQ(erfc->data<float>()[1], 0.0f);
    EXPECT_EQ(erfc->data<float>()[2], 2.0f);
    EXPECT_NEAR(erfc->data<float>()[3], 1.0f, 1e-7f);
    EXPECT_NEAR(erfc->data<float>()[4], 1.0f, 1e-7f);
    EXPECT_EQ(erfc->data<float>()[5], 0.0f);
    EXPECT_EQ(erfc->data<float>()[6], 2.0f);
    EXPECT_NEAR(erfc->data<float>()[7], 1.0f, 1e-7f);
    const Tensor x = AsTensor<float>({kNaN, kInf, -kInf, 0.0f, -2.0f}, {5});
    auto y = RunUnary("Sign", DT_FLOAT, x, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>({kNaN, 1, -1, 0, -1}, {5}));
    y = RunUnary("IsNan", DT_FLOAT, x, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<bool>({true, false, false, false, false}, {5}));
    y = RunUnary("IsInf", DT_FLOAT, x, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<bool>({false, true, true, false, false}, {5}));
    y = RunUnary("IsFinite", DT_FLOAT, x, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<bool>({false, false, false, true, true}, {5}));
    y = RunUnary("Sqrt", DT_FLOAT, x, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>({kNaN, kInf, kNaN, 0, kNaN}, {5}));
  }
}

TEST(CwiseUnaryOpTest, Integers) {
  for (DeviceType device : TestDevices()) {
    const Tensor x32 = AsTensor<int32_t>({-7, 0, 3, -1}, {2, 2});
    auto y = RunUnary("Abs", DT_INT32, x32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int32_t>({7, 0, 3, 1}, {2, 2}));
    y = RunUnary("Neg", DT_INT32, x32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int32_t>({7, 0, -3, 1}, {2, 2}));
    y = RunUnary("Sign", DT_INT32, x32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int32_t>({-1, 0, 1, -1}, {2, 2}));
    y = RunUnary("Square", DT_INT64, AsTensor<int64_t>({-3, 3000000000}, {2}), device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int64_t>({9, 3000000000LL * 3000000000LL}, {2}));
  }
}

TEST(CwiseUnaryOpTest, LogicalNot) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(NodeBuilder("LogicalNot").Build(),
                         {AsTensor<bool>({true, false, true}, {3})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<bool>({false, true, false}, {3}));
  }
}

TEST(CwiseUnaryOpTest, EmptyAndScalar) {
  for (DeviceType device : TestDevices()) {
    auto y = RunUnary("Tanh", DT_FLOAT, AsTensor<float>({}, {0, 3}), device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>({}, {0, 3}));
    y = RunUnary("Exp", DT_FLOAT, AsTensor<float>({0.0f}, {}), device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>({1.0f}, {}));
  }
}

TEST(CwiseUnaryOpTest, WrongInputTypeIsAnError) {
  for (DeviceType device : TestDevices()) {
    auto y = RunUnary("Exp", DT_FLOAT, AsTensor<int32_t>({1}, {1}), device);
    EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(CwiseUnaryOpTest, UnregisteredTypeIsReported) {
  auto y = RunUnary("Exp", DT_INT32, AsTensor<int32_t>({1}, {1}), DeviceType::kCpu);
  EXPECT_FALSE(y.ok());
}

}  // namespace
}  // namespace tensord
