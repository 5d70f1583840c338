#include "tests/fuzz/fuzz_util.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace tensord {
namespace fuzz {

std::string_view FuzzInput::Sized() {
  uint32_t length = 0;
  const size_t header = std::min(rest_.size(), sizeof(length));
  std::memcpy(&length, rest_.data(), header);  // little-endian hosts only (x86-64, arm64)
  rest_.remove_prefix(header);
  const size_t take = std::min<size_t>(length, rest_.size());
  std::string_view part = rest_.substr(0, take);
  rest_.remove_prefix(take);
  return part;
}

std::string_view FuzzInput::Rest() {
  std::string_view rest = rest_;
  rest_ = {};
  return rest;
}

uint8_t FuzzInput::Byte() {
  if (rest_.empty()) return 0;
  const uint8_t b = static_cast<uint8_t>(rest_[0]);
  rest_.remove_prefix(1);
  return b;
}

const std::string& ScratchDir() {
  static const std::string* dir = []() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/tensord_fuzz_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    return new std::string(pattern);
  }();
  return *dir;
}

std::string ScratchFile(const std::string& name, std::string_view bytes) {
  const std::string path = ScratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(out.good());
  return path;
}

}  // namespace fuzz
}  // namespace tensord
