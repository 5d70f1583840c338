// BlockedGemm: C = clamp(A × B (+ bias) (+ C), min, max) for products of many rows on CPUs with
// AVX2 and FMA but no AVX-512, where oneDNN 2.6's matmul falls back to its generic jit GEMM
// (measured 42-77 GFLOP/s on one Zen core for BERT-base's Dense shapes, against ~100 peak).
//
// The classic blocked scheme: A is copied, a block of rows by a slice of its columns at a time,
// into 6-row strips; B is read as 16-column panels (PanelMatrix with panel_width 16: the
// BA16a16b layout oneDNN reorders weights into), each slice of a panel staying in L1 while
// every strip of the A block, in L2, passes against it in a 6x16 register tile of FMAs.
//
// Stateless and thread-safe (each call uses a per-thread buffer for A's strips); callers split
// the work between threads.
#ifndef TENSORD_KERNELS_NN_BLOCKED_GEMM_H_
#define TENSORD_KERNELS_NN_BLOCKED_GEMM_H_

#include "kernels/nn/panel_gemm.h"

namespace tensord {

// True where the product should take BlockedGemm rather than oneDNN: CPUs with AVX2 and FMA
// and without AVX-512F (whose oneDNN kernels are brgemm-based and fast).
bool BlockedGemmPreferred();

// Same arguments as PanelGemm (any number of rows; b.panel_width must be 16). Requires AVX2
// and FMA.
void BlockedGemm(const PanelGemmArgs& args);

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_BLOCKED_GEMM_H_
