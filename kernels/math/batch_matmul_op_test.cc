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

absl::StatusOr<Tensor> RunBatchMatMul(const std::string& op, const Tensor& x, const Tensor& y,
                                      bool adj_x, bool adj_y, DeviceType device) {
  NodeBuilder node(op);
  if (op == "BatchMatMulV3") {
    node.Attr("Ta", x.dtype()).Attr("Tb", y.dtype()).Attr("Tout", x.dtype());
  } else {
    node.Attr("T", x.dtype());
  }
  auto out = RunKernel(node.Attr("adj_x", adj_x).Attr("adj_y", adj_y).Build(), {x, y}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

Tensor Pattern(const std::vector<int64_t>& dims, int seed) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = static_cast<float>(((i * 5 + seed * 11) % 17) - 8) / 4.0f;
  }
  return t;
}

// Naive reference: right-aligned batch broadcasting, then a double-precision product per batch.
Tensor NaiveBatchMatMul(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y) {
  const int xr = x.dims(), yr = y.dims();
  const int64_t m = x.dim_size(adj_x ? xr - 1 : xr - 2), k = x.dim_size(adj_x ? xr - 2 : xr - 1);
  const int64_t n = y.dim_size(adj_y ? yr - 2 : yr - 1);
  const int br = std::max(xr, yr) - 2;
  std::vector<int64_t> xb(br, 1), yb(br, 1), ob(br);
  for (int i = 0; i < xr - 2; ++i) xb[br - (xr - 2) + i] = x.dim_size(i);
  for (int i = 0; i < yr - 2; ++i) yb[br - (yr - 2) + i] = y.dim_size(i);
  std::vector<int64_t> out_dims;
  int64_t batches = 1;
  for (int i = 0; i < br; ++i) {
    ob[i] = std::max(xb[i], yb[i]);
    out_dims.push_back(ob[i]);
    batches *= ob[i];
  }
  out_dims.push_back(m);
  out_dims.push_back(n);
  Tensor out(DT_FLOAT, TensorShape(out_dims));
  for (int64_t b = 0; b < batches; ++b) {
    int64_t rest = b, xi = 0, yi = 0, xs = 1, ys = 1;
    for (int i = br - 1; i >= 0; --i) {
      const int64_t c = rest % ob[i];
      rest /= ob[i];
      xi += (xb[i] == 1 ? 0 : c) * xs;
      yi += (yb[i] == 1 ? 0 : c) * ys;
      xs *= xb[i];
      ys *= yb[i];
    }
    const float* xm = x.data<float>() + xi * m * k;
    const float* ym = y.data<float>() + yi * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          sum += static_cast<double>(adj_x ? xm[p * m + i] : xm[i * k + p]) *
                 (adj_y ? ym[j * k + p] : ym[p * n + j]);
        }
        out.data<float>()[(b * m + i) * n + j] = static_cast<float>(sum);
      }
    }
  }
  return out;
}

TEST(BatchMatMulOpTest, BroadcastingAndAdjointsMatchNaive) {
  struct Case {
    std::vector<int64_t> x, y;  // shapes before adjoints are applied
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {2, 4, 5}},       {{2, 1, 3, 4}, {5, 4, 6}},  {{3, 4}, {7, 4, 2}},
      {{1, 2, 4}, {3, 1, 4, 2}},    {{64, 8, 16}, {64, 16, 8}}, {{2, 96, 80}, {2, 80, 72}},
      {{4, 2, 5, 3}, {4, 2, 3, 5}},
      {{1, 160, 96}, {96, 112}},  // one product, split by rows across threads
  };
  for (DeviceType device : TestDevices()) {
    for (const Case& c : cases) {
      for (int t = 0; t < 4; ++t) {
        const bool adj_x = t & 1, adj_y = t & 2;
        std::vector<int64_t> xd = c.x, yd = c.y;
        if (adj_x) std::swap(xd[xd.size() - 1], xd[xd.size() - 2]);
        if (adj_y) std::swap(yd[yd.size() - 1], yd[yd.size() - 2]);
        const Tensor x = Pattern(xd, 1), y = Pattern(yd, 2);
        SCOPED_TRACE(x.shape().DebugString() + " " + y.shape().DebugString() +
                     " t=" + std::to_string(t));
        for (const std::string op : {"BatchMatMulV2", "BatchMatMulV3"}) {
          auto z = RunBatchMatMul(op, x, y, adj_x, adj_y, device);
          ASSERT_TRUE(z.ok()) << z.status();
          ExpectTensorNear(*z, NaiveBatchMatMul(x, y, adj_x, adj_y));
        }
      }
    }
  }
}

