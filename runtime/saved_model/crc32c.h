// CRC-32C (Castagnoli), as used by TensorFlow's checkpoints, LevelDB tables and TFRecord files,
// and the "masked" form those formats store so that a CRC of data that itself contains CRCs does
// not degenerate.
//
//   uint32_t crc = crc32c::Value(bytes.data(), bytes.size());
//   crc = crc32c::Extend(crc, more.data(), more.size());   // == Value(bytes ‖ more)
//   stored == crc32c::Mask(crc)
//
// Uses the SSE4.2 crc32 instruction when the build targets it, a byte table otherwise.
#ifndef TENSORD_RUNTIME_SAVED_MODEL_CRC32C_H_
#define TENSORD_RUNTIME_SAVED_MODEL_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace tensord {
namespace crc32c {

// The CRC of data ‖ [buf, buf + n) given crc = the CRC of data (0 for empty data).
uint32_t Extend(uint32_t crc, const char* buf, size_t n);

inline uint32_t Value(const char* buf, size_t n) { return Extend(0, buf, n); }

constexpr uint32_t kMaskDelta = 0xa282ead8u;

// Rotate right by 15 bits, then add a constant.
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

// Whether a stored checksum accepts the computed one. Fuzzing builds (--config=fuzz defines
// FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, the usual convention) accept any, so that the fuzzer
// reaches the parsing behind the checksum; every other build compares.
inline bool ChecksumMatches(uint32_t stored, uint32_t computed) {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  (void)stored;
  (void)computed;
  return true;
#else
  return stored == computed;
#endif
}

namespace internal {
// The table-driven implementation, exposed so tests can compare it with the hardware path.
uint32_t ExtendPortable(uint32_t crc, const char* buf, size_t n);
}  // namespace internal

}  // namespace crc32c
}  // namespace tensord

#endif  // TENSORD_RUNTIME_SAVED_MODEL_CRC32C_H_
