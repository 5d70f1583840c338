#include "runtime/saved_model/tfrecord_reader.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/saved_model/crc32c.h"

namespace tensord {
namespace {

uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

absl::StatusOr<TfRecordReader> TfRecordReader::Open(const std::string& path) {
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) return absl::NotFoundError(absl::StrCat("Cannot open TFRecord file ", path));
  in->seekg(0, std::ios::end);
  const std::streamoff size = in->tellg();
  in->seekg(0, std::ios::beg);
  if (size < 0 || !*in) {
    return absl::DataLossError(absl::StrCat("Cannot read the size of TFRecord file ", path));
  }
  return TfRecordReader(path, std::move(in), static_cast<uint64_t>(size));
}

absl::StatusOr<bool> TfRecordReader::Next(std::string* record) {
  auto corrupt = [&](const std::string& why) {
    return absl::DataLossError(
        absl::StrCat("Corrupt TFRecord file ", path_, " at record ", index_, ": ", why));
  };
  char header[12];
  in_->read(header, sizeof(header));
  if (in_->gcount() == 0 && in_->eof()) return false;
  if (in_->gcount() != static_cast<std::streamsize>(sizeof(header))) {
    return corrupt("truncated length header");
  }
  if (!crc32c::ChecksumMatches(crc32c::Unmask(DecodeFixed32(header + 8)),
                               crc32c::Value(header, 8))) {
    return corrupt("length checksum mismatch");
  }
  const uint64_t length = DecodeFixed64(header);
  // A corrupt length must not make us allocate more than the file holds.
  const uint64_t left = size_ - static_cast<uint64_t>(in_->tellg());
  if (length > left || left - length < 4) {
    return corrupt(absl::StrCat("record length ", length, " exceeds the ", left,
                                " bytes left in the file"));
  }
  record->resize(length);
  in_->read(record->data(), static_cast<std::streamsize>(length));
  char footer[4];
  if (in_->gcount() == static_cast<std::streamsize>(length)) in_->read(footer, sizeof(footer));
  if (!*in_) return corrupt("truncated record");
  if (!crc32c::ChecksumMatches(crc32c::Unmask(DecodeFixed32(footer)),
                               crc32c::Value(record->data(), length))) {
    return corrupt("data checksum mismatch");
  }
  ++index_;
  return true;
}

}  // namespace tensord
