#include "runtime/saved_model/tfrecord_reader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "runtime/saved_model/crc32c.h"

namespace tensord {
namespace {

std::string Fixed(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// One record framed as TensorFlow's TFRecordWriter writes it.
std::string Frame(const std::string& data) {
  const std::string length = Fixed(data.size(), 8);
  return length + Fixed(crc32c::Mask(crc32c::Value(length.data(), 8)), 4) + data +
         Fixed(crc32c::Mask(crc32c::Value(data.data(), data.size())), 4);
}

std::string WriteFile(const std::string& name, const std::string& bytes) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(TfRecordReaderTest, ReadsRecordsThenEnd) {
  const std::string path = WriteFile("ok.tfrecord", Frame("first") + Frame("") + Frame("third"));
  auto reader = TfRecordReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::string record;
  std::vector<std::string> seen;
  while (true) {
    auto more = reader->Next(&record);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    seen.push_back(record);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "", "third"}));
}

TEST(TfRecordReaderTest, CorruptionIsDataLoss) {
  std::string bytes = Frame("payload");
  std::string flipped = bytes;
  flipped[14] ^= 1;  // inside the data
  std::string record;
  auto reader = TfRecordReader::Open(WriteFile("flipped.tfrecord", flipped));
  ASSERT_TRUE(reader.ok());
  auto more = reader->Next(&record);
  EXPECT_EQ(more.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(more.status().message().find("data checksum mismatch"), std::string::npos);

  reader = TfRecordReader::Open(WriteFile("short.tfrecord", bytes.substr(0, bytes.size() - 2)));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->Next(&record).status().code(), absl::StatusCode::kDataLoss);

  reader = TfRecordReader::Open(WriteFile("text.tfrecord", "not a tfrecord at all"));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->Next(&record).status().code(), absl::StatusCode::kDataLoss);

  EXPECT_EQ(TfRecordReader::Open("/nonexistent/file").status().code(),
            absl::StatusCode::kNotFound);
}

// Regression (found by tests/fuzz:tfrecord_fuzzer): a 60-byte file whose length field said 3 GB
// had the reader allocate the 3 GB before finding the file short.
TEST(TfRecordReaderTest, LengthBeyondTheFileIsRefusedBeforeAllocating) {
  const std::string length = Fixed(uint64_t{1} << 40, 8);
  const std::string header = length + Fixed(crc32c::Mask(crc32c::Value(length.data(), 8)), 4);
  auto reader = TfRecordReader::Open(WriteFile("huge.tfrecord", header + "tiny"));
  ASSERT_TRUE(reader.ok());
  std::string record;
  absl::StatusOr<bool> more = reader->Next(&record);
  EXPECT_EQ(more.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(more.status().message().find("record length 1099511627776 exceeds the 4 bytes left"),
            std::string::npos)
      << more.status();
  EXPECT_LT(record.capacity(), 1024u);
}

}  // namespace
}  // namespace tensord
