// Expected values and messages were checked against TensorFlow 2.21
// (tf.raw_ops.InitializeTableFromTextFileV2 on the same file contents).
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "kernels/lookup/lookup_test_util.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectFind;
using testing::Int64s;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::Size;
using testing::Strings;
using testing::Table;
using testing::Update;

constexpr int64_t kLineNumber = -1;
constexpr int64_t kWholeLine = -2;

std::string WriteFile(const std::string& name, const std::string& contents) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

// The op's attrs, with TensorFlow's defaults for vocab_size, offset and delimiter.
struct TextFileParams {
  int64_t key_index = kWholeLine;
  int64_t value_index = kLineNumber;
  int64_t vocab_size = -1;
  int64_t offset = 0;
  std::string delimiter = "\t";
};

TextFileParams Columns(int64_t key_index, int64_t value_index) {
  TextFileParams p;
  p.key_index = key_index;
  p.value_index = value_index;
  return p;
}
TextFileParams WithVocabSize(TextFileParams p, int64_t vocab_size) {
  p.vocab_size = vocab_size;
  return p;
}
TextFileParams WithOffset(TextFileParams p, int64_t offset) {
  p.offset = offset;
  return p;
}
TextFileParams WithDelimiter(TextFileParams p, std::string delimiter) {
  p.delimiter = std::move(delimiter);
  return p;
}

absl::Status InitFromFile(const Tensor& table, const std::string& filename,
                          const TextFileParams& p = {}) {
  return RunKernel(NodeBuilder("InitializeTableFromTextFileV2", "init_from_file")
                       .Attr("key_index", p.key_index)
                       .Attr("value_index", p.value_index)
                       .Attr("vocab_size", p.vocab_size)
                       .Attr("offset", p.offset)
                       .Attr("delimiter", p.delimiter)
                       .Build(),
                   {table, Tensor::Scalar<std::string>(filename)})
      .status();
}

// The error's message contains `part`.
void ExpectMessage(const absl::Status& status, const std::string& part) {
  EXPECT_NE(status.message().find(part), std::string::npos) << status;
}

const char kFruit[] = "apple\t5\nbanana\t7\r\ncherry\t9";  // CRLF line, no final newline

TEST(TextFileInitTest, WholeLineToLineNumber) {
  const std::string file = WriteFile("fruit_whole.txt", kFruit);
  Tensor t = Table("HashTableV2", "file_whole", DT_STRING, DT_INT64);
  ASSERT_TRUE(InitFromFile(t, file).ok());
  EXPECT_EQ(Size(t), 3);
  ExpectFind(t, Strings({"apple\t5", "banana\t7", "banana\t7\r", "cherry\t9", "x"}, {5}),
             Tensor::Scalar<int64_t>(-1), Int64s({0, 1, -1, 2, -1}, {5}));
}

TEST(TextFileInitTest, Columns) {
  const std::string file = WriteFile("fruit_columns.txt", kFruit);
  const Tensor keys = Strings({"apple", "banana", "cherry", "date"}, {4});

  Tensor to_int = Table("HashTableV2", "file_cols_int", DT_STRING, DT_INT64);
  ASSERT_TRUE(InitFromFile(to_int, file, Columns(0, 1)).ok());
  ExpectFind(to_int, keys, Tensor::Scalar<int64_t>(-1), Int64s({5, 7, 9, -1}, {4}));

  Tensor to_str = Table("HashTableV2", "file_cols_str", DT_STRING, DT_STRING);
  ASSERT_TRUE(InitFromFile(to_str, file, Columns(0, 1)).ok());
  ExpectFind(to_str, keys, Tensor::Scalar<std::string>("?"), Strings({"5", "7", "9", "?"}, {4}));

  Tensor offset = Table("HashTableV2", "file_cols_offset", DT_STRING, DT_INT64);
  ASSERT_TRUE(InitFromFile(offset, file, WithOffset(Columns(0, kLineNumber), 10)).ok());
  ExpectFind(offset, keys, Tensor::Scalar<int64_t>(-1), Int64s({10, 11, 12, -1}, {4}));

  const std::string floats = WriteFile("floats.txt", "a 1.5\nb -2e3\nc inf\n");
  Tensor to_float = Table("HashTableV2", "file_cols_float", DT_STRING, DT_FLOAT);
  ASSERT_TRUE(InitFromFile(to_float, floats, WithDelimiter(Columns(0, 1), " ")).ok());
  ExpectFind(to_float, Strings({"a", "b", "c", "d"}, {4}), Tensor::Scalar<float>(0.5f),
             AsTensor<float>({1.5f, -2000, std::numeric_limits<float>::infinity(), 0.5f}, {4}));

  // Empty columns count: "x\ty" split at 'x' is {"", "\ty"}.
  const std::string odd = WriteFile("odd_delimiter.txt", "x\ty\n");
  Tensor second = Table("HashTableV2", "file_cols_second", DT_STRING, DT_INT64);
  ASSERT_TRUE(InitFromFile(second, odd, WithDelimiter(Columns(1, kLineNumber), "x")).ok());
  ExpectFind(second, Strings({"\ty", "", "x"}, {3}), Tensor::Scalar<int64_t>(-1),
             Int64s({0, -1, -1}, {3}));
}

