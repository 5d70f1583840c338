// Test helpers for the kernels that read B as packed panels (PanelGemm, BlockedGemm): the
// product of every combination of bias, residual and clamp checked against a double-precision
// reference.
#ifndef TENSORD_KERNELS_NN_PANEL_TEST_UTIL_H_
#define TENSORD_KERNELS_NN_PANEL_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/nn/panel_gemm.h"

namespace tensord {
namespace testing_panels {

// B [inner, columns] packed as panels of `width` columns, with `padded_inner` rows per panel
// (the rows past `inner` and the columns past `columns` hold garbage the product must ignore).
inline std::vector<float> Pack(const std::vector<float>& b, int64_t inner, int64_t columns,
                               int width, int64_t padded_inner) {
  const int64_t panels = (columns + width - 1) / width;
  std::vector<float> packed(panels * padded_inner * width, 1e30f);
  for (int64_t p = 0; p < panels; ++p) {
    for (int64_t k = 0; k < inner; ++k) {
      for (int j = 0; j < width && p * width + j < columns; ++j) {
        packed[(p * padded_inner + k) * width + j] = b[k * columns + p * width + j];
      }
    }
  }
  return packed;
}

inline float Value(int64_t i, int salt) {
  return static_cast<float>((i * 7919 + salt * 104729) % 201) / 100.0f - 1.0f;
}

// Runs `gemm` on rows x inner x columns with A's and C's rows longer than used, once per
// combination of bias, residual and clamp (ReLU6's), and checks every value of C: the product
// where it belongs, untouched elsewhere.
template <typename Gemm>
void ExpectProductMatches(Gemm gemm, int width, int64_t rows, int64_t inner,
                          int64_t padded_inner, int64_t columns) {
  std::vector<float> b(inner * columns);
  for (int64_t i = 0; i < static_cast<int64_t>(b.size()); ++i) b[i] = Value(i, width);
  const std::vector<float> packed = Pack(b, inner, columns, width, padded_inner);
  std::vector<float> bias(columns);
  for (int64_t j = 0; j < columns; ++j) bias[j] = Value(j, 3);
  const int64_t lda = inner + 3;  // A's rows are longer than B's inner dimension
  std::vector<float> a(rows * lda);
  for (int64_t i = 0; i < static_cast<int64_t>(a.size()); ++i) a[i] = Value(i, 5);
  for (const bool with_bias : {false, true}) {
    for (const bool residual : {false, true}) {
      const bool clamp = residual != with_bias;
      const int64_t ldc = columns + 2;
      std::vector<float> c(rows * ldc);
      for (int64_t i = 0; i < static_cast<int64_t>(c.size()); ++i) c[i] = Value(i, 7);
      const std::vector<float> before = c;
      PanelGemmArgs args;
      args.a = a.data();
      args.lda = lda;
      args.rows = rows;
      args.b = PanelMatrix{packed.data(), inner, columns, width, padded_inner * width};
      args.bias = with_bias ? bias.data() : nullptr;
      args.add_residual = residual;
      if (clamp) {
        args.min = 0.0f;
        args.max = 6.0f;
      }
      args.c = c.data();
      args.ldc = ldc;
      gemm(args);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < ldc; ++j) {
          const float got = c[r * ldc + j];
          if (j >= columns) {  // beyond C's columns: untouched
            ASSERT_EQ(got, before[r * ldc + j]);
            continue;
          }
          double want = with_bias ? bias[j] : 0.0;
          if (residual) want += before[r * ldc + j];
          for (int64_t k = 0; k < inner; ++k) {
            want += static_cast<double>(a[r * lda + k]) * b[k * columns + j];
          }
          if (clamp) want = std::min(std::max(want, 0.0), 6.0);
          ASSERT_NEAR(got, want, 1e-5 * (1 + std::fabs(want)) * (1 + inner / 256))
              << "width " << width << " rows " << rows << " inner " << inner << " r " << r
              << " j " << j << " bias " << with_bias << " residual " << residual << " clamp "
              << clamp;
        }
      }
    }
  }
}

}  // namespace testing_panels
}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_PANEL_TEST_UTIL_H_
