#include "runtime/saved_model/tensor_bundle.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "Eigen/Core"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"
#include "protos/tensorflow/trackable_object_graph.pb.h"
#include "runtime/saved_model/crc32c.h"
#include "snappy.h"

namespace tensord {
namespace {

namespace fs = std::filesystem;
using ::tensord::testing::AsTensor;
using ::tensord::testing::ExpectTensorEqual;
using ::testing::HasSubstr;

// ---- Files ------------------------------------------------------------------------------------

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  ASSERT_TRUE(out.good()) << path;
}

// The committed bundles written by testdata/make_bundles.py.
std::string TestdataDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string root =
      srcdir != nullptr && workspace != nullptr ? absl::StrCat(srcdir, "/", workspace, "/") : "";
  return root + "runtime/saved_model/testdata";
}

// TF Serving's test models, kept next to the workspace (../shared) and not part of the product:
// the runfiles symlink of a data file leads back to the workspace. Empty when absent.
std::string TfServingTestdata() {
  std::error_code ec;
  const fs::path golden = fs::canonical(TestdataDir() + "/golden.txt", ec);
  if (ec) return "";
  const fs::path dir =
      golden.parent_path().parent_path().parent_path().parent_path().parent_path() /
      "shared/testdata/tfserving/servables/tensorflow/testdata";
  return fs::is_directory(dir, ec) ? dir.string() : "";
}

// A fresh copy of bundle files under TEST_TMPDIR, for corrupting.
std::string CopyBundle(const std::string& from_prefix, const std::string& name) {
  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path from(from_prefix);
  for (const auto& file : fs::directory_iterator(from.parent_path())) {
    const std::string filename = file.path().filename().string();
    if (absl::StartsWith(filename, from.filename().string() + ".")) {
      fs::copy_file(file.path(), dir / filename);
      fs::permissions(dir / filename, fs::perms::owner_read | fs::perms::owner_write);
    }
  }
  return (dir / from.filename()).string();
}

// ---- Golden tensors from TensorFlow (testdata/golden.txt) --------------------------------------

struct GoldenTensor {
  std::string bundle, key;
  DataType dtype;
  std::vector<int64_t> dims;
  std::string bytes;                 // little-endian element bytes (numbers)
  std::vector<std::string> strings;  // DT_STRING elements
};

std::vector<GoldenTensor> ReadGolden() {
  std::vector<GoldenTensor> out;
  std::istringstream lines(ReadFile(TestdataDir() + "/golden.txt"));
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    EXPECT_EQ(f.size(), 5u) << line;
    if (f.size() != 5) continue;
    GoldenTensor g;
    g.bundle = f[0];
    g.key = f[1];
    EXPECT_TRUE(::tensorflow::DataType_Parse(f[2], &g.dtype)) << line;
    if (f[3] != "-") {
      for (absl::string_view d : absl::StrSplit(f[3], ',')) {
        int64_t v;
        EXPECT_TRUE(absl::SimpleAtoi(d, &v)) << line;
        g.dims.push_back(v);
      }
    }
    const std::string payload = f[4] == "-" ? "" : f[4];
    if (g.dtype == DT_STRING) {
      for (absl::string_view s : absl::StrSplit(payload, ',')) {
        g.strings.push_back(absl::HexStringToBytes(s));
      }
    } else {
      g.bytes = absl::HexStringToBytes(payload);
    }
    out.push_back(std::move(g));
  }
  return out;
}

void ExpectMatchesGolden(const Tensor& t, const GoldenTensor& g) {
  SCOPED_TRACE(g.bundle + " " + g.key);
  ASSERT_EQ(DataTypeString(t.dtype()), DataTypeString(g.dtype));
  ASSERT_EQ(t.shape(), TensorShape(g.dims));
  if (g.dtype == DT_STRING) {
    ASSERT_EQ(t.NumElements(), static_cast<int64_t>(g.strings.size()));
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      EXPECT_EQ(t.data<std::string>()[i], g.strings[i]) << "element " << i;
    }
  } else {
    EXPECT_EQ(absl::BytesToHexString(
                  absl::string_view(static_cast<const char*>(t.raw_data()), t.TotalBytes())),
              absl::BytesToHexString(g.bytes));
  }
}

