#include "kernels/nn/panel_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/nn/panel_test_util.h"

namespace tensord {
namespace {

// The kernel exists only for CPUs with AVX-512F (OneDnnMatMul keeps oneDNN's matmul elsewhere,
// and the matmul and convolution tests cover that path), so availability must follow the CPU's
// own flag, read here from /proc/cpuinfo.
TEST(PanelGemmTest, AvailableExactlyWhereTheCpuHasAvx512f) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool flags_seen = false, avx512f = false;
  while (!flags_seen && std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    flags_seen = true;
    std::istringstream words(line);
    for (std::string word; words >> word;) avx512f = avx512f || word == "avx512f";
  }
  ASSERT_TRUE(flags_seen) << "no flags line in /proc/cpuinfo";
  EXPECT_EQ(PanelGemmAvailable(), avx512f);
}

// Every panel width, row count up to the limit (full and partial passes of rows), a partial
// last panel, padded inner rows, and each of bias, residual and clamp (ReLU6's), against a
// double-precision product.
TEST(PanelGemmTest, MatchesTheProductForEveryWidthAndRowCount) {
  // Like a GPU kernel's test on a machine without a GPU: where the CPU lacks AVX-512F the kernel
  // cannot run (the reference machine and CI have it); the test above checks that it is then
  // reported unavailable, so OneDnnMatMul never calls it.
  if (!PanelGemmAvailable()) GTEST_SKIP() << "this CPU has no AVX-512F";
  for (const int width : {16, 32, 48, 64}) {
    for (int64_t rows = 1; rows <= kPanelGemmMaxRows; ++rows) {
      testing_panels::ExpectProductMatches(PanelGemm, width, rows, /*inner=*/37,
                                           /*padded_inner=*/48, /*columns=*/2 * width + 5);
    }
  }
}

}  // namespace
}  // namespace tensord
