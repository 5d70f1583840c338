// Rounding float32 operands to bfloat16 for the bf16 matrix products and convolutions
// (runtime/exec/precision.h): the activations a kernel multiplies, per call (weights are
// converted once, by oneDNN's reorder into the packed layout).
#ifndef TENSORD_KERNELS_NN_BFLOAT16_ROUND_H_
#define TENSORD_KERNELS_NN_BFLOAT16_ROUND_H_

#include <cstdint>

namespace tensord {

// to[i] = the bfloat16 bits of from[i], rounded to nearest even, for i in [0, n). Subnormal
// inputs become zero of the same sign and NaNs stay NaNs (quieted), as the CPU's VCVTNEPS2BF16
// does, which runs the conversion where the CPU has AVX512_BF16 (16 values per instruction);
// elsewhere the same rounding in scalar code.
void RoundToBfloat16(const float* from, int64_t n, uint16_t* to);

// The scalar code RoundToBfloat16 falls back to, on any CPU (for the test to check both).
void RoundToBfloat16Portable(const float* from, int64_t n, uint16_t* to);

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_BFLOAT16_ROUND_H_
