#include "runtime/saved_model/tensor_bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/base/config.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/saved_model/crc32c.h"
#include "runtime/util/status_macros.h"
#include "snappy.h"

namespace tensord {
namespace {

using ::tensorflow::BundleEntryProto;
using ::tensorflow::BundleHeaderProto;

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterSize = 48;
constexpr size_t kBlockTrailerSize = 5;  // type byte + masked crc32c
constexpr char kNoCompression = 0;
constexpr char kSnappyCompression = 1;
// The bundle format version this reader implements (TF's kTensorBundleVersion).
constexpr int kBundleConsumerVersion = 1;

uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{u[0]} | uint32_t{u[1]} << 8 | uint32_t{u[2]} << 16 | uint32_t{u[3]} << 24;
}

// A cursor over little-endian / varint encoded bytes; each read fails at the end of the input.
class Decoder {
 public:
  explicit Decoder(absl::string_view data) : data_(data) {}

  bool Varint64(uint64_t* value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64 && !data_.empty(); shift += 7) {
      const auto byte = static_cast<unsigned char>(data_.front());
      data_.remove_prefix(1);
      result |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) {
        *value = result;
        return true;
      }
    }
    return false;
  }
  bool Varint32(uint32_t* value) {
    uint64_t v;
    if (!Varint64(&v) || v > 0xffffffffu) return false;
    *value = static_cast<uint32_t>(v);
    return true;
  }
  bool Fixed32(uint32_t* value) {
    if (data_.size() < 4) return false;
    *value = DecodeFixed32(data_.data());
    data_.remove_prefix(4);
    return true;
  }
  bool Bytes(uint64_t n, absl::string_view* out) {
    if (n > data_.size()) return false;
    *out = data_.substr(0, n);
    data_.remove_prefix(n);
    return true;
  }
  absl::string_view rest() const { return data_; }

 private:
  absl::string_view data_;
};

absl::Status Corrupt(absl::string_view file, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(file, ": ", what));
}

absl::Status OpenError(const std::string& path, int err) {
  const std::string message = absl::StrCat(path, ": ", std::strerror(err));
  return err == ENOENT ? absl::NotFoundError(message) : absl::FailedPreconditionError(message);
}

// A read-only file descriptor, closed on destruction.
class File {
 public:
  static absl::StatusOr<File> Open(const std::string& path) {
    int fd;
    do {
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return OpenError(path, errno);
    return File(path, fd);
  }
  File(File&& other) noexcept : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}
  File& operator=(File&&) = delete;
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }

  absl::StatusOr<uint64_t> Size() const {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return OpenError(path_, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  // Reads exactly n bytes at offset; running into the end of the file is DATA_LOSS.
  absl::Status ReadAt(uint64_t offset, uint64_t n, char* dst) const {
    uint64_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        return absl::DataLossError(absl::StrCat(path_, ": read failed at offset ", offset + done,
                                                ": ", std::strerror(errno)));
      }
      if (got == 0) {
        return absl::DataLossError(absl::StrCat(path_, ": truncated: wanted ", n,
                                                " bytes at offset ", offset, ", file ends after ",
                                                done));
      }
      done += static_cast<uint64_t>(got);
    }
    return absl::OkStatus();
  }

 private:
  File(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  TENSORD_ASSIGN_OR_RETURN(File file, File::Open(path));
  TENSORD_ASSIGN_OR_RETURN(uint64_t size, file.Size());
  std::string contents(size, '\0');
  TENSORD_RETURN_IF_ERROR(file.ReadAt(0, size, contents.data()));
  return contents;
}

// ---- LevelDB-style table (the .index file) -------------------------------------------------

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;  // without the trailer
};

bool DecodeBlockHandle(Decoder* d, BlockHandle* handle) {
  return d->Varint64(&handle->offset) && d->Varint64(&handle->size);
}

