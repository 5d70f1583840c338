// Checkpoints (variables/variables.index + variables.data-00000-of-00001), as the loader
// restores them: the index table (footer, blocks, snappy, header) and every entry's tensor read
// from the data shard. The input is the index framed by FuzzInput::Sized, then the data shard.
// Fuzzing builds skip checksum comparisons (crc32c.h) so that the fuzzer gets past them.
// Invariants: every input is read or refused with a status; a tensor that reads has an entry
// that parses, with its dtype and rank.
#include "runtime/framework/tensor_shape.h"
#include "runtime/saved_model/tensor_bundle.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensord::fuzz::FuzzInput input(data, size);
  const std::string_view index = input.Sized();
  tensord::fuzz::ScratchFile("variables.index", index);
  tensord::fuzz::ScratchFile("variables.data-00000-of-00001", input.Rest());
  auto reader = tensord::TensorBundleReader::Open(tensord::fuzz::ScratchDir() + "/variables");
  if (!reader.ok()) return 0;
  for (const std::string& key : (*reader)->Keys()) {
    absl::StatusOr<::tensorflow::BundleEntryProto> entry = (*reader)->Entry(key);
    absl::StatusOr<tensord::Tensor> tensor = (*reader)->Lookup(key);
    if (!tensor.ok()) continue;
    FUZZ_CHECK(entry.ok());
    FUZZ_CHECK(static_cast<int>(tensor->dtype()) == static_cast<int>(entry->dtype()));
    FUZZ_CHECK(tensor->shape().dims() == entry->shape().dim_size());
  }
  return 0;
}
