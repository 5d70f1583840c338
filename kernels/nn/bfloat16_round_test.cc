#include "kernels/nn/bfloat16_round.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tensord {
namespace {

float Widen(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// The value of bfloat16 `bits` as a double, where infinity stands for 2^128: the step past the
// largest finite value, which rounding measures the distance to.
double Step(uint16_t bits) {
  if ((bits & 0x7fff) == 0x7f80) {
    return (bits & 0x8000) ? -std::ldexp(1.0, 128) : std::ldexp(1.0, 128);
  }
  return Widen(bits);
}

// What rounding to nearest even means, from the two bfloat16 neighbours of `value` (finite,
// normal): the closer one, or on a tie the one whose last bit is 0.
uint16_t Nearest(float value) {
  const uint16_t below = static_cast<uint16_t>(Bits(value) >> 16);  // truncation, toward 0
  const uint16_t above = static_cast<uint16_t>(below + 1);          // one step away from 0
  const double to_below = std::fabs(static_cast<double>(value) - Step(below));
  const double to_above = std::fabs(Step(above) - static_cast<double>(value));
  if (to_below != to_above) return to_below < to_above ? below : above;
  return (below & 1) == 0 ? below : above;
}

// Random normal floats of every magnitude, exact ties, the special values, and a length that
// leaves a tail shorter than a vector.
std::vector<float> Inputs() {
  std::vector<float> values;
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits(0, 0xffffffffu);
  while (values.size() < 4000) {
    uint32_t b = bits(rng);
    float v;
    std::memcpy(&v, &b, sizeof(v));
    if (std::isnormal(v)) values.push_back(v);
  }
  for (uint32_t tie : {0x3f808000u, 0x3f818000u, 0xbf808000u, 0x7f7f8000u, 0x7f7fffffu}) {
    float v;
    std::memcpy(&v, &tie, sizeof(v));
    values.push_back(v);
  }
  for (float special : {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::denorm_min(), -1e-40f}) {
    values.push_back(special);
  }
  return values;
}

void ExpectRounded(const std::vector<float>& in, const std::vector<uint16_t>& out) {
  ASSERT_EQ(in.size(), out.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const float v = in[i];
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(Widen(out[i]))) << i;
    } else if (v == 0.0f || std::fpclassify(v) == FP_SUBNORMAL) {
      EXPECT_EQ(out[i], std::signbit(v) ? 0x8000 : 0x0000) << v;
    } else if (std::isinf(v)) {
      EXPECT_EQ(Widen(out[i]), v);
    } else {
      EXPECT_EQ(out[i], Nearest(v)) << std::hexfloat << v;
    }
  }
}

TEST(Bfloat16RoundTest, BothImplementationsRoundToNearestEven) {
  const std::vector<float> in = Inputs();
  std::vector<uint16_t> fast(in.size()), portable(in.size());
  RoundToBfloat16(in.data(), static_cast<int64_t>(in.size()), fast.data());
  RoundToBfloat16Portable(in.data(), static_cast<int64_t>(in.size()), portable.data());
  ExpectRounded(in, portable);
  ExpectRounded(in, fast);
}

TEST(Bfloat16RoundTest, EveryTailLengthIsWrittenAndNothingPastIt) {
  std::vector<float> in(40);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 1.0f + 0.001f * static_cast<float>(i);
  for (int64_t n = 0; n <= 33; ++n) {
    std::vector<uint16_t> out(in.size(), 0xdead);
    RoundToBfloat16(in.data(), n, out.data());
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(out[i], Nearest(in[i])) << n << " " << i;
    for (size_t i = n; i < out.size(); ++i) EXPECT_EQ(out[i], 0xdead) << n << " " << i;
  }
}

}  // namespace
}  // namespace tensord
