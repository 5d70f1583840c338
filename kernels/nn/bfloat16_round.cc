#include "kernels/nn/bfloat16_round.h"

#include <immintrin.h>

#include <cstring>

#include "runtime/exec/precision.h"

namespace tensord {
namespace {

uint16_t RoundOne(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint32_t exponent = bits & 0x7f800000u;
  if (exponent == 0) return static_cast<uint16_t>((bits >> 16) & 0x8000u);  // ±0, subnormal
  if (exponent == 0x7f800000u && (bits & 0x007fffffu) != 0) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // NaN, quieted
  }
  // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit. (Infinities and
  // values that round past the largest finite one end at infinity, as they should.)
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void RoundWithAvx512(
    const float* from, int64_t n, uint16_t* to) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh rounded = _mm512_cvtneps_pbh(_mm512_loadu_ps(from + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + i),
                        reinterpret_cast<const __m256i&>(rounded));
  }
  if (i < n) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m256bh rounded = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mask, from + i));
    _mm256_mask_storeu_epi16(to + i, mask, reinterpret_cast<const __m256i&>(rounded));
  }
}

}  // namespace

void RoundToBfloat16(const float* from, int64_t n, uint16_t* to) {
  static const bool kAvx512Bf16 = CpuHasBfloat16();
  if (kAvx512Bf16) {
    RoundWithAvx512(from, n, to);
    return;
  }
  RoundToBfloat16Portable(from, n, to);
}

void RoundToBfloat16Portable(const float* from, int64_t n, uint16_t* to) {
  for (int64_t i = 0; i < n; ++i) to[i] = RoundOne(from[i]);
}

}  // namespace tensord
