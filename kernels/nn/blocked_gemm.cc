#include "kernels/nn/blocked_gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace tensord {
namespace {

constexpr int kTileRows = 6;      // 6 x 2 accumulators + 2 panel vectors + 1 broadcast
constexpr int kTileColumns = 16;  // one panel
// A slice of a panel (at most kMaxInnerBlock x 16 floats, 24 KB) stays in L1; a block of A
// (kRowBlock x kMaxInnerBlock floats, 216 KB) in L2. Every slice but the last adds to C.
constexpr int64_t kMaxInnerBlock = 384;
constexpr int64_t kRowBlock = 144;  // a multiple of kTileRows

// Rows [first, first + rows) and columns [k0, k0 + depth) of A into strips of kTileRows rows,
// each strip `depth` steps of kTileRows floats; rows past the end are zero.
void PackStrips(const PanelGemmArgs& args, int64_t first, int64_t rows, int64_t k0,
                int64_t depth, float* out) {
  for (int64_t strip = 0; strip < rows; strip += kTileRows) {
    const int64_t valid = std::min<int64_t>(kTileRows, rows - strip);
    const float* a = args.a + (first + strip) * args.lda + k0;
    if (valid == kTileRows) {
      for (int64_t k = 0; k < depth; ++k) {
        for (int r = 0; r < kTileRows; ++r) out[k * kTileRows + r] = a[r * args.lda + k];
      }
    } else {
      for (int64_t k = 0; k < depth; ++k) {
        for (int r = 0; r < kTileRows; ++r) {
          out[k * kTileRows + r] = r < valid ? a[r * args.lda + k] : 0.0f;
        }
      }
    }
    out += depth * kTileRows;
  }
}

struct TileEpilogue {
  bool accumulate;    // add what C holds
  bool last;          // the last slice of the inner dimension: bias and clamp
  const float* bias;  // the tile's 16 columns, or null
  float min, max;
};

// Adds, biases and clamps one row of a tile in registers and stores it.
inline void StoreRow(__m256 v0, __m256 v1, float* out, const TileEpilogue& e, __m256 bias0,
                     __m256 bias1) {
  if (e.accumulate) {
    v0 = _mm256_add_ps(v0, _mm256_loadu_ps(out));
    v1 = _mm256_add_ps(v1, _mm256_loadu_ps(out + 8));
  }
  if (e.last) {
    const __m256 lo = _mm256_set1_ps(e.min), hi = _mm256_set1_ps(e.max);
    v0 = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v0, bias0), lo), hi);
    v1 = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v1, bias1), lo), hi);
  }
  _mm256_storeu_ps(out, v0);
  _mm256_storeu_ps(out + 8, v1);
}

// One 6x16 tile: strip (depth x 6) times panel slice (depth x 16), into C rows x columns.
void Tile(int64_t depth, const float* strip, const float* panel, float* c, int64_t ldc,
          int rows, int columns, const TileEpilogue& e) {
  // C's rows are wanted at the end; fetching them now hides the (strided) misses.
  for (int r = 0; r < rows; ++r) _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
  __m256 acc[kTileRows][2];
  for (int r = 0; r < kTileRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t k = 0; k < depth; ++k) {
    const __m256 b0 = _mm256_loadu_ps(panel);
    const __m256 b1 = _mm256_loadu_ps(panel + 8);
    _mm_prefetch(reinterpret_cast<const char*>(panel + 8 * kTileColumns), _MM_HINT_T0);
#pragma GCC unroll 6
    for (int r = 0; r < kTileRows; ++r) {
      const __m256 x = _mm256_broadcast_ss(strip + r);
      acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
    }
    strip += kTileRows;
    panel += kTileColumns;
  }
  // The accumulators leave registers once, here, through constant indices: indexing them by a
  // run-time row would keep them in memory throughout the loop above.
  alignas(32) float tile[kTileRows][kTileColumns];
#pragma GCC unroll 6
  for (int r = 0; r < kTileRows; ++r) {
    _mm256_store_ps(tile[r], acc[r][0]);
    _mm256_store_ps(tile[r] + 8, acc[r][1]);
  }
  alignas(32) float bias[kTileColumns] = {};
  if (e.last && e.bias != nullptr) std::memcpy(bias, e.bias, columns * sizeof(float));
  const __m256 bias0 = _mm256_load_ps(bias), bias1 = _mm256_load_ps(bias + 8);
  for (int r = 0; r < rows; ++r) {
    float* out = c + r * ldc;
    if (columns == kTileColumns) {
      StoreRow(_mm256_load_ps(tile[r]), _mm256_load_ps(tile[r] + 8), out, e, bias0, bias1);
      continue;
    }
    // A partial panel: through a buffer, so that only C's own columns are read and written.
    alignas(32) float row[kTileColumns];
    std::memcpy(row, out, columns * sizeof(float));
    StoreRow(_mm256_load_ps(tile[r]), _mm256_load_ps(tile[r] + 8), row, e, bias0, bias1);
    std::memcpy(out, row, columns * sizeof(float));
  }
}

// The strips of one block of A, reused by successive calls on a thread.
float* StripBuffer() {
  constexpr size_t kFloats = kRowBlock * kMaxInnerBlock;
  thread_local std::unique_ptr<float, decltype(&std::free)> buffer(
      static_cast<float*>(std::aligned_alloc(64, kFloats * sizeof(float))), &std::free);
  return buffer.get();
}

}  // namespace

bool BlockedGemmPreferred() {
  static const bool preferred = __builtin_cpu_supports("avx2") &&
                                __builtin_cpu_supports("fma") &&
                                !__builtin_cpu_supports("avx512f");
  return preferred;
}

void BlockedGemm(const PanelGemmArgs& args) {
  const PanelMatrix& b = args.b;
  const int64_t panels = (b.columns + kTileColumns - 1) / kTileColumns;
  float* strips = StripBuffer();
  // An empty inner dimension still writes C: bias (+ C), clamped.
  const int64_t inner = std::max<int64_t>(b.inner, 1);
  // Equal slices: fewer passes over C than fixed-size ones with a short remainder.
  const int64_t slices = (inner + kMaxInnerBlock - 1) / kMaxInnerBlock;
  const int64_t slice = (inner + slices - 1) / slices;
  for (int64_t k0 = 0; k0 < inner; k0 += slice) {
    const int64_t depth = std::min(slice, b.inner - k0);
    TileEpilogue e;
    e.accumulate = k0 > 0 || args.add_residual;
    e.last = k0 + slice >= inner;
    e.min = args.min;
    e.max = args.max;
    for (int64_t i0 = 0; i0 < args.rows; i0 += kRowBlock) {
      const int64_t rows = std::min(kRowBlock, args.rows - i0);
      PackStrips(args, i0, rows, k0, depth, strips);
      for (int64_t p = 0; p < panels; ++p) {
        const float* panel = b.data + p * b.panel_stride + k0 * kTileColumns;
        const int columns =
            static_cast<int>(std::min<int64_t>(kTileColumns, b.columns - p * kTileColumns));
        e.bias = args.bias != nullptr ? args.bias + p * kTileColumns : nullptr;
        for (int64_t s = 0; s < rows; s += kTileRows) {
          Tile(depth, strips + s * depth, panel,
               args.c + (i0 + s) * args.ldc + p * kTileColumns, args.ldc,
               static_cast<int>(std::min<int64_t>(kTileRows, rows - s)), columns, e);
        }
      }
    }
  }
}

}  // namespace tensord
