#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/nn/nn_test_util.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/exec/precision.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::MaxAbsDifference;
using testing::NodeBuilder;
using testing::RandomFloatTensor;
using testing::RoundedToBfloat16;
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

// Products large enough to be split across the tests' two threads: by rows (many rows) and by
// b's columns (one row, as a Dense layer at batch 1; the last with few multiply-adds but 2 MB
// of weights), with every transpose.
TEST(MatMulOpTest, SplitProductsMatchNaiveProduct) {
  const std::vector<std::array<int64_t, 3>> sizes = {
      {512, 64, 72}, {1, 1024, 2050}, {1, 512, 1000}};
  for (const auto& [m, k, n] : sizes) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      const Tensor a = ta ? Pattern<float>(k, m, 1) : Pattern<float>(m, k, 1);
      const Tensor b = tb ? Pattern<float>(n, k, 2) : Pattern<float>(k, n, 2);
      auto c = RunMatMul(a, b, ta, tb, DeviceType::kCpu);
      ASSERT_TRUE(c.ok()) << c.status();
      ExpectTensorNear(*c, NaiveMatMul<float>(a, b, ta, tb));
    }
  }
}

::tensorflow::NodeDef FusedMatMulNode(const std::vector<std::string>& fused_ops,
                                      bool transpose_b = false) {
  const bool residual = fused_ops.size() > 1 && fused_ops[1] == "Add";
  return NodeBuilder("_FusedMatMul")
      .Attr("T", DT_FLOAT)
      .Attr("transpose_a", false)
      .Attr("transpose_b", transpose_b)
      .Attr("fused_ops", fused_ops)
      .Attr("num_args", residual ? 2 : 1)
      .Build();
}

// _FusedMatMul (the load-time pass's MatMul + BiasAdd [+ Add] [+ activation]) against the
// unfused chain computed naively; split and unsplit.
TEST(MatMulOpTest, FusedBiasResidualAndActivation) {
  for (const auto& [m, k, n] : std::vector<std::array<int64_t, 3>>{{3, 5, 7}, {1, 1024, 2050}}) {
    const Tensor a = Pattern<float>(m, k, 1);
    const Tensor b = Pattern<float>(n, k, 2);  // transposed, as Keras never stores it
    const Tensor bias = Pattern<float>(1, n, 3);
    Tensor flat_bias(DT_FLOAT, TensorShape{n});
    std::copy_n(bias.data<float>(), n, flat_bias.data<float>());
    const Tensor residual = Pattern<float>(m, n, 4);
    Tensor row_residual(DT_FLOAT, TensorShape{n});  // broadcast over rows: added after
    std::copy_n(residual.data<float>(), n, row_residual.data<float>());
    const Tensor product = NaiveMatMul<float>(a, b, false, true);
    for (const Tensor* res : std::vector<const Tensor*>{nullptr, &residual, &row_residual}) {
      std::vector<std::string> ops = {"BiasAdd"};
      if (res != nullptr) ops.push_back("Add");
      ops.push_back("Relu");
      std::vector<Tensor> inputs = {a, b, flat_bias};
      if (res != nullptr) inputs.push_back(res->DeepCopy());
      auto out = RunKernel(FusedMatMulNode(ops, true), inputs);
      ASSERT_TRUE(out.ok()) << out.status();
      Tensor want = product.DeepCopy();
      for (int64_t i = 0; i < want.NumElements(); ++i) {
        const float r = res == nullptr ? 0.0f : res->data<float>()[i % res->NumElements()];
        float& v = want.data<float>()[i];
        v = std::max(v + flat_bias.data<float>()[i % n] + r, 0.0f);
      }
      ExpectTensorNear((*out)[0], want);
    }
  }
  // An empty inner dimension leaves the epilogue of zeros.
  auto empty = RunKernel(FusedMatMulNode({"BiasAdd", "Relu6"}),
                         {Tensor(DT_FLOAT, TensorShape{2, 0}), Tensor(DT_FLOAT, TensorShape{0, 2}),
                          AsTensor<float>({-1, 7}, {2})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  ExpectTensorEqual((*empty)[0], AsTensor<float>({0, 6, 0, 6}, {2, 2}));
  // Bias of the wrong length, missing residual, unsupported fusion.
  auto bad_bias = RunKernel(FusedMatMulNode({"BiasAdd"}),
                            {Pattern<float>(2, 3, 0), Pattern<float>(3, 4, 0),
                             AsTensor<float>({1, 2}, {2})});
  EXPECT_EQ(bad_bias.status().code(), absl::StatusCode::kInvalidArgument) << bad_bias.status();
  auto missing = RunKernel(FusedMatMulNode({"BiasAdd", "Add"}),
                           {Pattern<float>(2, 3, 0), Pattern<float>(3, 4, 0),
                            AsTensor<float>({1, 2, 3, 4}, {4})});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument) << missing.status();
  auto unknown = RunKernel(FusedMatMulNode({"BiasAdd", "Tanh"}),
                           {Pattern<float>(2, 3, 0), Pattern<float>(3, 4, 0),
                            AsTensor<float>({1, 2, 3, 4}, {4})});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kUnimplemented) << unknown.status();
}

