// Reader for TensorFlow's V2 checkpoint format ("tensor bundle"): the `variables/` directory of a
// SavedModel and the files written by SaveV2 / tf.train.Checkpoint.
//
// A bundle named by prefix P is P.index, a LevelDB-style table mapping each tensor key to a
// BundleEntryProto (plus the BundleHeaderProto under key ""), and data shards
// P.data-00000-of-0000N holding the tensor bytes. Open() loads and verifies the whole index;
// Lookup() reads one tensor from its shard and verifies its checksum. See
// shared/docs/savedmodel-format.md §4 for the format.
//
//   TENSORD_ASSIGN_OR_RETURN(auto reader, TensorBundleReader::Open(dir + "/variables/variables"));
//   TENSORD_ASSIGN_OR_RETURN(Tensor kernel, reader->Lookup("dense/kernel"));
//
// Every failure is a status naming the file and key: NOT_FOUND for a missing index, shard or key,
// DATA_LOSS for corrupt or truncated files and checksum mismatches, UNIMPLEMENTED for partitioned
// variables and dtypes without a tensor representation here (variant).
//
// Thread safety: the index is immutable after Open(); Lookup may be called concurrently (each call
// opens its shard and reads with pread).
#ifndef TENSORD_RUNTIME_SAVED_MODEL_TENSOR_BUNDLE_H_
#define TENSORD_RUNTIME_SAVED_MODEL_TENSOR_BUNDLE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "protos/tensorflow/tensor_bundle.pb.h"
#include "runtime/framework/tensor.h"

namespace tensord {

// "<prefix>.index"
std::string BundleIndexFilename(absl::string_view prefix);
// "<prefix>.data-00003-of-00008"
std::string BundleDataFilename(absl::string_view prefix, int shard, int num_shards);

class TensorBundleReader {
 public:
  // Reads and verifies `prefix`.index (footer, block checksums, snappy blocks, header version).
  static absl::StatusOr<std::unique_ptr<TensorBundleReader>> Open(const std::string& prefix);

  const std::string& prefix() const { return prefix_; }
  const ::tensorflow::BundleHeaderProto& header() const { return header_; }

  bool Contains(absl::string_view key) const;
  // Every tensor key in byte order (the header key "" excluded).
  std::vector<std::string> Keys() const;
  // The parsed entry of `key`; NOT_FOUND when absent.
  absl::StatusOr<::tensorflow::BundleEntryProto> Entry(absl::string_view key) const;
  // Reads the tensor stored under `key` with the entry's dtype and shape after verifying its
  // checksum (and converting from big-endian if the writer was).
  absl::StatusOr<Tensor> Lookup(absl::string_view key) const;

 private:
  TensorBundleReader(std::string prefix, ::tensorflow::BundleHeaderProto header,
                     std::map<std::string, std::string, std::less<>> entries)
      : prefix_(std::move(prefix)), header_(std::move(header)), entries_(std::move(entries)) {}

  absl::StatusOr<Tensor> ReadTensor(absl::string_view key,
                                    const ::tensorflow::BundleEntryProto& entry) const;

  const std::string prefix_;
  const ::tensorflow::BundleHeaderProto header_;
  // Key -> serialized BundleEntryProto, including the header under "".
  const std::map<std::string, std::string, std::less<>> entries_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_SAVED_MODEL_TENSOR_BUNDLE_H_