// Marked for bf16, the batch of rows against one weight matrix (a Keras Dense over a sequence,
// y transposed or not) multiplies operands rounded to bfloat16 with float32 sums; a batch of
// matrices against a batch (attention's products) stays float32, as does every product on a
// CPU without bfloat16 arithmetic.
TEST(BatchMatMulOpTest, Bfloat16PrecisionForABatchAgainstOneMatrix) {
  const bool bf16 = CpuHasBfloat16();
  struct Case {
    std::vector<int64_t> x, y;
    bool adj_y;
    bool reduced;  // the product runs in bf16 (on a CPU that has it)
  };
  for (const Case& c : std::vector<Case>{{{2, 64, 96}, {96, 80}, false, true},
                                         {{3, 20, 64}, {1, 48, 64}, true, true},
                                         {{2, 16, 32}, {2, 32, 24}, false, false}}) {
    const Tensor x = RandomFloatTensor(c.x, 1);
    const Tensor y = RandomFloatTensor(c.y, 2);
    for (const char* op : {"BatchMatMulV2", "BatchMatMulV3"}) {
      SCOPED_TRACE(std::string(op) + " " + x.shape().DebugString());
      NodeBuilder node(op);
      if (std::string(op) == "BatchMatMulV3") {
        node.Attr("Ta", DT_FLOAT).Attr("Tb", DT_FLOAT).Attr("Tout", DT_FLOAT);
      } else {
        node.Attr("T", DT_FLOAT);
      }
      node.Attr("adj_x", false).Attr("adj_y", c.adj_y).Attr(kPrecisionAttr, "bf16");
      auto out = RunKernel(node.Build(), {x, y});
      ASSERT_TRUE(out.ok()) << out.status();
      const Tensor float32 = NaiveBatchMatMul(x, y, false, c.adj_y);
      if (!bf16 || !c.reduced) {
        ExpectTensorNear((*out)[0], float32);
        continue;
      }
      ExpectTensorNear((*out)[0],
                       NaiveBatchMatMul(RoundedToBfloat16(x), RoundedToBfloat16(y), false, c.adj_y),
                       1e-5, 1e-5);
      EXPECT_GT(MaxAbsDifference((*out)[0], float32), 1e-3);
    }
  }
}

TEST(BatchMatMulOpTest, V1RequiresEqualBatchDims) {
  for (DeviceType device : TestDevices()) {
    const Tensor x = Pattern({2, 3, 4}, 0), y = Pattern({2, 4, 5}, 1);
    auto z = RunBatchMatMul("BatchMatMul", x, y, false, false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorNear(*z, NaiveBatchMatMul(x, y, false, false));
    z = RunBatchMatMul("BatchMatMul", x, Pattern({1, 4, 5}, 1), false, false, device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(BatchMatMulOpTest, IntegersAndEmpty) {
  for (DeviceType device : TestDevices()) {
    Tensor x(DT_INT32, TensorShape{2, 1, 2}), y(DT_INT32, TensorShape{2, 2});
    for (int i = 0; i < 4; ++i) {
      x.data<int32_t>()[i] = i + 1;
      y.data<int32_t>()[i] = i - 1;
    }
    auto out = RunKernel(NodeBuilder("BatchMatMulV2")
                             .Attr("T", DT_INT32)
                             .Attr("adj_x", false)
                             .Attr("adj_y", true)
                             .Build(),
                         {x, y}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    // y^T = [[-1, 1], [0, 2]], so [1, 2] -> [-1, 5] and [3, 4] -> [-3, 11].
    ExpectTensorEqual((*out)[0], AsTensor<int32_t>({-1, 5, -3, 11}, {2, 1, 2}));
    auto z = RunBatchMatMul("BatchMatMulV2", Pattern({0, 3, 4}, 0), Pattern({4, 5}, 0), false,
                            false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_FLOAT, TensorShape{0, 3, 5}));
    z = RunBatchMatMul("BatchMatMulV2", Pattern({2, 3, 0}, 0), Pattern({0, 5}, 0), false, false,
                       device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_FLOAT, TensorShape{2, 3, 5}));
  }
}

TEST(BatchMatMulOpTest, Errors) {
  for (DeviceType device : TestDevices()) {
    auto z = RunBatchMatMul("BatchMatMulV2", Pattern({2, 3, 4}, 0), Pattern({3, 4, 5}, 0), false,
                            false, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("compatible batch dimensions"), std::string::npos);
    z = RunBatchMatMul("BatchMatMulV2", Pattern({2, 3, 4}, 0), Pattern({2, 5, 5}, 0), false, false,
                       device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Matrix size-incompatible"), std::string::npos);
    z = RunBatchMatMul("BatchMatMulV2", Pattern({4}, 0), Pattern({4, 5}, 0), false, false, device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace tensord