std::unique_ptr<TensorBundleReader> OpenOrDie(const std::string& prefix) {
  auto reader = TensorBundleReader::Open(prefix);
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? *std::move(reader) : nullptr;
}

TEST(TensorBundleTest, ReadsEveryTensorWrittenByTensorFlow) {
  const std::vector<GoldenTensor> golden = ReadGolden();
  ASSERT_EQ(golden.size(), 24u);
  std::map<std::string, std::unique_ptr<TensorBundleReader>> readers;
  std::map<std::string, std::vector<std::string>> keys;
  for (const GoldenTensor& g : golden) {
    auto& reader = readers[g.bundle];
    if (reader == nullptr) reader = OpenOrDie(TestdataDir() + "/" + g.bundle);
    ASSERT_NE(reader, nullptr);
    ASSERT_TRUE(reader->Contains(g.key)) << g.key;
    auto t = reader->Lookup(g.key);
    ASSERT_TRUE(t.ok()) << t.status();
    ExpectMatchesGolden(*t, g);
    keys[g.bundle].push_back(g.key);
  }
  for (auto& [bundle, expected] : keys) {
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(readers[bundle]->Keys(), expected) << bundle;
  }
}

TEST(TensorBundleTest, SpotValues) {
  auto reader = OpenOrDie(TestdataDir() + "/dtypes");
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->header().num_shards(), 1);
  auto lookup = [&](const std::string& key) {
    auto t = reader->Lookup(key);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : Tensor();
  };
  ExpectTensorEqual(lookup("int64"),
                    AsTensor<int64_t>({int64_t{1} << 40, -1, -(int64_t{1} << 62)}, {3}));
  ExpectTensorEqual(lookup("half"),
                    AsTensor<Eigen::half>({Eigen::half(1.5f), Eigen::half(-2.25f),
                                           Eigen::half(65504.0f), Eigen::half(0.0001f)},
                                          {4}));
  ExpectTensorEqual(lookup("bool"), AsTensor<bool>({true, false, true, true}, {4}));
  ExpectTensorEqual(lookup("float32/scalar"), Tensor::Scalar<float>(2.5f));
  ExpectTensorEqual(lookup("float32/empty"), Tensor(DT_FLOAT, TensorShape{0, 3}));
  ExpectTensorEqual(
      lookup("string"),
      AsTensor<std::string>({"", "hello", std::string(200, 'x'), std::string("\0\xff", 2)}, {4}));
  ExpectTensorEqual(lookup("string/scalar"), Tensor::Scalar<std::string>("tensord"));
  const Tensor big = lookup("float32/big");
  ASSERT_EQ(big.NumElements(), 1000);
  EXPECT_EQ(big.data<float>()[999], 999 * 0.25f - 7.0f);
}

TEST(TensorBundleTest, ShardedBundle) {
  auto reader = OpenOrDie(TestdataDir() + "/sharded");
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->header().num_shards(), 2);
  const std::map<std::string, int> shard_of = {{"s0", 0}, {"w0", 0}, {"w1", 1}, {"z", 1}};
  for (const auto& [key, shard] : shard_of) {
    auto entry = reader->Entry(key);
    ASSERT_TRUE(entry.ok()) << entry.status();
    EXPECT_EQ(entry->shard_id(), shard) << key;
  }
  auto w1 = reader->Lookup("w1");
  ASSERT_TRUE(w1.ok()) << w1.status();
  ExpectTensorEqual(*w1, AsTensor<int64_t>({10, 20, 30}, {3}));
}

