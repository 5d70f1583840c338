#include "runtime/exec/precision.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace tensord {
namespace {

TEST(PrecisionTest, ParsesItsNames) {
  for (ComputePrecision p : {ComputePrecision::kFloat32, ComputePrecision::kBfloat16}) {
    absl::StatusOr<ComputePrecision> parsed = ParsePrecision(PrecisionName(p));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, p);
  }
  EXPECT_EQ(PrecisionName(ComputePrecision::kBfloat16), "bf16");
  EXPECT_EQ(PrecisionName(ComputePrecision::kFloat32), "fp32");
}

TEST(PrecisionTest, RejectsOtherTextsNamingThem) {
  for (const char* text : {"", "fp16", "BF16", "bfloat16 ", "int8"}) {
    absl::StatusOr<ComputePrecision> parsed = ParsePrecision(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(),
              std::string("precision '") + text + "' is not one of fp32, bf16");
  }
}

// The kernel's own account of the CPU (/proc/cpuinfo's flags) agrees with the detection.
TEST(PrecisionTest, DetectionAgreesWithTheKernelsCpuFlags) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  ASSERT_TRUE(cpuinfo.good());
  std::string line;
  std::set<std::string> flags;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string flag; words >> flag;) flags.insert(flag);
    break;
  }
  ASSERT_FALSE(flags.empty());
  EXPECT_EQ(CpuHasBfloat16(), flags.count("avx512_bf16") == 1);
  EXPECT_EQ(CpuHasAmxBfloat16(), flags.count("avx512_bf16") == 1 && flags.count("amx_bf16") == 1);
}

}  // namespace
}  // namespace tensord
