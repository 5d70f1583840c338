// OneDnnBatchMatMul: C[b] = op(A[b]) × op(B[b]) for every b of a batch of float32 matrices of
// one shape, through oneDNN's batched matmul: the products of two batches of activations
// (attention's scores and weighted values, as Einsum and BatchMatMul write them), which Eigen
// would run with its AVX2 kernels.
//
// A is [batches, rows, inner] (stored [batches, inner, rows] when a_transposed), B is
// [batches, inner, columns] ([batches, columns, inner] when b_transposed), C is
// [batches, rows, columns]; all dense. The batch is split over the intra-op pool by ranges of
// matrices, each a single-threaded oneDNN call. With the options' precision bf16 both operands
// are rounded to bfloat16 per call and the sums stay float32.
//
// Thread-safe: Run may be called concurrently; the plan cache is guarded, primitives are
// reentrant.
#ifndef TENSORD_KERNELS_NN_ONEDNN_BATCH_MATMUL_H_
#define TENSORD_KERNELS_NN_ONEDNN_BATCH_MATMUL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "kernels/nn/conv_fusion.h"
#include "kernels/nn/plan_cache.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_eigen.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {

struct BatchMatMulOperands {
  int64_t batches = 0, rows = 0, inner = 0, columns = 0;
  bool a_transposed = false, b_transposed = false;
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
};

class OneDnnBatchMatMul {
 public:
  // Only the options' precision applies (the products have no fused epilogue).
  explicit OneDnnBatchMatMul(OneDnnConvOptions options);
  ~OneDnnBatchMatMul();

  // Runs the products split over up to `threads` of `device`'s threads. The inner dimension
  // must not be empty. oneDNN failures become statuses.
  absl::Status Run(const BatchMatMulOperands& p, int threads,
                   const Eigen::ThreadPoolDevice& device) const;

  // A kernel's whole use of Run: on the threads of `c`'s CPU device that the oneDNN kernels
  // running now leave free (onednn::FreeThreads), errors naming the node.
  absl::Status Compute(OpKernelContext* c, const BatchMatMulOperands& p) const;

 private:
  struct Plan;
  // The cached primitive for `batches` matrices of p's shape.
  const Plan& PlanFor(const BatchMatMulOperands& p, int64_t batches) const;

  const OneDnnConvOptions options_;
  mutable PlanCache<Plan> plans_;
};

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_ONEDNN_BATCH_MATMUL_H_
