#include "kernels/nn/panel_gemm.h"

#include <immintrin.h>

namespace tensord {
namespace {

// Rows of A held against one panel at a time: R × V accumulators of 16 floats (at most 16
// registers), plus V for the panel's row and one broadcast.
constexpr int kRowsPerPass = 4;
// Panel rows to prefetch ahead: far enough to cover memory latency at streaming rates.
constexpr int kPrefetchRows = 16;

// Rows [0, R) of A against one panel of V vectors (16 V columns, `valid` of them real).
template <int R, int V>
__attribute__((target("avx512f"))) void PanelPass(const PanelGemmArgs& args, const float* a,
                                                  const float* panel, int valid, const float* bias,
                                                  float* c) {
  __m512 acc[R][V];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  const int64_t inner = args.b.inner;
  for (int64_t k = 0; k < inner; ++k) {
    const float* row = panel + k * 16 * V;
    __m512 b[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      _mm_prefetch(reinterpret_cast<const char*>(row + (kPrefetchRows * V + v) * 16), _MM_HINT_T0);
      b[v] = _mm512_loadu_ps(row + 16 * v);
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * args.lda + k]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(x, b[v], acc[r][v]);
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    const int lanes = valid - 16 * v;
    if (lanes <= 0) break;
    const __mmask16 mask =
        lanes >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << lanes) - 1);
    const __m512 bias_v =
        bias != nullptr ? _mm512_maskz_loadu_ps(mask, bias + 16 * v) : _mm512_setzero_ps();
    const __m512 low = _mm512_set1_ps(args.min), high = _mm512_set1_ps(args.max);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* out = c + r * args.ldc + 16 * v;
      __m512 x = _mm512_add_ps(acc[r][v], bias_v);
      if (args.add_residual) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mask, out));
      x = _mm512_min_ps(_mm512_max_ps(x, low), high);
      _mm512_mask_storeu_ps(out, mask, x);
    }
  }
}

template <int V>
void PanelAllRows(const PanelGemmArgs& args, const float* panel, int valid, const float* bias,
                  float* c) {
  int64_t r = 0;
  for (; r + kRowsPerPass <= args.rows; r += kRowsPerPass) {
    PanelPass<kRowsPerPass, V>(args, args.a + r * args.lda, panel, valid, bias, c + r * args.ldc);
  }
  const float* a = args.a + r * args.lda;
  float* rest = c + r * args.ldc;
  switch (args.rows - r) {
    case 3:
      PanelPass<3, V>(args, a, panel, valid, bias, rest);
      break;
    case 2:
      PanelPass<2, V>(args, a, panel, valid, bias, rest);
      break;
    case 1:
      PanelPass<1, V>(args, a, panel, valid, bias, rest);
      break;
    default:
      break;
  }
}

}  // namespace

bool PanelGemmAvailable() {
  static const bool available = __builtin_cpu_supports("avx512f");
  return available;
}

void PanelGemm(const PanelGemmArgs& args) {
  const PanelMatrix& b = args.b;
  const int width = b.panel_width;
  for (int64_t first = 0, p = 0; first < b.columns; first += width, ++p) {
    const int valid = static_cast<int>(b.columns - first < width ? b.columns - first : width);
    const float* panel = b.data + p * b.panel_stride;
    const float* bias = args.bias != nullptr ? args.bias + first : nullptr;
    float* c = args.c + first;
    switch (width) {
      case 16:
        PanelAllRows<1>(args, panel, valid, bias, c);
        break;
      case 32:
        PanelAllRows<2>(args, panel, valid, bias, c);
        break;
      case 48:
        PanelAllRows<3>(args, panel, valid, bias, c);
        break;
      default:
        PanelAllRows<4>(args, panel, valid, bias, c);
        break;
    }
  }
}

}  // namespace tensord