TEST(TextFileInitTest, IntegerFields) {
  const std::string file = WriteFile("numbers.txt", " 12 \n+3\n-4\n");
  Tensor ints = Table("HashTableV2", "file_int64", DT_INT64, DT_INT64);
  ASSERT_TRUE(InitFromFile(ints, file).ok());
  ExpectFind(ints, Int64s({12, 3, -4, 5}, {4}), Tensor::Scalar<int64_t>(-1),
             Int64s({0, 1, 2, -1}, {4}));

  // TensorFlow adds the offset to int32 fields (keys and values), not to int64 ones.
  Tensor int32s = Table("HashTableV2", "file_int32", DT_INT32, DT_INT32);
  ASSERT_TRUE(InitFromFile(int32s, file, WithOffset(Columns(kWholeLine, kWholeLine), 100)).ok());
  ExpectFind(int32s, AsTensor<int32_t>({12, 3, -4, 112, 96}, {5}), Tensor::Scalar<int32_t>(-1),
             AsTensor<int32_t>({-1, -1, -1, 112, 96}, {5}));
  Tensor by_line = Table("HashTableV2", "file_line_to_int32", DT_INT64, DT_INT32);
  ASSERT_TRUE(InitFromFile(by_line, file, WithOffset(Columns(kLineNumber, kWholeLine), 100)).ok());
  ExpectFind(by_line, Int64s({0, 1, 2, 100}, {4}), Tensor::Scalar<int32_t>(-1),
             AsTensor<int32_t>({-1, -1, -1, 112}, {4}));
}

TEST(TextFileInitTest, VocabSize) {
  const std::string file = WriteFile("fruit_vocab.txt", kFruit);
  Tensor first_two = Table("HashTableV2", "file_vocab2", DT_STRING, DT_INT64);
  ASSERT_TRUE(InitFromFile(first_two, file, WithVocabSize(Columns(0, kLineNumber), 2)).ok());
  EXPECT_EQ(Size(first_two), 2);
  ExpectFind(first_two, Strings({"apple", "banana", "cherry"}, {3}), Tensor::Scalar<int64_t>(-1),
             Int64s({0, 1, -1}, {3}));

  Tensor too_many = Table("HashTableV2", "file_vocab5", DT_STRING, DT_INT64);
  absl::Status status = InitFromFile(too_many, file, WithVocabSize(Columns(0, kLineNumber), 5));
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  ExpectMessage(status, "Invalid vocab_size in " + file + ": expected 5 but got 3");

  // Lines past vocab_size are not read, so a later empty line does not matter.
  const std::string blank_after = WriteFile("blank_after.txt", "a\nb\n\nc\n");
  Tensor truncated = Table("HashTableV2", "file_vocab_blank", DT_STRING, DT_INT64);
  EXPECT_TRUE(
      InitFromFile(truncated, blank_after, WithVocabSize(Columns(kWholeLine, kLineNumber), 2))
          .ok());
}

