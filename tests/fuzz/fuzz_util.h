// Helpers shared by the fuzz targets.
//
// FuzzInput splits one input into parts: Sized() takes a part framed as a 4-byte little-endian
// length and that many bytes (fewer when the input ends first), Rest() the remainder. The seed
// generator (make_seeds.py) writes multi-part seeds the same way.
//
// ScratchFile gives targets that read files a path of their own in a directory made once per
// process (under TEST_TMPDIR or /tmp).
//
// FUZZ_CHECK aborts on a broken invariant, which the fuzzer reports as a crash.
#ifndef TENSORD_TESTS_FUZZ_FUZZ_UTIL_H_
#define TENSORD_TESTS_FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tensord {
namespace fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : rest_(reinterpret_cast<const char*>(data), size) {}
  std::string_view Sized();
  std::string_view Rest();
  // One byte (0 once the input is used up).
  uint8_t Byte();

 private:
  std::string_view rest_;
};

// `name` inside this process's scratch directory, with `bytes` written to it.
std::string ScratchFile(const std::string& name, std::string_view bytes);
// This process's scratch directory (created on first use).
const std::string& ScratchDir();

}  // namespace fuzz
}  // namespace tensord

#define FUZZ_CHECK(condition)                                                                 \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

#endif  // TENSORD_TESTS_FUZZ_FUZZ_UTIL_H_
