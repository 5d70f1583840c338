// Reads TFRecord files (the framing of `assets.extra/tf_serving_warmup_requests`):
//
//   uint64 length (little endian) | uint32 masked_crc32c(length bytes) |
//   data[length] | uint32 masked_crc32c(data)
//
//   TENSORD_ASSIGN_OR_RETURN(TfRecordReader reader, TfRecordReader::Open(path));
//   std::string record;
//   while (true) {
//     TENSORD_ASSIGN_OR_RETURN(bool more, reader.Next(&record));
//     if (!more) break;
//     ...
//   }
//
// Not thread-safe; one reader per thread.
#ifndef TENSORD_RUNTIME_SAVED_MODEL_TFRECORD_READER_H_
#define TENSORD_RUNTIME_SAVED_MODEL_TFRECORD_READER_H_

#include <fstream>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace tensord {

class TfRecordReader {
 public:
  // NOT_FOUND when the file cannot be opened.
  static absl::StatusOr<TfRecordReader> Open(const std::string& path);

  // Reads the next record into `record`: true when one was read, false at a clean end of file.
  // DATA_LOSS naming the file and record index for a truncated record or a CRC mismatch.
  absl::StatusOr<bool> Next(std::string* record);

 private:
  TfRecordReader(std::string path, std::unique_ptr<std::ifstream> in, uint64_t size)
      : path_(std::move(path)), in_(std::move(in)), size_(size) {}

  std::string path_;
  std::unique_ptr<std::ifstream> in_;
  uint64_t size_;  // of the file, in bytes
  int64_t index_ = 0;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_SAVED_MODEL_TFRECORD_READER_H_
