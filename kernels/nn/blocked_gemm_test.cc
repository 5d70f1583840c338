#include "kernels/nn/blocked_gemm.h"

#include "gtest/gtest.h"
#include "kernels/nn/panel_test_util.h"

namespace tensord {
namespace {

// The build targets x86-64-v3 (AVX2 and FMA), so the kernel runs on every machine the tests
// run on, whichever kernel OneDnnMatMul prefers there.
TEST(BlockedGemmTest, MatchesTheProductAcrossTilesAndBlocks) {
  // Rows: one, a partial tile, whole tiles, past one row block (144) with a partial tile.
  // Inner: empty, short, past one inner block (256) with a remainder, several blocks.
  // Columns: a partial panel, one panel, several panels with a partial last one.
  for (const int64_t rows : {1, 5, 6, 13, 150}) {
    for (const int64_t inner : {0, 7, 300, 770}) {
      for (const int64_t columns : {3, 16, 53}) {
        const int64_t padded_inner = (inner + 15) / 16 * 16;
        testing_panels::ExpectProductMatches(BlockedGemm, 16, rows, inner, padded_inner,
                                             columns);
      }
    }
  }
}

}  // namespace
}  // namespace tensord