TEST(TextFileInitTest, FileErrors) {
  Tensor t = Table("HashTableV2", "file_errors", DT_STRING, DT_INT64);
  const std::string missing = WriteFile("", "") + "no_such_vocab.txt";
  absl::Status status = InitFromFile(t, missing);
  EXPECT_TRUE(absl::IsNotFound(status)) << status;
  ExpectMessage(status, "init_from_file: " + missing + "; No such file or directory");

  const char* dir = std::getenv("TEST_TMPDIR");
  EXPECT_TRUE(absl::IsFailedPrecondition(InitFromFile(t, dir != nullptr ? dir : "/tmp")));

  status = InitFromFile(t, WriteFile("empty.txt", ""));
  EXPECT_TRUE(absl::IsOutOfRange(status)) << status;

  const std::string blank = WriteFile("blank.txt", "a\n\nb\n");
  status = InitFromFile(t, blank);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  ExpectMessage(status, "Invalid content in " + blank + ": empty line found at position 3.");
  status = InitFromFile(t, WriteFile("crlf_blank.txt", "a\r\n\r\nb"));
  ExpectMessage(status, ": empty line found at position 5.");

  const std::string fruit = WriteFile("fruit_errors.txt", kFruit);
  status = InitFromFile(t, fruit, Columns(0, 0));
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  ExpectMessage(status, "Field apple in line 0 is not a valid int64.");
  status = InitFromFile(t, fruit, Columns(0, 3));
  ExpectMessage(status, "Invalid number of columns in " + fruit +
                            " line 0 (apple\t5) : expected at least 4 got 2");

  const std::string dup = WriteFile("dup.txt", "a\nb\na\n");
  status = InitFromFile(t, dup);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  ExpectMessage(status,
                "HashTable has different value for same key. Key a has 0 and trying "
                "to add value 2");
  // Every failure above left the table uninitialised.
  EXPECT_EQ(Size(t), 0);

  const std::string same = WriteFile("dup_same.txt", "a\t1\nb\t2\na\t1\n");
  ASSERT_TRUE(InitFromFile(t, same, Columns(0, 1)).ok());
  ExpectFind(t, Strings({"a", "b"}, {2}), Tensor::Scalar<int64_t>(-1), Int64s({1, 2}, {2}));
}

TEST(TextFileInitTest, DtypeAndArgumentErrors) {
  const std::string fruit = WriteFile("fruit_dtypes.txt", kFruit);
  Tensor str_int64 = Table("HashTableV2", "file_dtypes_a", DT_STRING, DT_INT64);
  ExpectMessage(InitFromFile(str_int64, fruit, Columns(kLineNumber, 0)),
                "Key index for line number requires table key dtype of int64, got string");
  Tensor str_int32 = Table("HashTableV2", "file_dtypes_b", DT_STRING, DT_INT32);
  ExpectMessage(InitFromFile(str_int32, fruit, Columns(0, kLineNumber)),
                "Value index for line number requires table value dtype of int64, got int32");
  Tensor str_float = Table("HashTableV2", "file_dtypes_c", DT_STRING, DT_FLOAT);
  ExpectMessage(InitFromFile(str_float, fruit, Columns(0, kWholeLine)),
                "Value index for whole line requires table value dtype of integer or string, "
                "got float");
  Tensor str_bool = Table("HashTableV2", "file_dtypes_d", DT_STRING, DT_BOOL);
  ExpectMessage(InitFromFile(str_bool, fruit, Columns(kWholeLine, 0)),
                "Data type bool not supported.");

  absl::Status delimiter =
      InitFromFile(str_int64, fruit, WithDelimiter(Columns(kWholeLine, kLineNumber), "ab"));
  EXPECT_TRUE(absl::IsInvalidArgument(delimiter)) << delimiter;
  ExpectMessage(delimiter, "delimiter should be only 1 char");

  auto not_scalar = RunKernel(NodeBuilder("InitializeTableFromTextFileV2", "init_from_file")
                                  .Attr("key_index", kWholeLine)
                                  .Attr("value_index", kLineNumber)
                                  .Attr("vocab_size", -1)
                                  .Attr("offset", 0)
                                  .Attr("delimiter", "\t")
                                  .Build(),
                              {str_int64, Strings({fruit}, {1})});
  ExpectMessage(not_scalar.status(), "filename should be a single string, but got [1]");

  Tensor mutable_table = Table("MutableHashTableV2", "file_mutable", DT_INT64, DT_STRING);
  absl::Status status = InitFromFile(mutable_table, fruit, Columns(kLineNumber, kWholeLine));
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  ExpectMessage(status, "is not initializable");
}

TEST(TextFileInitTest, AlreadyInitializedTableIsKept) {
  Tensor t = Table("HashTableV2", "file_after_init", DT_STRING, DT_INT64);
  ASSERT_TRUE(Update("InitializeTableV2", t, Strings({"a"}, {1}), Int64s({1}, {1})).ok());
  const std::string fruit = WriteFile("fruit_after_init.txt", kFruit);
  EXPECT_TRUE(InitFromFile(t, fruit).ok());
  // Only the first line is parsed before noticing the table is initialised.
  EXPECT_TRUE(InitFromFile(t, WriteFile("blank_after_init.txt", "a\n\nb\n")).ok());
  EXPECT_TRUE(absl::IsNotFound(InitFromFile(t, fruit + ".missing")));
  EXPECT_TRUE(absl::IsInvalidArgument(InitFromFile(t, fruit, Columns(0, 0))));
  ExpectFind(t, Strings({"a", "apple\t5"}, {2}), Tensor::Scalar<int64_t>(-1), Int64s({1, -1}, {2}));
}

}  // namespace
}  // namespace tensord