TEST(TensorBundleTest, ObjectBasedCheckpoint) {
  auto reader = OpenOrDie(TestdataDir() + "/object");
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Keys(), (std::vector<std::string>{"_CHECKPOINTABLE_OBJECT_GRAPH",
                                                      "step/.ATTRIBUTES/VARIABLE_VALUE",
                                                      "v/.ATTRIBUTES/VARIABLE_VALUE"}));
  auto v = reader->Lookup("v/.ATTRIBUTES/VARIABLE_VALUE");
  ASSERT_TRUE(v.ok()) << v.status();
  ExpectTensorEqual(*v, AsTensor<float>({1, 2, 3}, {3}));
  auto step = reader->Lookup("step/.ATTRIBUTES/VARIABLE_VALUE");
  ASSERT_TRUE(step.ok()) << step.status();
  ExpectTensorEqual(*step, Tensor::Scalar<int64_t>(7));
  auto graph_tensor = reader->Lookup("_CHECKPOINTABLE_OBJECT_GRAPH");
  ASSERT_TRUE(graph_tensor.ok()) << graph_tensor.status();
  ASSERT_EQ(graph_tensor->dims(), 0);
  ::tensorflow::TrackableObjectGraph graph;
  ASSERT_TRUE(graph.ParseFromString(graph_tensor->scalar<std::string>()));
  std::vector<std::string> children;
  for (const auto& child : graph.nodes(0).children()) children.push_back(child.local_name());
  EXPECT_THAT(children, ::testing::IsSupersetOf({"v", "step"}));
}

