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

absl::StatusOr<Tensor> RunMatMul(const Tensor& a, const Tensor& b, bool ta, bool tb,
                                 DeviceType device) {
  auto out = RunKernel(NodeBuilder("MatMul")
                           .Attr("T", a.dtype())
                           .Attr("transpose_a", ta)
                           .Attr("transpose_b", tb)
                           .Build(),
                       {a, b}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

template <typename T>
Tensor Pattern(int64_t rows, int64_t cols, int seed) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape{rows, cols});
  for (int64_t i = 0; i < rows * cols; ++i) {
    t.data<T>()[i] = static_cast<T>(((i * 7 + seed * 13) % 19) - 9) / static_cast<T>(4);
  }
  return t;
}

// Naive product in double; a and b are stored transposed when ta / tb.
template <typename T>
Tensor NaiveMatMul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  const int64_t m = a.dim_size(ta ? 1 : 0), k = a.dim_size(ta ? 0 : 1);
  const int64_t n = b.dim_size(tb ? 0 : 1);
  Tensor c(a.dtype(), TensorShape{m, n});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double av = a.data<T>()[ta ? p * m + i : i * k + p];
        const double bv = b.data<T>()[tb ? j * k + p : p * n + j];
        sum += av * bv;
      }
      c.data<T>()[i * n + j] = static_cast<T>(sum);
    }
  }
  return c;
}

TEST(MatMulOpTest, AllTransposesMatchNaiveProduct) {
  const std::vector<std::array<int64_t, 3>> sizes = {{1, 1, 1},   {2, 3, 4},      {5, 1, 7},
                                                     {17, 33, 9}, {64, 300, 128}, {1, 512, 10}};
  for (DeviceType device : TestDevices()) {
    for (const auto& [m, k, n] : sizes) {
      for (int t = 0; t < 4; ++t) {
        const bool ta = t & 1, tb = t & 2;
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                     " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb));
        const Tensor a = ta ? Pattern<float>(k, m, 1) : Pattern<float>(m, k, 1);
        const Tensor b = tb ? Pattern<float>(n, k, 2) : Pattern<float>(k, n, 2);
        auto c = RunMatMul(a, b, ta, tb, device);
        ASSERT_TRUE(c.ok()) << c.status();
        ExpectTensorNear(*c, NaiveMatMul<float>(a, b, ta, tb));
      }
    }
  }
}

TEST(MatMulOpTest, DoubleAndInt32) {
  for (DeviceType device : TestDevices()) {
    const Tensor a = Pattern<double>(6, 5, 3), b = Pattern<double>(5, 4, 4);
    auto c = RunMatMul(a, b, false, false, device);
    ASSERT_TRUE(c.ok()) << c.status();
    ExpectTensorNear(*c, NaiveMatMul<double>(a, b, false, false), 1e-12, 1e-12);
    auto ci = RunMatMul(AsTensor<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}),
                        AsTensor<int32_t>({1, 0, -1, 2, 3, 1}, {3, 2}), false, false, device);
    ASSERT_TRUE(ci.ok()) << ci.status();
    ExpectTensorEqual(*ci, AsTensor<int32_t>({8, 7, 17, 16}, {2, 2}));
  }
}

TEST(MatMulOpTest, EmptyDims) {
  for (DeviceType device : TestDevices()) {
    auto c = RunMatMul(Tensor(DT_FLOAT, TensorShape{0, 3}), Pattern<float>(3, 4, 0), false, false,
                       device);
    ASSERT_TRUE(c.ok()) << c.status();
    ExpectTensorEqual(*c, Tensor(DT_FLOAT, TensorShape{0, 4}));
    c = RunMatMul(Tensor(DT_FLOAT, TensorShape{2, 0}), Tensor(DT_FLOAT, TensorShape{0, 3}), false,
                  false, device);
    ASSERT_TRUE(c.ok()) << c.status();
    ExpectTensorEqual(*c, Tensor(DT_FLOAT, TensorShape{2, 3}));
  }
}

TEST(MatMulOpTest, Errors) {
  for (DeviceType device : TestDevices()) {
    auto c = RunMatMul(Pattern<float>(1, 2, 0), Pattern<float>(1, 2, 0), false, false, device);
    ASSERT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find("Matrix size-incompatible: In[0]: [1,2], In[1]: [1,2]"),
              std::string::npos);
    c = RunMatMul(AsTensor<float>({1, 2}, {1, 1, 2}), Pattern<float>(2, 2, 0), false, false,
                  device);
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace tensord
