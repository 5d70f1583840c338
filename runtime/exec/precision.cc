#include "runtime/exec/precision.h"

#include <cpuid.h>

#include <cstdint>

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

namespace {

// What CPUID and XCR0 say, read once. Both the CPU's feature bit and the operating system's
// saving of the registers (XCR0) are needed; compilers' __builtin_cpu_supports do not all know
// the AMX names, so the bits are read here.
struct CpuFeatures {
  bool bfloat16 = false;
  bool amx_bfloat16 = false;

  CpuFeatures() {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return;  // OSXSAVE
    uint32_t xcr0_low, xcr0_high;
    asm volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    const uint64_t xcr0 = (static_cast<uint64_t>(xcr0_high) << 32) | xcr0_low;
    constexpr uint64_t kAvx512State = 0xe6;      // SSE, AVX, opmask, both ZMM halves
    constexpr uint64_t kAmxState = 0x3ull << 17;  // TILECFG, TILEDATA
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return;
    const unsigned max_subleaf = eax;
    const bool avx512f = ebx & (1u << 16);
    const bool amx_bf16 = edx & (1u << 22), amx_tile = edx & (1u << 24);
    if (max_subleaf < 1 || !avx512f || (xcr0 & kAvx512State) != kAvx512State) return;
    if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return;
    bfloat16 = eax & (1u << 5);  // AVX512_BF16
    amx_bfloat16 = bfloat16 && amx_bf16 && amx_tile && (xcr0 & kAmxState) == kAmxState;
  }
};

const CpuFeatures& Features() {
  static const CpuFeatures features;
  return features;
}

}  // namespace

bool CpuHasBfloat16() { return Features().bfloat16; }
bool CpuHasAmxBfloat16() { return Features().amx_bfloat16; }

}  // namespace tensord