// The contents of the block at `handle` after checking its trailer CRC and decompressing it.
absl::StatusOr<std::string> ReadBlock(absl::string_view table, const std::string& filename,
                                      const BlockHandle& handle) {
  const uint64_t limit = table.size() - kFooterSize;
  if (handle.offset > limit || handle.size > limit - handle.offset ||
      kBlockTrailerSize > limit - handle.offset - handle.size) {
    return Corrupt(filename, absl::StrCat("block (offset ", handle.offset, ", size ", handle.size,
                                          ") extends past the end of the table"));
  }
  const char* block = table.data() + handle.offset;
  // The CRC covers the stored bytes and the type byte.
  const uint32_t stored = crc32c::Unmask(DecodeFixed32(block + handle.size + 1));
  const uint32_t actual = crc32c::Value(block, handle.size + 1);
  if (!crc32c::ChecksumMatches(stored, actual)) {
    return Corrupt(filename, absl::StrFormat("block checksum mismatch at offset %d: stored 0x%08x "
                                             "vs. calculated 0x%08x",
                                             handle.offset, stored, actual));
  }
  const char type = block[handle.size];
  if (type == kNoCompression) return std::string(block, handle.size);
  if (type != kSnappyCompression) {
    return Corrupt(filename, absl::StrCat("bad block type ", static_cast<int>(type), " at offset ",
                                          handle.offset));
  }
  std::string out;
  size_t length = 0;
  // Snappy expands at most ~22x (a 3-byte tag copies 64 bytes); a larger claimed length is
  // corrupt, and rejecting it avoids a huge allocation.
  if (!snappy::GetUncompressedLength(block, handle.size, &length) ||
      length > 32 * handle.size + 64) {
    return Corrupt(filename, absl::StrCat("bad snappy block at offset ", handle.offset));
  }
  out.resize(length);
  if (!snappy::RawUncompress(block, handle.size, out.data())) {
    return Corrupt(filename, absl::StrCat("bad snappy block at offset ", handle.offset));
  }
  return out;
}

// Calls fn(key, value) for every entry of a decoded block, rebuilding prefix-compressed keys.
absl::Status ForEachEntry(
    absl::string_view block, const std::string& filename,
    const std::function<absl::Status(const std::string&, absl::string_view)>& fn) {
  if (block.size() < 4) return Corrupt(filename, "block too short");
  const uint32_t num_restarts = DecodeFixed32(block.data() + block.size() - 4);
  if (num_restarts > (block.size() - 4) / 4) {
    return Corrupt(filename, "bad restart count in block");
  }
  Decoder d(block.substr(0, block.size() - 4 * (1 + uint64_t{num_restarts})));
  std::string key;
  while (!d.rest().empty()) {
    uint32_t shared, non_shared, value_len;
    absl::string_view delta, value;
    if (!d.Varint32(&shared) || !d.Varint32(&non_shared) || !d.Varint32(&value_len) ||
        shared > key.size() || !d.Bytes(non_shared, &delta) || !d.Bytes(value_len, &value)) {
      return Corrupt(filename, "bad entry in block");
    }
    key.resize(shared);
    key.append(delta.data(), delta.size());
    TENSORD_RETURN_IF_ERROR(fn(key, value));
  }
  return absl::OkStatus();
}

