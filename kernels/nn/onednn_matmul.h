// OneDnnMatMul: C = epilogue(A × B + bias) in float32 through oneDNN's matmul, with B a
// weights-like tensor that is reordered once into oneDNN's layout and cached per buffer
// (onednn::WeightsCache). The epilogue is the kernel's fusion: the residual sum (over what C
// holds) and the activation.
//
// Work is split over the intra-op pool by rows of A when there are many, otherwise by columns
// of B: each part then reads only its share of B, which bounds single-row products (a Dense
// layer at batch 1 reads every weight once per call). Row parts run in calls of at most
// kMaxRowsPerCall rows, so A's rows may be produced on demand into a bounded buffer (the
// convolution's im2col patches).
//
// With the options' precision bf16, B is packed as bfloat16 and A's rows are rounded to
// bfloat16 per call (once for all column parts); products accumulate in float32 and C, bias and
// epilogue stay float32. oneDNN then runs its AMX or AVX512_BF16 kernels.
//
// Thread-safe: Run may be called concurrently; caches are guarded, primitives are reentrant.
#ifndef TENSORD_KERNELS_NN_ONEDNN_MATMUL_H_
#define TENSORD_KERNELS_NN_ONEDNN_MATMUL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "kernels/nn/conv_fusion.h"
#include "kernels/nn/plan_cache.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_eigen.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {
namespace onednn {
class WeightsCache;
}  // namespace onednn

// The operands of one product. Shapes: A [rows, inner], B [inner, columns] (stored
// [columns, inner] when b_transposed), C [rows, columns], all row-major and dense.
struct MatMulOperands {
  int64_t rows = 0, inner = 0, columns = 0;
  // A's rows, or null when `fill_rows` produces them: fill_rows(first, end, out) writes rows
  // [first, end) densely to `out`.
  const float* a = nullptr;
  std::function<void(int64_t, int64_t, float*)> fill_rows;
  const Tensor* b = nullptr;
  bool b_transposed = false;
  const float* bias = nullptr;  // [columns] or null
  // Apply the options' residual sum and activation (else the caller does).
  bool epilogue = true;
  float* c = nullptr;
};

struct PanelGemmArgs;
struct PanelMatrix;

class OneDnnMatMul {
 public:
  // One thread's share of a product: a range of rows with every column, or every row with a
  // range of columns.
  struct Part {
    int64_t first_row, end_row, first_column, end_column;
  };

  // Most rows one oneDNN call takes: bounds the produced-rows buffer and the call's working
  // set.
  static constexpr int64_t kMaxRowsPerCall = 256;

  explicit OneDnnMatMul(OneDnnConvOptions options);
  ~OneDnnMatMul();

  // Runs the product split over up to `threads` of `device`'s threads. oneDNN failures become
  // statuses.
  absl::Status Run(const MatMulOperands& m, int threads,
                   const Eigen::ThreadPoolDevice& device) const;

 private:
  struct Plan;
  // The cached product of `rows` rows by B's columns [first_column, first_column + columns),
  // created on first use and never removed while the kernel lives.
  const Plan& PlanFor(const MatMulOperands& m, int64_t rows, int64_t columns,
                      bool with_bias) const;

  // The product through BlockedGemm (BlockedGemmPreferred), split as `parts`. `shared_rows`:
  // A's rows, or null to produce them with m.fill_rows.
  absl::Status RunBlocked(const MatMulOperands& m, const std::vector<Part>& parts,
                          const float* shared_rows, const Eigen::ThreadPoolDevice& device) const;
  // `rows` rows of A times `panels` (B's columns from `first_column` on) into C with row
  // stride `ldc`, through `kernel` (PanelGemm or BlockedGemm), with the options' epilogue.
  void RunPanelKernel(void (*kernel)(const PanelGemmArgs&), const MatMulOperands& m,
                      const float* a, int64_t rows, const PanelMatrix& panels,
                      int64_t first_column, float* c, int64_t ldc) const;

  const OneDnnConvOptions options_;
  mutable PlanCache<Plan> plans_;
  const std::unique_ptr<onednn::WeightsCache> weights_;  // thread-safe
};

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_ONEDNN_MATMUL_H_
