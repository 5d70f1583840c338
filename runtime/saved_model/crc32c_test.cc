#include "runtime/saved_model/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace tensord {
namespace crc32c {
namespace {

TEST(Crc32cTest, StandardVectors) {
  EXPECT_EQ(Value("123456789", 9), 0xE3069283u);
  const std::string zeros(4, '\0');
  EXPECT_EQ(Value(zeros.data(), zeros.size()), 0x48674BC7u);
  EXPECT_EQ(Value("", 0), 0u);
  // RFC 3720 B.4: 32 bytes of 0xff.
  const std::string ones(32, '\xff');
  EXPECT_EQ(Value(ones.data(), ones.size()), 0x62A8AB43u);
}

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  const uint32_t whole = Value(data.data(), data.size());
  for (size_t split : {0, 1, 7, 8, 9, 500, 999, 1000}) {
    const uint32_t head = Value(data.data(), split);
    EXPECT_EQ(Extend(head, data.data() + split, data.size() - split), whole) << split;
  }
}

TEST(Crc32cTest, HardwareAndTableAgree) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 131 + 17));
  // Every length and alignment up to a few words.
  for (size_t begin = 0; begin < 9; ++begin) {
    for (size_t n = 0; begin + n <= data.size(); n += 13) {
      EXPECT_EQ(Extend(0x1234u, data.data() + begin, n),
                internal::ExtendPortable(0x1234u, data.data() + begin, n));
    }
  }
}

TEST(Crc32cTest, Mask) {
  EXPECT_EQ(Mask(0x48674BC7u), 0x3a117ba6u);
  EXPECT_EQ(Mask(0xE3069283u), 0xC78AB0E5u);
  for (uint32_t c : {0u, 1u, 0xdeadbeefu, 0xffffffffu}) {
    EXPECT_EQ(Unmask(Mask(c)), c);
    EXPECT_NE(Mask(c), c);
  }
  // Stored checksums of float32 scalars in TF Serving's half_plus_two checkpoints.
  const float values[] = {0.5f, 2.0f, 3.0f};
  const uint32_t stored[] = {0x1f273806u, 0x4f78fd10u, 0xc382d6efu};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Mask(Value(reinterpret_cast<const char*>(&values[i]), 4)), stored[i]);
  }
}

}  // namespace
}  // namespace crc32c
}  // namespace tensord