// Every key -> value of the table in `filename`. Index keys are only separators, so every data
// block is decoded rather than searched.
absl::StatusOr<std::map<std::string, std::string, std::less<>>> ReadTable(
    const std::string& filename) {
  TENSORD_ASSIGN_OR_RETURN(const std::string table, ReadWholeFile(filename));
  if (table.size() < kFooterSize) {
    return Corrupt(filename,
                   absl::StrCat("file is too short to be an sstable (", table.size(), " bytes)"));
  }
  const char* footer = table.data() + table.size() - kFooterSize;
  const uint64_t magic_low = DecodeFixed32(footer + 40);
  const uint64_t magic_high = DecodeFixed32(footer + 44);
  if ((magic_high << 32 | magic_low) != kTableMagic) {
    return Corrupt(filename, "not an sstable (bad magic number)");
  }
  Decoder footer_decoder(absl::string_view(footer, 40));
  // The metaindex block only lists filter blocks, which bundles do not have.
  BlockHandle metaindex, index;
  if (!DecodeBlockHandle(&footer_decoder, &metaindex) ||
      !DecodeBlockHandle(&footer_decoder, &index)) {
    return Corrupt(filename, "bad block handle in footer");
  }
  TENSORD_ASSIGN_OR_RETURN(const std::string index_block, ReadBlock(table, filename, index));

  std::map<std::string, std::string, std::less<>> entries;
  auto add_entry = [&](const std::string& key, absl::string_view value) -> absl::Status {
    if (!entries.empty() && key <= entries.rbegin()->first) {
      return Corrupt(filename, absl::StrCat("keys out of order at '", key, "'"));
    }
    entries.emplace_hint(entries.end(), key, std::string(value));
    return absl::OkStatus();
  };
  TENSORD_RETURN_IF_ERROR(ForEachEntry(
      index_block, filename, [&](const std::string&, absl::string_view value) -> absl::Status {
        Decoder d(value);
        BlockHandle handle;
        if (!DecodeBlockHandle(&d, &handle)) {
          return Corrupt(filename, "bad block handle in index block");
        }
        TENSORD_ASSIGN_OR_RETURN(const std::string block, ReadBlock(table, filename, handle));
        return ForEachEntry(block, filename, add_entry);
      }));
  return entries;
}

// ---- Tensor data ----------------------------------------------------------------------------

std::string KeyInFile(absl::string_view key, absl::string_view file) {
  return absl::StrCat("for key '", key, "' in ", file);
}

absl::Status ChecksumMismatch(uint32_t stored, uint32_t calculated, absl::string_view key,
                              absl::string_view file) {
  return absl::DataLossError(
      absl::StrFormat("Checksum does not match: stored 0x%08x vs. calculated on the restored "
                      "bytes 0x%08x %s",
                      stored, calculated, KeyInFile(key, file)));
}

// Reverses the bytes of each scalar of a POD tensor (complex numbers swap each half).
void ByteSwap(Tensor* t) {
  int unit = DataTypeSize(t->dtype());
  if (t->dtype() == DT_COMPLEX64 || t->dtype() == DT_COMPLEX128) unit /= 2;
  if (unit <= 1) return;
  char* p = static_cast<char*>(t->raw_data());
  const size_t bytes = t->TotalBytes();
  for (size_t i = 0; i < bytes; i += unit) std::reverse(p + i, p + i + unit);
}

// Decodes a DT_STRING entry: varint lengths, masked CRC of the lengths, then the bytes. Returns
// the running CRC over everything, to be compared with the entry's checksum.
absl::StatusOr<uint32_t> DecodeStrings(absl::string_view bytes, absl::string_view key,
                                       absl::string_view file, Tensor* t) {
  const int64_t n = t->NumElements();
  std::vector<uint64_t> lengths(n);
  Decoder d(bytes);
  uint32_t crc = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!d.Varint64(&lengths[i]) || lengths[i] > bytes.size()) {
      return Corrupt(file, absl::StrCat("bad string length ", KeyInFile(key, file)));
    }
    total += lengths[i];
    // The checksum covers each length as a fixed-width little-endian integer, not the varint.
    char le[8];
    const int width = lengths[i] <= 0xffffffffu ? 4 : 8;
    for (int b = 0; b < width; ++b) le[b] = static_cast<char>(lengths[i] >> (8 * b));
    crc = crc32c::Extend(crc, le, width);
  }
  absl::string_view length_crc;
  if (!d.Bytes(4, &length_crc)) {
    return Corrupt(file, absl::StrCat("truncated string tensor ", KeyInFile(key, file)));
  }
  if (!crc32c::ChecksumMatches(DecodeFixed32(length_crc.data()), crc32c::Mask(crc))) {
    return ChecksumMismatch(DecodeFixed32(length_crc.data()), crc32c::Mask(crc), key, file);
  }
  crc = crc32c::Extend(crc, length_crc.data(), 4);
  if (total != d.rest().size()) {
    return Corrupt(file, absl::StrCat("string lengths add up to ", total, " bytes but ",
                                      d.rest().size(), " remain ", KeyInFile(key, file)));
  }
  crc = crc32c::Extend(crc, d.rest().data(), d.rest().size());
  auto* strings = t->data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    absl::string_view s;
    d.Bytes(lengths[i], &s);
    strings[i].assign(s.data(), s.size());
  }
  return crc;
}