// A node the load marked for bf16 multiplies its operands (random: most are not bfloat16
// numbers, unlike Pattern's quarters) rounded to bfloat16, accumulating in
// float32: it matches the product of the rounded operands to float32 accuracy and differs from
// the float32 product by bfloat16's rounding. Shapes: BERT-base's attention projection (split
// by columns), many rows (split by rows, with a fused bias and Relu), one row (a Dense layer at
// batch 1), and a transposed A (rows produced per call). On a CPU without bfloat16 arithmetic
// the kernel computes in float32.
TEST(MatMulOpTest, Bfloat16PrecisionMultipliesRoundedOperandsInFloat32) {
  const bool bf16 = CpuHasBfloat16();
  struct Case {
    int64_t m, k, n;
    bool ta, tb, fused;
  };
  for (const Case& t : std::vector<Case>{{128, 768, 768, false, false, false},
                                         {512, 64, 72, false, true, true},
                                         {1, 1024, 2050, false, true, false},
                                         {40, 300, 129, true, false, false}}) {
    SCOPED_TRACE(std::to_string(t.m) + "x" + std::to_string(t.k) + "x" + std::to_string(t.n));
    using Dims = std::vector<int64_t>;
    const Tensor a = RandomFloatTensor(t.ta ? Dims{t.k, t.m} : Dims{t.m, t.k}, 1);
    const Tensor b = RandomFloatTensor(t.tb ? Dims{t.n, t.k} : Dims{t.k, t.n}, 2);
    const Tensor bias = RandomFloatTensor({t.n}, 3);
    NodeBuilder node(t.fused ? "_FusedMatMul" : "MatMul");
    node.Attr("T", DT_FLOAT).Attr("transpose_a", t.ta).Attr("transpose_b", t.tb);
    node.Attr(kPrecisionAttr, "bf16");
    std::vector<Tensor> inputs = {a, b};
    if (t.fused) {
      node.Attr("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"}).Attr("num_args", 1);
      inputs.push_back(bias);
    }
    auto out = RunKernel(node.Build(), inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    auto expected = [&](const Tensor& x, const Tensor& y) {
      Tensor c = NaiveMatMul<float>(x, y, t.ta, t.tb);
      for (int64_t i = 0; t.fused && i < c.NumElements(); ++i) {
        float& v = c.data<float>()[i];
        v = std::max(v + bias.data<float>()[i % t.n], 0.0f);
      }
      return c;
    };
    const Tensor float32 = expected(a, b);
    if (!bf16) {
      ExpectTensorNear((*out)[0], float32);
      continue;
    }
    // Sums of up to 1024 products of values below 1, accumulated in float32 blocks.
    ExpectTensorNear((*out)[0], expected(RoundedToBfloat16(a), RoundedToBfloat16(b)), 1e-5,
                     1e-5);
    EXPECT_GT(MaxAbsDifference((*out)[0], float32), 1e-3);
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