TEST(TensorBundleTest, ConcurrentLookups) {
  auto reader = OpenOrDie(TestdataDir() + "/dtypes");
  ASSERT_NE(reader, nullptr);
  std::vector<GoldenTensor> golden;
  for (auto& g : ReadGolden()) {
    if (g.bundle == "dtypes") golden.push_back(std::move(g));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      for (int round = 0; round < 10; ++round) {
        for (const auto& g : golden) {
          auto t = reader->Lookup(g.key);
          ASSERT_TRUE(t.ok()) << t.status();
          ExpectMatchesGolden(*t, g);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
}

// ---- Damaged bundles
// ------------------------------------------------------------------------------

void FlipByte(const std::string& path, uint64_t offset) {
  std::string data = ReadFile(path);
  ASSERT_LT(offset, data.size());
  data[offset] ^= 0x01;
  WriteFile(path, data);
}

TEST(TensorBundleTest, FlippedDataByteIsDataLoss) {
  const std::string prefix = CopyBundle(TestdataDir() + "/dtypes", "flipped_data");
  auto reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  for (const std::string key : {"int32", "string", "string/scalar"}) {
    auto entry = reader->Entry(key);
    ASSERT_TRUE(entry.ok());
    // The last byte: a value byte for numbers, string bytes for strings.
    FlipByte(prefix + ".data-00000-of-00001", entry->offset() + entry->size() - 1);
    auto t = reader->Lookup(key);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss) << key;
    EXPECT_THAT(t.status().message(), HasSubstr("Checksum does not match: stored 0x"));
    EXPECT_THAT(t.status().message(),
                HasSubstr(absl::StrCat("for key '", key, "' in ", prefix, ".data-00000-of-00001")));
  }
  // A string length byte: caught by the checksum of the lengths (or the size check).
  auto entry = reader->Entry("string/matrix");
  ASSERT_TRUE(entry.ok());
  FlipByte(prefix + ".data-00000-of-00001", entry->offset());
  EXPECT_EQ(reader->Lookup("string/matrix").status().code(), absl::StatusCode::kDataLoss);
  // Untouched keys still read.
  EXPECT_TRUE(reader->Lookup("int64").ok());
}

TEST(TensorBundleTest, DamagedIndexFailsToOpen) {
  const std::string prefix = CopyBundle(TestdataDir() + "/dtypes", "damaged_index");
  const std::string index = prefix + ".index";
  const std::string original = ReadFile(index);
  struct Case {
    std::string name;
    std::string contents;
    std::string message;
  };
  std::string flipped_block = original;
  flipped_block[20] ^= 0x40;  // inside the first data block
  std::string bad_magic = original;
  bad_magic.back() ^= 0x01;
  const std::vector<Case> cases = {
      {"truncated by one byte", original.substr(0, original.size() - 1), "bad magic"},
      {"truncated to the data", original.substr(0, 100), "bad magic"},
      {"shorter than a footer", original.substr(0, 20), "too short"},
      {"empty", "", "too short"},
      {"bad magic", bad_magic, "bad magic"},
      {"flipped block byte", flipped_block, "block checksum mismatch"},
  };
  for (const Case& c : cases) {
    WriteFile(index, c.contents);
    auto reader = TensorBundleReader::Open(prefix);
    EXPECT_EQ(reader.status().code(), absl::StatusCode::kDataLoss) << c.name;
    EXPECT_THAT(reader.status().message(), HasSubstr(index)) << c.name;
    EXPECT_THAT(reader.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(TensorBundleTest, MissingFiles) {
  EXPECT_EQ(TensorBundleReader::Open(TestdataDir() + "/no_such_bundle").status().code(),
            absl::StatusCode::kNotFound);

  const std::string prefix = CopyBundle(TestdataDir() + "/sharded", "missing_shard");
  fs::remove(prefix + ".data-00001-of-00002");
  auto reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->Lookup("w0").ok());  // shard 0 is still there
  auto w1 = reader->Lookup("w1");
  EXPECT_EQ(w1.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(w1.status().message(), HasSubstr(prefix + ".data-00001-of-00002"));

  auto missing = reader->Lookup("nope");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("'nope'"));
  EXPECT_FALSE(reader->Contains("nope"));
  EXPECT_FALSE(reader->Contains(""));  // the header is not a tensor
}

TEST(TensorBundleTest, TruncatedDataShard) {
  const std::string prefix = CopyBundle(TestdataDir() + "/dtypes", "truncated_data");
  const std::string data_file = prefix + ".data-00000-of-00001";
  auto reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  auto entry = reader->Entry("float32/big");
  ASSERT_TRUE(entry.ok());
  fs::resize_file(data_file, entry->offset() + 10);
  auto t = reader->Lookup("float32/big");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(t.status().message(), HasSubstr("truncated"));
  EXPECT_THAT(t.status().message(), HasSubstr("'float32/big'"));
}

// ---- Bundles built here: layouts TensorFlow's pip build does not produce ------------------------

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutFixed32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// One block: prefix-compressed entries with a restart point every `restart_interval` entries.
std::string BuildBlock(const KeyValues& entries, int restart_interval) {
  std::string block;
  std::vector<uint32_t> restarts = {0};
  std::string last;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [key, value] = entries[i];
    size_t shared = 0;
    if (i % restart_interval == 0) {
      if (i > 0) restarts.push_back(block.size());
    } else {
      while (shared < last.size() && shared < key.size() && last[shared] == key[shared]) ++shared;
    }
    PutVarint(shared, &block);
    PutVarint(key.size() - shared, &block);
    PutVarint(value.size(), &block);
    block += key.substr(shared) + value;
    last = key;
  }
  for (uint32_t r : restarts) PutFixed32(r, &block);
  PutFixed32(restarts.size(), &block);
  return block;
}

struct Handle {
  uint64_t offset, size;
};

Handle AppendBlock(const std::string& contents, bool snappy, std::string* file) {
  std::string stored = contents;
  char type = 0;
  if (snappy) {
    snappy::Compress(contents.data(), contents.size(), &stored);
    type = 1;
  }
  const Handle h{file->size(), stored.size()};
  *file += stored;
  file->push_back(type);
  PutFixed32(crc32c::Mask(crc32c::Value(file->data() + h.offset, h.size + 1)), file);
  return h;
}

void RewriteBlockCrc(const Handle& h, std::string* file) {
  std::string crc;
  PutFixed32(crc32c::Mask(crc32c::Value(file->data() + h.offset, h.size + 1)), &crc);
  file->replace(h.offset + h.size + 1, 4, crc);
}

struct Table {
  std::string bytes;
  std::vector<Handle> data_blocks;
};

Table BuildTable(const KeyValues& sorted, int entries_per_block, int restart_interval,
                 bool snappy) {
  Table table;
  KeyValues index;
  for (size_t begin = 0; begin < sorted.size(); begin += entries_per_block) {
    const KeyValues chunk(sorted.begin() + begin,
                          sorted.begin() + std::min(sorted.size(), begin + entries_per_block));
    const Handle h = AppendBlock(BuildBlock(chunk, restart_interval), snappy, &table.bytes);
    table.data_blocks.push_back(h);
    std::string handle;
    PutVarint(h.offset, &handle);
    PutVarint(h.size, &handle);
    // The block's last key is a valid separator (last <= sep < next block's first key).
    index.emplace_back(chunk.back().first, handle);
  }
  const Handle meta = AppendBlock(BuildBlock({}, 1), false, &table.bytes);
  const Handle idx = AppendBlock(BuildBlock(index, 1), false, &table.bytes);
  std::string footer;
  for (const Handle& h : {meta, idx}) {
    PutVarint(h.offset, &footer);
    PutVarint(h.size, &footer);
  }
  footer.resize(40, '\0');
  PutFixed32(0x8b80fb57u, &footer);
  PutFixed32(0xdb477524u, &footer);
  table.bytes += footer;
  return table;
}

// Writes tensors into one data shard and builds the index entries for them.
class BundleBuilder {
 public:
  explicit BundleBuilder(bool big_endian = false) : big_endian_(big_endian) {
    if (big_endian) header_.set_endianness(::tensorflow::BundleHeaderProto::BIG);
    header_.set_num_shards(1);
    header_.mutable_version()->set_producer(1);
  }

  ::tensorflow::BundleHeaderProto& header() { return header_; }

  // Returns the entry so tests can tamper with it before Write().
  ::tensorflow::BundleEntryProto& Add(const std::string& key, const Tensor& t) {
    ::tensorflow::BundleEntryProto& entry = entries_[key];
    entry.set_dtype(t.dtype());
    t.shape().AsProto(entry.mutable_shape());
    entry.set_offset(data_.size());
    std::string bytes;
    uint32_t crc = 0;
    if (t.dtype() == DT_STRING) {
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        const std::string& s = t.data<std::string>()[i];
        PutVarint(s.size(), &bytes);
        std::string le;
        PutFixed32(s.size(), &le);
        crc = crc32c::Extend(crc, le.data(), 4);
      }
      const size_t crc_at = bytes.size();
      PutFixed32(crc32c::Mask(crc), &bytes);
      crc = crc32c::Extend(crc, bytes.data() + crc_at, 4);
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        const std::string& s = t.data<std::string>()[i];
        bytes += s;
        crc = crc32c::Extend(crc, s.data(), s.size());
      }
    } else {
      bytes.assign(static_cast<const char*>(t.raw_data()), t.TotalBytes());
      if (big_endian_) {
        int unit = DataTypeSize(t.dtype()) / (t.dtype() == DT_COMPLEX64 ? 2 : 1);
        for (size_t i = 0; i < bytes.size(); i += unit) {
          std::reverse(bytes.begin() + i, bytes.begin() + i + unit);
        }
      }
      crc = crc32c::Value(bytes.data(), bytes.size());
    }
    data_ += bytes;
    entry.set_size(bytes.size());
    entry.set_crc32c(crc32c::Mask(crc));
    return entry;
  }

  Table Write(const std::string& prefix, int entries_per_block = 1000, int restart_interval = 16,
              bool snappy = false) {
    KeyValues kv = {{"", header_.SerializeAsString()}};
    for (const auto& [key, entry] : entries_) kv.emplace_back(key, entry.SerializeAsString());
    Table table = BuildTable(kv, entries_per_block, restart_interval, snappy);
    WriteFile(prefix + ".index", table.bytes);
    WriteFile(BundleDataFilename(prefix, 0, 1), data_);
    return table;
  }

 private:
  bool big_endian_;
  ::tensorflow::BundleHeaderProto header_;
  std::map<std::string, ::tensorflow::BundleEntryProto> entries_;
  std::string data_;
};

std::string TmpPrefix(const std::string& name) {
  return absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
}

TEST(TensorBundleTest, SnappyBlocksRestartsAndManyBlocks) {
  BundleBuilder builder;
  std::map<std::string, Tensor> want;
  for (int i = 0; i < 50; ++i) {
    // Long shared prefixes, so the blocks compress and keys are prefix-compressed.
    const std::string key = absl::StrFormat("model/layer_%02d/dense/kernel/.ATTRIBUTES/VALUE", i);
    std::vector<float> values(i % 5);
    for (size_t j = 0; j < values.size(); ++j) values[j] = i + 0.5f * j;
    want[key] = AsTensor<float>(values, {static_cast<int64_t>(values.size())});
    builder.Add(key, want[key]);
  }
  want["model/vocab"] = AsTensor<std::string>({"alpha", "", "gamma"}, {3});
  builder.Add("model/vocab", want["model/vocab"]);
  const std::string prefix = TmpPrefix("snappy");
  const Table table = builder.Write(prefix, /*entries_per_block=*/4, /*restart_interval=*/3,
                                    /*snappy=*/true);
  ASSERT_EQ(table.data_blocks.size(), 13u);

  auto reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  std::vector<std::string> keys;
  for (const auto& [key, t] : want) keys.push_back(key);
  EXPECT_EQ(reader->Keys(), keys);
  for (const auto& [key, t] : want) {
    auto got = reader->Lookup(key);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, t);
  }

  // A corrupt snappy stream (with a valid block CRC) and an unknown block type.
  std::string bad_snappy = table.bytes;
  const Handle first = table.data_blocks[0];
  bad_snappy[first.offset] = '\x7f';  // uncompressed length no longer matches the stream
  RewriteBlockCrc(first, &bad_snappy);
  WriteFile(prefix + ".index", bad_snappy);
  auto status = TensorBundleReader::Open(prefix).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("bad snappy block"));

  std::string bad_type = table.bytes;
  bad_type[first.offset + first.size] = 2;
  RewriteBlockCrc(first, &bad_type);
  WriteFile(prefix + ".index", bad_type);
  status = TensorBundleReader::Open(prefix).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("bad block type 2"));
}

