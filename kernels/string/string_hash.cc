#include "kernels/string/string_hash.h"

#include <cstring>
#include <utility>

namespace tensord {
namespace string_ops {
namespace {

// FarmHash's 64-bit primes.
constexpr uint64_t kK0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kK1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kK2 = 0x9ae16a3b2f90404fULL;

// Loads are little-endian by definition of the hash; the targets we build for are little-endian.
uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

uint64_t RotateRight(uint64_t v, int shift) {
  return shift == 0 ? v : (v >> shift) | (v << (64 - shift));
}
uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }

uint64_t HashLen16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

uint64_t HashLen0to16(const char* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = kK2 + len * 2;
    const uint64_t a = Load64(s) + kK2;
    const uint64_t b = Load64(s + len - 8);
    const uint64_t c = RotateRight(b, 37) * mul + a;
    const uint64_t d = (RotateRight(a, 25) + b) * mul;
    return HashLen16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = kK2 + len * 2;
    const uint64_t a = Load32(s);
    return HashLen16(len + (a << 3), Load32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint8_t a = static_cast<uint8_t>(s[0]);
    const uint8_t b = static_cast<uint8_t>(s[len >> 1]);
    const uint8_t c = static_cast<uint8_t>(s[len - 1]);
    const uint32_t y = static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z = static_cast<uint32_t>(len) + (static_cast<uint32_t>(c) << 2);
    return ShiftMix(y * kK2 ^ z * kK0) * kK2;
  }
  return kK2;
}

uint64_t HashLen17to32(const char* s, size_t len) {
  const uint64_t mul = kK2 + len * 2;
  const uint64_t a = Load64(s) * kK1;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * kK2;
  return HashLen16(RotateRight(a + b, 43) + RotateRight(c, 30) + d,
                   a + RotateRight(b + kK2, 18) + c, mul);
}

uint64_t HashLen33to64(const char* s, size_t len) {
  const uint64_t mul = kK2 + len * 2;
  const uint64_t a = Load64(s) * kK2;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * kK2;
  const uint64_t y = RotateRight(a + b, 43) + RotateRight(c, 30) + d;
  const uint64_t z = HashLen16(y, a + RotateRight(b + kK2, 18) + c, mul);
  const uint64_t e = Load64(s + 16) * mul;
  const uint64_t f = Load64(s + 24);
  const uint64_t g = (y + Load64(s + len - 32)) * mul;
  const uint64_t h = (z + Load64(s + len - 24)) * mul;
  return HashLen16(RotateRight(e + f, 43) + RotateRight(g, 30) + h, e + RotateRight(f + a, 18) + g,
                   mul);
}

// Mixes 32 bytes (w, x, y, z) into the seed pair (a, b).
std::pair<uint64_t, uint64_t> WeakHashLen32WithSeeds(const char* s, uint64_t a, uint64_t b) {
  const uint64_t w = Load64(s);
  const uint64_t x = Load64(s + 8);
  const uint64_t y = Load64(s + 16);
  const uint64_t z = Load64(s + 24);
  a += w;
  b = RotateRight(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += RotateRight(a, 44);
  return {a + z, b + c};
}

uint64_t HashLongerThan64(const char* s, size_t len) {
  constexpr uint64_t kSeed = 81;
  uint64_t x = kSeed;
  uint64_t y = kSeed * kK1 + 113;
  uint64_t z = ShiftMix(y * kK2 + 113) * kK2;
  std::pair<uint64_t, uint64_t> v{0, 0};
  std::pair<uint64_t, uint64_t> w{0, 0};
  x = x * kK2 + Load64(s);

  // Whole 64-byte blocks except the last (possibly partial) one, which is re-read as the
  // final 64 bytes of the input.
  const char* end = s + ((len - 1) / 64) * 64;
  const char* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = RotateRight(x + y + v.first + Load64(s + 8), 37) * kK1;
    y = RotateRight(y + v.second + Load64(s + 48), 42) * kK1;
    x ^= w.second;
    y += v.first + Load64(s + 40);
    z = RotateRight(z + w.first, 33) * kK1;
    v = WeakHashLen32WithSeeds(s, v.second * kK1, x + w.first);
    w = WeakHashLen32WithSeeds(s + 32, z + w.second, y + Load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);

  const uint64_t mul = kK1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((len - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = RotateRight(x + y + v.first + Load64(s + 8), 37) * mul;
  y = RotateRight(y + v.second + Load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Load64(s + 40);
  z = RotateRight(z + w.first, 33) * mul;
  v = WeakHashLen32WithSeeds(s, v.second * mul, x + w.first);
  w = WeakHashLen32WithSeeds(s + 32, z + w.second, y + Load64(s + 16));
  std::swap(z, x);
  return HashLen16(HashLen16(v.first, w.first, mul) + ShiftMix(y) * kK0 + z,
                   HashLen16(v.second, w.second, mul) + x, mul);
}

uint64_t RotateLeft(uint64_t v, int shift) { return (v << shift) | (v >> (64 - shift)); }

struct SipState {
  uint64_t v0, v1, v2, v3;
  void Round() {
    v0 += v1;
    v1 = RotateLeft(v1, 13);
    v1 ^= v0;
    v0 = RotateLeft(v0, 32);
    v2 += v3;
    v3 = RotateLeft(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = RotateLeft(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = RotateLeft(v1, 17);
    v1 ^= v2;
    v2 = RotateLeft(v2, 32);
  }
  void Absorb(uint64_t m) {
    v3 ^= m;
    Round();
    Round();
    v0 ^= m;
  }
};

}  // namespace

uint64_t Fingerprint64(absl::string_view str) {
  const char* s = str.data();
  const size_t len = str.size();
  if (len <= 16) return HashLen0to16(s, len);
  if (len <= 32) return HashLen17to32(s, len);
  if (len <= 64) return HashLen33to64(s, len);
  return HashLongerThan64(s, len);
}

uint64_t SipHash24(uint64_t key0, uint64_t key1, absl::string_view str) {
  SipState st{key0 ^ 0x736f6d6570736575ULL, key1 ^ 0x646f72616e646f6dULL,
              key0 ^ 0x6c7967656e657261ULL, key1 ^ 0x7465646279746573ULL};
  const size_t len = str.size();
  const size_t whole = len - len % 8;
  for (size_t i = 0; i < whole; i += 8) st.Absorb(Load64(str.data() + i));
  // The last word holds the remaining bytes and the length's low byte at the top.
  uint64_t last = static_cast<uint64_t>(len & 0xff) << 56;
  for (size_t i = whole; i < len; ++i) {
    last |= static_cast<uint64_t>(static_cast<uint8_t>(str[i])) << (8 * (i - whole));
  }
  st.Absorb(last);
  st.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) st.Round();
  return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

}  // namespace string_ops
}  // namespace tensord