bool IsBigEndianHost() {
#ifdef ABSL_IS_BIG_ENDIAN
  return true;
#else
  return false;
#endif
}

}  // namespace

std::string BundleIndexFilename(absl::string_view prefix) { return absl::StrCat(prefix, ".index"); }

std::string BundleDataFilename(absl::string_view prefix, int shard, int num_shards) {
  return absl::StrFormat("%s.data-%05d-of-%05d", prefix, shard, num_shards);
}

absl::StatusOr<std::unique_ptr<TensorBundleReader>> TensorBundleReader::Open(
    const std::string& prefix) {
  const std::string index_file = BundleIndexFilename(prefix);
  TENSORD_ASSIGN_OR_RETURN(auto entries, ReadTable(index_file));
  auto it = entries.find("");
  if (it == entries.end()) return Corrupt(index_file, "no bundle header (key \"\")");
  BundleHeaderProto header;
  if (!header.ParseFromString(it->second)) return Corrupt(index_file, "unparsable bundle header");
  const auto& version = header.version();
  if (version.producer() < 0 || version.min_consumer() > kBundleConsumerVersion ||
      std::count(version.bad_consumers().begin(), version.bad_consumers().end(),
                 kBundleConsumerVersion) > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(index_file, ": unsupported bundle version (producer ", version.producer(),
                     ", min_consumer ", version.min_consumer(), "); this reader is version ",
                     kBundleConsumerVersion));
  }
  if (header.num_shards() < 0) {
    return Corrupt(index_file, absl::StrCat("bad num_shards ", header.num_shards()));
  }
  return std::unique_ptr<TensorBundleReader>(
      new TensorBundleReader(prefix, std::move(header), std::move(entries)));
}

bool TensorBundleReader::Contains(absl::string_view key) const {
  return !key.empty() && entries_.count(key) > 0;
}

std::vector<std::string> TensorBundleReader::Keys() const {
  std::vector<std::string> keys;
  for (const auto& [key, value] : entries_) {
    if (!key.empty()) keys.push_back(key);
  }
  return keys;
}

absl::StatusOr<BundleEntryProto> TensorBundleReader::Entry(absl::string_view key) const {
  auto it = key.empty() ? entries_.end() : entries_.find(key);
  if (it == entries_.end()) {
    return absl::NotFoundError(
        absl::StrCat("Key '", key, "' not found in checkpoint ", BundleIndexFilename(prefix_)));
  }
  BundleEntryProto entry;
  if (!entry.ParseFromString(it->second)) {
    return Corrupt(BundleIndexFilename(prefix_),
                   absl::StrCat("unparsable entry for key '", key, "'"));
  }
  return entry;
}

absl::StatusOr<Tensor> TensorBundleReader::Lookup(absl::string_view key) const {
  TENSORD_ASSIGN_OR_RETURN(const BundleEntryProto entry, Entry(key));
  return ReadTensor(key, entry);
}

