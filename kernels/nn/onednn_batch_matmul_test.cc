#include "kernels/nn/onednn_batch_matmul.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/nn/nn_test_util.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/exec/precision.h"
#include "runtime/framework/device_set.h"

namespace tensord {
namespace {

using testing::ExpectTensorNear;
using testing::MaxAbsDifference;
using testing::RandomFloatTensor;
using testing::RoundedToBfloat16;

// C[b] = op(A[b]) op(B[b]) in double, from the operands' stored layouts.
Tensor Reference(const BatchMatMulOperands& p, const Tensor& a, const Tensor& b) {
  Tensor c(DT_FLOAT, TensorShape{p.batches, p.rows, p.columns});
  for (int64_t t = 0; t < p.batches; ++t) {
    const float* x = a.data<float>() + t * p.rows * p.inner;
    const float* y = b.data<float>() + t * p.inner * p.columns;
    for (int64_t i = 0; i < p.rows; ++i) {
      for (int64_t j = 0; j < p.columns; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < p.inner; ++q) {
          sum += static_cast<double>(p.a_transposed ? x[q * p.rows + i] : x[i * p.inner + q]) *
                 (p.b_transposed ? y[j * p.inner + q] : y[q * p.columns + j]);
        }
        c.data<float>()[(t * p.rows + i) * p.columns + j] = static_cast<float>(sum);
      }
    }
  }
  return c;
}

// Every transpose, batches split over two threads (and one small batch that is not split), in
// float32 and in bf16 (operands rounded to bfloat16, float32 sums; float32 where the CPU has
// no bfloat16 arithmetic).
TEST(OneDnnBatchMatMulTest, MatchesTheProductOfEveryMatrixPair) {
  DeviceSet devices(DeviceSetOptions{2, 1});
  const Eigen::ThreadPoolDevice& device = devices.cpu()->eigen_device();
  struct Shape {
    int64_t batches, rows, inner, columns;
  };
  for (const Shape& s : std::vector<Shape>{{12, 128, 64, 128}, {5, 33, 17, 9}, {1, 4, 3, 2}}) {
    for (int t = 0; t < 4; ++t) {
      for (ComputePrecision precision : {ComputePrecision::kFloat32, ComputePrecision::kBfloat16}) {
        BatchMatMulOperands p;
        p.batches = s.batches;
        p.rows = s.rows;
        p.inner = s.inner;
        p.columns = s.columns;
        p.a_transposed = t & 1;
        p.b_transposed = t & 2;
        SCOPED_TRACE(std::to_string(s.batches) + "x" + std::to_string(s.rows) + "x" +
                     std::to_string(s.inner) + "x" + std::to_string(s.columns) + " t" +
                     std::to_string(t) + " " + PrecisionName(precision));
        const Tensor a = RandomFloatTensor({s.batches, s.rows * s.inner}, 1);
        const Tensor b = RandomFloatTensor({s.batches, s.inner * s.columns}, 2);
        Tensor c(DT_FLOAT, TensorShape{s.batches, s.rows, s.columns});
        p.a = a.data<float>();
        p.b = b.data<float>();
        p.c = c.data<float>();
        OneDnnConvOptions options;
        options.precision = precision;
        const bool bf16 = precision == ComputePrecision::kBfloat16 && CpuHasBfloat16();
        if (precision == ComputePrecision::kBfloat16 && !bf16) continue;  // kernels never ask
        ASSERT_TRUE(OneDnnBatchMatMul(options).Run(p, 2, device).ok());
        const Tensor float32 = Reference(p, a, b);
        if (!bf16) {
          ExpectTensorNear(c, float32, 1e-5, 1e-5);
          continue;
        }
        ExpectTensorNear(c, Reference(p, RoundedToBfloat16(a), RoundedToBfloat16(b)), 1e-5,
                         1e-5);
        if (s.inner > 8) EXPECT_GT(MaxAbsDifference(c, float32), 1e-3);
      }
    }
  }
}

}  // namespace
}  // namespace tensord
