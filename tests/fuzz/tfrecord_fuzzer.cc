// TFRecord files (assets.extra/tf_serving_warmup_requests), as warmup reads them: records in
// their length/CRC framing, each parsed as a PredictionLog. Fuzzing builds skip checksum
// comparisons (crc32c.h). Invariant: the reader ends with a status, never a crash, and never
// returns more bytes than the file holds.
#include "protos/serving/prediction_log.pb.h"
#include "runtime/saved_model/tfrecord_reader.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tensord::fuzz::ScratchFile(
      "tf_serving_warmup_requests", std::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<tensord::TfRecordReader> reader = tensord::TfRecordReader::Open(path);
  FUZZ_CHECK(reader.ok());
  std::string record;
  size_t total = 0;
  for (;;) {
    absl::StatusOr<bool> more = reader->Next(&record);
    if (!more.ok() || !*more) break;
    total += record.size();
    FUZZ_CHECK(total <= size);
    ::tensorflow::serving::PredictionLog log;
    (void)log.ParseFromString(record);
  }
  return 0;
}
