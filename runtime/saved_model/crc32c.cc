#include "runtime/saved_model/crc32c.h"

#include <array>
#include <cstring>

#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

namespace tensord {
namespace crc32c {
namespace {

constexpr uint32_t kPolyReflected = 0x82f63b78u;

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolyReflected : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = MakeTable();

// Both implementations work on the pre/post-inverted register, as the CRC-32C definition does.
uint32_t UpdatePortable(uint32_t state, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) state = kTable[(state ^ p[i]) & 0xff] ^ (state >> 8);
  return state;
}

#ifdef __SSE4_2__
uint32_t UpdateHardware(uint32_t state, const unsigned char* p, size_t n) {
  uint64_t state64 = state;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);  // unaligned load
    state64 = _mm_crc32_u64(state64, word);
  }
  state = static_cast<uint32_t>(state64);
  for (; n > 0; --n, ++p) state = _mm_crc32_u8(state, *p);
  return state;
}
#endif

}  // namespace

uint32_t Extend(uint32_t crc, const char* buf, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(buf);
#ifdef __SSE4_2__
  return ~UpdateHardware(~crc, p, n);
#else
  return ~UpdatePortable(~crc, p, n);
#endif
}

namespace internal {
uint32_t ExtendPortable(uint32_t crc, const char* buf, size_t n) {
  return ~UpdatePortable(~crc, reinterpret_cast<const unsigned char*>(buf), n);
}
}  // namespace internal

}  // namespace crc32c
}  // namespace tensord