absl::StatusOr<Tensor> TensorBundleReader::ReadTensor(absl::string_view key,
                                                      const BundleEntryProto& entry) const {
  const std::string index_file = BundleIndexFilename(prefix_);
  if (entry.slices_size() > 0) {
    return absl::UnimplementedError(
        absl::StrCat("partitioned (sliced) variables are not supported: key '", key, "' in ",
                     index_file, " is stored as ", entry.slices_size(), " slices"));
  }
  const DataType dtype = entry.dtype();
  const bool is_string = dtype == DT_STRING;
  if (!is_string && DataTypeSize(dtype) == 0) {
    return absl::UnimplementedError(absl::StrCat("cannot restore dtype ", DataTypeString(dtype),
                                                 " ", KeyInFile(key, index_file)));
  }
  auto shape = TensorShape::FromProto(entry.shape());
  if (!shape.ok()) {
    return Corrupt(index_file, absl::StrCat("bad shape ", KeyInFile(key, index_file), ": ",
                                            shape.status().message()));
  }
  if (entry.shard_id() < 0 || entry.shard_id() >= header_.num_shards() || entry.offset() < 0 ||
      entry.size() < 0) {
    return Corrupt(index_file, absl::StrCat("bad location (shard ", entry.shard_id(), " of ",
                                            header_.num_shards(), ", offset ", entry.offset(),
                                            ", size ", entry.size(), ") for key '", key, "'"));
  }
  const std::string data_file = BundleDataFilename(prefix_, entry.shard_id(), header_.num_shards());
  const int64_t n = shape->num_elements();
  const uint64_t size = static_cast<uint64_t>(entry.size());
  // Validate sizes before allocating anything: a corrupt entry must not trigger a huge allocation.
  const bool size_ok = is_string ? size >= static_cast<uint64_t>(n) + 4
                                 : n <= INT64_MAX / DataTypeSize(dtype) &&
                                       size == static_cast<uint64_t>(n) * DataTypeSize(dtype);
  if (!size_ok) {
    return Corrupt(data_file,
                   absl::StrCat("entry size ", size, " does not fit ", DataTypeString(dtype), " ",
                                shape->DebugString(), " ", KeyInFile(key, data_file)));
  }
  TENSORD_ASSIGN_OR_RETURN(const File file, File::Open(data_file));
  TENSORD_ASSIGN_OR_RETURN(const uint64_t file_size, file.Size());
  const uint64_t offset = static_cast<uint64_t>(entry.offset());
  if (offset > file_size || size > file_size - offset) {
    return Corrupt(data_file, absl::StrCat("truncated: bytes [", offset, ", ", offset + size,
                                           ") are past the end of the file (", file_size,
                                           " bytes) ", KeyInFile(key, data_file)));
  }

  // Numbers are read straight over the allocation.
  Tensor t = is_string ? Tensor(dtype, *std::move(shape))
                       : Tensor::ForOverwrite(dtype, *std::move(shape));
  uint32_t crc;
  if (is_string) {
    std::string bytes(size, '\0');
    TENSORD_RETURN_IF_ERROR(file.ReadAt(offset, size, bytes.data()));
    TENSORD_ASSIGN_OR_RETURN(crc, DecodeStrings(bytes, key, data_file, &t));
  } else {
    char* dst = static_cast<char*>(t.raw_data());
    TENSORD_RETURN_IF_ERROR(file.ReadAt(offset, size, dst));
    crc = crc32c::Value(dst, size);
  }
  if (!crc32c::ChecksumMatches(entry.crc32c(), crc32c::Mask(crc))) {
    return ChecksumMismatch(entry.crc32c(), crc32c::Mask(crc), key, data_file);
  }
  if (dtype == DT_BOOL) {
    // Any non-zero byte is true; keep bools canonical (0/1) for the rest of the runtime.
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = p[i] != 0;
  }
  const bool big_endian_data = header_.endianness() == BundleHeaderProto::BIG;
  if (!is_string && big_endian_data != IsBigEndianHost()) ByteSwap(&t);
  return t;
}

}  // namespace tensord
