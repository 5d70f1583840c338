// PanelGemm: C = epilogue(A × B + bias) for products of few rows (a batch-1 Dense layer, a
// convolution over a few pixels), where the time goes into reading B once from memory.
//
// B is read as oneDNN packs matmul weights for AVX-512 (BA16a<W>b): panels of W columns (W a
// multiple of 16, at most 64), each panel holding its rows one after another, W floats a row,
// panels `panel_stride` floats apart. The kernel streams each panel once, with software
// prefetch, with up to 4 rows of A against it in registers at a time: measured 1.5-1.9× the
// speed of oneDNN's own matmul for 1-4 rows and 1.3× for 16 (weights beyond the caches).
//
// Needs AVX-512F (PanelGemmAvailable); the library itself is built for AVX2, so only this
// file's kernel uses AVX-512, chosen at run time. Stateless and thread-safe.
#ifndef TENSORD_KERNELS_NN_PANEL_GEMM_H_
#define TENSORD_KERNELS_NN_PANEL_GEMM_H_

#include <cstdint>
#include <limits>

namespace tensord {

// B as packed panels.
struct PanelMatrix {
  const float* data = nullptr;
  int64_t inner = 0;         // rows of B (A's columns)
  int64_t columns = 0;       // B's columns; the last panel may be partly padding
  int panel_width = 0;       // W: 16, 32, 48 or 64
  int64_t panel_stride = 0;  // floats from one panel to the next (>= inner * W)
};

struct PanelGemmArgs {
  const float* a = nullptr;  // [rows, lda], row-major; the first b.inner columns are used
  int64_t lda = 0;
  int64_t rows = 0;  // at most kPanelGemmMaxRows
  PanelMatrix b;
  const float* bias = nullptr;  // [b.columns] or null
  bool add_residual = false;    // add what c holds (a residual connection) before storing
  // Results are clamped to [min, max] last: ReLU is [0, inf), ReLU6 [0, 6].
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
  float* c = nullptr;  // [rows, ldc], row-major
  int64_t ldc = 0;
};

// More rows than this stop being bound by reading B; oneDNN's blocked kernels do better.
constexpr int64_t kPanelGemmMaxRows = 16;

// True on CPUs with AVX-512F.
bool PanelGemmAvailable();

// c = clamp(a × b (+ bias) (+ c when add_residual), min, max). Requires PanelGemmAvailable() and
// rows <= kPanelGemmMaxRows.
void PanelGemm(const PanelGemmArgs& args);

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_PANEL_GEMM_H_
