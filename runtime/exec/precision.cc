#include "runtime/exec/precision.h"

#include "absl/strings/str_cat.h"

namespace tensord {

std::string PrecisionName(ComputePrecision precision) {
  return precision == ComputePrecision::kBfloat16 ? "bf16" : "fp32";
}

absl::StatusOr<ComputePrecision> ParsePrecision(absl::string_view text) {
  if (text == "fp32") return ComputePrecision::kFloat32;
  if (text == "bf16") return ComputePrecision::kBfloat16;
  return absl::InvalidArgumentError(
      absl::StrCat("precision '", text, "' is not one of fp32, bf16"));
}

// GCC's checks include the operating system's support for the registers (XCR0).
bool CpuHasBfloat16() { return __builtin_cpu_supports("avx512bf16"); }
bool CpuHasAmxBfloat16() { return CpuHasBfloat16() && __builtin_cpu_supports("amx-bf16"); }

}  // namespace tensord