TEST(TensorBundleTest, BigEndianWriter) {
  BundleBuilder builder(/*big_endian=*/true);
  const Tensor f = AsTensor<float>({1.5f, -2.0f}, {2});
  const Tensor i64 = AsTensor<int64_t>({int64_t{1} << 40, -3}, {2});
  const Tensor c64 =
      AsTensor<std::complex<float>>(std::vector<std::complex<float>>{{1.0f, -2.0f}}, {1});
  const Tensor h = AsTensor<Eigen::half>({Eigen::half(3.0f)}, {1});
  const Tensor s = AsTensor<std::string>({"strings are not swapped"}, {1});
  builder.Add("f", f);
  builder.Add("i64", i64);
  builder.Add("c64", c64);
  builder.Add("h", h);
  builder.Add("s", s);
  const std::string prefix = TmpPrefix("big_endian");
  builder.Write(prefix);
  auto reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);
  const std::map<std::string, Tensor> want = {
      {"f", f}, {"i64", i64}, {"c64", c64}, {"h", h}, {"s", s}};
  for (const auto& [key, t] : want) {
    auto got = reader->Lookup(key);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, t);
  }
}

TEST(TensorBundleTest, UnsupportedEntriesAndHeaders) {
  BundleBuilder builder;
  builder.Add("sliced", AsTensor<float>({1, 2}, {2})).add_slices()->add_extent()->set_start(0);
  builder.Add("variant", AsTensor<float>({1}, {1})).set_dtype(DT_VARIANT);
  builder.Add("bad_size", AsTensor<float>({1, 2}, {2})).set_size(4);
  builder.Add("bad_shard", AsTensor<float>({1}, {1})).set_shard_id(3);
  // A corrupt shape claiming 2^40 elements must fail cleanly, not allocate.
  auto& huge = builder.Add("huge", AsTensor<std::string>({"x"}, {1}));
  huge.mutable_shape()->mutable_dim(0)->set_size(int64_t{1} << 40);
  const std::string prefix = TmpPrefix("unsupported");
  builder.Write(prefix);
  auto reader = OpenOrDie(prefix);
  ASSERT_NE(reader, nullptr);

  auto sliced = reader->Lookup("sliced");
  EXPECT_EQ(sliced.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(sliced.status().message(), HasSubstr("partitioned"));
  EXPECT_EQ(reader->Lookup("variant").status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(reader->Lookup("bad_size").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(reader->Lookup("bad_shard").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(reader->Lookup("huge").status().code(), absl::StatusCode::kDataLoss);

  BundleBuilder future;
  future.header().mutable_version()->set_min_consumer(2);
  future.Write(prefix);
  EXPECT_EQ(TensorBundleReader::Open(prefix).status().code(),
            absl::StatusCode::kFailedPrecondition);

  // A table without the header entry.
  WriteFile(prefix + ".index", BuildTable({{"a", "junk"}}, 10, 16, false).bytes);
  auto no_header = TensorBundleReader::Open(prefix).status();
  EXPECT_EQ(no_header.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(no_header.message(), HasSubstr("no bundle header"));

  // Keys out of order are corruption.
  WriteFile(prefix + ".index", BuildTable({{"", ""}, {"b", ""}, {"a", ""}}, 10, 16, false).bytes);
  EXPECT_EQ(TensorBundleReader::Open(prefix).status().code(), absl::StatusCode::kDataLoss);
}

// ---- TF Serving's checkpoints (only where ../shared/testdata is present) -----------------------

TEST(TensorBundleTest, TfServingBundles) {
  const std::string dir = TfServingTestdata();
  if (dir.empty()) GTEST_SKIP() << "../shared/testdata/tfserving not present";

  // Every bundle opens and every tensor's checksum verifies.
  int bundles = 0;
  for (const auto& file : fs::recursive_directory_iterator(dir)) {
    if (file.path().filename() != "variables.index") continue;
    const std::string prefix = (file.path().parent_path() / "variables").string();
    auto reader = OpenOrDie(prefix);
    ASSERT_NE(reader, nullptr) << prefix;
    for (const std::string& key : reader->Keys()) {
      auto t = reader->Lookup(key);
      EXPECT_TRUE(t.ok()) << prefix << " " << key << ": " << t.status();
    }
    ++bundles;
  }
  EXPECT_EQ(bundles, 13);

  struct Expected {
    std::string key;
    float value;
    uint32_t masked_crc;
  };
  const std::vector<Expected> half_plus_two = {{"a", 0.5f, 0x1f273806u},
                                               {"a2", 0.5f, 0x1f273806u},
                                               {"b", 2.0f, 0x4f78fd10u},
                                               {"c", 3.0f, 0xc382d6efu},
                                               {"c2", 3.0f, 0xc382d6efu}};
  // cpu, gpu_trt, mlmd and *_saved_model_config have snappy-compressed index blocks.
  for (const std::string model :
       {"saved_model_half_plus_two_cpu", "saved_model_half_plus_two_gpu_trt",
        "saved_model_half_plus_two_mlmd",
        "saved_model_half_plus_two_cpu_with_saved_model_config"}) {
    auto reader = OpenOrDie(dir + "/" + model + "/00000123/variables/variables");
    ASSERT_NE(reader, nullptr);
    EXPECT_EQ(reader->Keys(), (std::vector<std::string>{"a", "a2", "b", "c", "c2"}));
    for (const Expected& e : half_plus_two) {
      auto entry = reader->Entry(e.key);
      ASSERT_TRUE(entry.ok());
      EXPECT_EQ(entry->crc32c(), e.masked_crc) << model << " " << e.key;
      auto t = reader->Lookup(e.key);
      ASSERT_TRUE(t.ok()) << t.status();
      ExpectTensorEqual(*t, Tensor::Scalar<float>(e.value));
    }
  }

  auto three = OpenOrDie(dir + "/saved_model_half_plus_three/00000123/variables/variables");
  ASSERT_NE(three, nullptr);
  ExpectTensorEqual(*three->Lookup("b"), Tensor::Scalar<float>(3.0f));

  auto counter = OpenOrDie(dir + "/saved_model_counter/00000123/variables/variables");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->Entry("counter")->crc32c(), 0x3a117ba6u);
  ExpectTensorEqual(*counter->Lookup("counter"), Tensor::Scalar<float>(0.0f));

  auto mkl = OpenOrDie(dir + "/saved_model_half_plus_two_mkl/00000123/variables/variables");
  ASSERT_NE(mkl, nullptr);
  ExpectTensorEqual(*mkl->Lookup("conv2d/kernel"),
                    AsTensor<float>({-0.5223959684371948f}, {1, 1, 1, 1}));
  ExpectTensorEqual(*mkl->Lookup("conv2d_2/bias"), AsTensor<float>({0.0f}, {1}));

  auto tf2 = OpenOrDie(dir + "/saved_model_half_plus_two_tf2_cpu/00000123/variables/variables");
  ASSERT_NE(tf2, nullptr);
  ExpectTensorEqual(*tf2->Lookup("a/.ATTRIBUTES/VARIABLE_VALUE"), Tensor::Scalar<float>(0.5f));
  ExpectTensorEqual(*tf2->Lookup("c/.ATTRIBUTES/VARIABLE_VALUE"), Tensor::Scalar<float>(3.0f));
  auto tf2_graph = tf2->Lookup("_CHECKPOINTABLE_OBJECT_GRAPH");
  ASSERT_TRUE(tf2_graph.ok());
  EXPECT_EQ(tf2->Entry("_CHECKPOINTABLE_OBJECT_GRAPH")->offset(), 12);
  ASSERT_EQ(tf2_graph->scalar<std::string>().size(), 613u);
  ::tensorflow::TrackableObjectGraph graph;
  ASSERT_TRUE(graph.ParseFromString(tf2_graph->scalar<std::string>()));
  EXPECT_EQ(graph.nodes_size(), 24);

  auto text = OpenOrDie(dir + "/tf_text_regression/01/variables/variables");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->Keys(), std::vector<std::string>{"_CHECKPOINTABLE_OBJECT_GRAPH"});
  auto text_graph = text->Lookup("_CHECKPOINTABLE_OBJECT_GRAPH");
  ASSERT_TRUE(text_graph.ok()) << text_graph.status();
  ASSERT_EQ(text_graph->dims(), 0);
  EXPECT_EQ(text_graph->scalar<std::string>().size(), 921u);
  ASSERT_TRUE(graph.ParseFromString(text_graph->scalar<std::string>()));
  EXPECT_EQ(graph.nodes_size(), 30);

  // A flipped data byte in a real model.
  const std::string copy = CopyBundle(
      dir + "/saved_model_half_plus_two_cpu/00000123/variables/variables", "tfserving_flipped");
  FlipByte(copy + ".data-00000-of-00001", 0);  // inside 'a'
  auto reader = OpenOrDie(copy);
  ASSERT_NE(reader, nullptr);
  auto a = reader->Lookup("a");
  EXPECT_EQ(a.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(a.status().message(),
              HasSubstr("Checksum does not match: stored 0x1f273806 vs. calculated on the "
                        "restored bytes 0x"));
  EXPECT_THAT(a.status().message(), HasSubstr("for key 'a' in " + copy + ".data-00000-of-00001"));
  EXPECT_TRUE(reader->Lookup("b").ok());
}

}  // namespace
}  // namespace tensord
