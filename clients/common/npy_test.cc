#include "clients/common/npy.h"

#include <complex>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "Eigen/Core"
#include "gtest/gtest.h"

namespace tensord {
namespace npy {
namespace {

const char kTestdata[] = "clients/common/testdata/";

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

template <typename T>
Tensor Make(DataType dtype, TensorShape shape, std::vector<T> values) {
  Tensor t(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

template <typename T>
void ExpectRoundTrip(DataType dtype, const std::string& descr, std::vector<T> values) {
  SCOPED_TRACE(descr);
  Tensor in = Make<T>(dtype, TensorShape{static_cast<int64_t>(values.size()), 1}, values);
  absl::StatusOr<std::string> bytes = Serialize(in);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_NE(bytes->find("'descr': '" + descr + "'"), std::string::npos) << *bytes;
  absl::StatusOr<Tensor> out = Parse(*bytes);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->dtype(), dtype);
  EXPECT_EQ(out->shape(), in.shape());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_TRUE(out->data<T>()[i] == values[i]) << i;
}

TEST(NpyTest, RoundTripEveryDtype) {
  ExpectRoundTrip<float>(DT_FLOAT, "<f4", {1.5f, -0.1f, std::numeric_limits<float>::max()});
  ExpectRoundTrip<double>(DT_DOUBLE, "<f8", {0.1, -1e300});
  ExpectRoundTrip<Eigen::half>(DT_HALF, "<f2", {Eigen::half(1.5f), Eigen::half(-2.0f)});
  ExpectRoundTrip<int8_t>(DT_INT8, "|i1", {-128, 127});
  ExpectRoundTrip<int16_t>(DT_INT16, "<i2", {-32768, 7});
  ExpectRoundTrip<int32_t>(DT_INT32, "<i4", {-5, 1 << 30});
  ExpectRoundTrip<int64_t>(DT_INT64, "<i8", {std::numeric_limits<int64_t>::min(), 42});
  ExpectRoundTrip<uint8_t>(DT_UINT8, "|u1", {0, 255});
  ExpectRoundTrip<uint16_t>(DT_UINT16, "<u2", {65535});
  ExpectRoundTrip<uint32_t>(DT_UINT32, "<u4", {4000000000u});
  ExpectRoundTrip<uint64_t>(DT_UINT64, "<u8", {std::numeric_limits<uint64_t>::max()});
  ExpectRoundTrip<bool>(DT_BOOL, "|b1", {true, false, true});
  ExpectRoundTrip<std::complex<float>>(DT_COMPLEX64, "<c8", {{1.0f, -2.0f}});
  ExpectRoundTrip<std::complex<double>>(DT_COMPLEX128, "<c16", {{0.5, 3.0}});
  ExpectRoundTrip<std::string>(DT_STRING, "|S5", {"a", "hello", "", std::string("x\0y", 3)});
}

TEST(NpyTest, ScalarsAndEmptyArrays) {
  absl::StatusOr<Tensor> scalar = Parse(*Serialize(Tensor::Scalar<float>(2.5f)));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->dims(), 0);
  EXPECT_EQ(scalar->scalar<float>(), 2.5f);

  Tensor empty(DT_INT32, TensorShape{2, 0, 3});
  absl::StatusOr<std::string> bytes = Serialize(empty);
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(bytes->find("'shape': (2, 0, 3)"), std::string::npos);
  absl::StatusOr<Tensor> back = Parse(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), (TensorShape{2, 0, 3}));

  // Empty string arrays use '|S1', as numpy does.
  bytes = Serialize(Tensor(DT_STRING, TensorShape{0}));
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(bytes->find("'descr': '|S1'"), std::string::npos);
  EXPECT_NE(bytes->find("'shape': (0,)"), std::string::npos);
}

TEST(NpyTest, HeaderIsPaddedTo64Bytes) {
  for (int rank = 0; rank < 8; ++rank) {
    std::vector<int64_t> dims(rank, 1);
    absl::StatusOr<std::string> bytes = Serialize(Tensor(DT_FLOAT, TensorShape(dims)));
    ASSERT_TRUE(bytes.ok());
    size_t header_len = static_cast<unsigned char>((*bytes)[8]) |
                        (static_cast<unsigned char>((*bytes)[9]) << 8);
    EXPECT_EQ((10 + header_len) % 64, 0u) << rank;
    EXPECT_EQ((*bytes)[10 + header_len - 1], '\n');
    EXPECT_EQ(bytes->size(), 10 + header_len + 4);
  }
}

TEST(NpyTest, HugeHeaderUsesVersion2) {
  // 25000 dims of size 1 need a header longer than version 1.0's 65535 bytes.
  std::vector<int64_t> dims(25000, 1);
  Tensor t(DT_FLOAT, TensorShape(dims));
  t.data<float>()[0] = 7.0f;
  absl::StatusOr<std::string> bytes = Serialize(t);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ((*bytes)[6], 2);
  absl::StatusOr<Tensor> back = Parse(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dims(), 25000);
  EXPECT_EQ(back->data<float>()[0], 7.0f);
}

TEST(NpyTest, WriterMatchesNumpyByteForByte) {
  Tensor t(DT_FLOAT, TensorShape{2, 3});
  for (int i = 0; i < 6; ++i) t.data<float>()[i] = i / 4.0f;
  absl::StatusOr<std::string> bytes = Serialize(t);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, ReadBytes(std::string(kTestdata) + "numpy_f4_2x3.npy"));
}

TEST(NpyTest, ReadsFilesWrittenByNumpy) {
  absl::StatusOr<Tensor> f = ReadFile(std::string(kTestdata) + "numpy_f4_2x3.npy");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->dtype(), DT_FLOAT);
  EXPECT_EQ(f->shape(), (TensorShape{2, 3}));
  EXPECT_EQ(f->data<float>()[5], 1.25f);

  absl::StatusOr<Tensor> i = ReadFile(std::string(kTestdata) + "numpy_i8.npy");
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_EQ(i->dtype(), DT_INT64);
  EXPECT_EQ(i->data<int64_t>()[0], -9007199254740993);
  EXPECT_EQ(i->data<int64_t>()[2], std::numeric_limits<int64_t>::max());

  absl::StatusOr<Tensor> b = ReadFile(std::string(kTestdata) + "numpy_b1.npy");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->dtype(), DT_BOOL);
  EXPECT_EQ(b->shape(), (TensorShape{2, 2}));
  EXPECT_TRUE(b->data<bool>()[0]);
  EXPECT_FALSE(b->data<bool>()[1]);

  absl::StatusOr<Tensor> s = ReadFile(std::string(kTestdata) + "numpy_S.npy");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->dtype(), DT_STRING);
  EXPECT_EQ(s->data<std::string>()[0], "a");
  EXPECT_EQ(s->data<std::string>()[1], "bcd");
  EXPECT_EQ(s->data<std::string>()[2], "");

  absl::StatusOr<Tensor> u = ReadFile(std::string(kTestdata) + "numpy_U.npy");
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->data<std::string>()[0], "h\xC3\xA9");
  EXPECT_EQ(u->data<std::string>()[1], "\xE6\xBC\xA2\xE5\xAD\x97");

  absl::StatusOr<Tensor> d = ReadFile(std::string(kTestdata) + "numpy_f8_scalar.npy");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->dims(), 0);
  EXPECT_EQ(d->scalar<double>(), 0.1);

  // Version 2.0 header, big-endian data.
  absl::StatusOr<Tensor> v2 = ReadFile(std::string(kTestdata) + "numpy_v2_i4be.npy");
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v2->dtype(), DT_INT32);
  EXPECT_EQ(v2->data<int32_t>()[1], -2);
  EXPECT_EQ(v2->data<int32_t>()[2], 70000);
}

TEST(NpyTest, FortranOrderIsRejected) {
  absl::StatusOr<Tensor> t = ReadFile(std::string(kTestdata) + "numpy_fortran.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("Fortran order"), std::string::npos) << t.status();
  EXPECT_NE(t.status().message().find("numpy_fortran.npy"), std::string::npos) << t.status();
}

std::string NpyBytes(const std::string& header, const std::string& data) {
  std::string h = header;
  while ((10 + h.size() + 1) % 64 != 0) h.push_back(' ');
  h.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(h.size() & 0xFF));
  out.push_back(static_cast<char>(h.size() >> 8));
  return out + h + data;
}

std::string ParseError(const std::string& bytes) {
  absl::StatusOr<Tensor> t = Parse(bytes);
  EXPECT_FALSE(t.ok());
  return t.ok() ? "" : std::string(t.status().message());
}

TEST(NpyTest, BadFilesGiveClearErrors) {
  EXPECT_NE(ParseError("not numpy at all").find("magic"), std::string::npos);
  EXPECT_NE(ParseError(std::string("\x93NUMPY\x09\x00\x10\x00", 10)).find("version 9"),
            std::string::npos);
  std::string good = NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                              std::string(8, '\0'));
  EXPECT_TRUE(Parse(good).ok());
  EXPECT_NE(ParseError(good.substr(0, good.size() - 1)).find("needs 2 x 4"), std::string::npos);
  EXPECT_NE(ParseError(good + "x").find("data holds 9 bytes"), std::string::npos);
  EXPECT_NE(ParseError(good.substr(0, 20)).find("truncated header"), std::string::npos);
  EXPECT_NE(ParseError(NpyBytes("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
                                std::string(8, '\0')))
                .find("object arrays"),
            std::string::npos);
  EXPECT_NE(ParseError(NpyBytes("{'descr': [('a', '<f4')], 'fortran_order': False, "
                                "'shape': (1,), }",
                                ""))
                .find("structured"),
            std::string::npos);
  EXPECT_NE(ParseError(NpyBytes("{'descr': '<f3', 'fortran_order': False, 'shape': (1,), }", ""))
                .find("unsupported .npy dtype '<f3'"),
            std::string::npos);
  EXPECT_NE(ParseError(NpyBytes("{'descr': '<f4', 'shape': (1,), }", "")).find("fortran_order"),
            std::string::npos);
  EXPECT_NE(ParseError(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", ""))
                .find("shape"),
            std::string::npos);
  // A header claiming a huge shape must not allocate it.
  EXPECT_NE(ParseError(NpyBytes("{'descr': '<f8', 'fortran_order': False, "
                                "'shape': (1000000000, 1000000000), }",
                                ""))
                .find("data holds 0 bytes"),
            std::string::npos);
}

TEST(NpyTest, BfloatAndResourceCannotBeSaved) {
  EXPECT_FALSE(Serialize(Tensor(DT_BFLOAT16, TensorShape{1})).ok());
  EXPECT_FALSE(Serialize(Tensor()).ok());
}

TEST(NpyTest, FileRoundTrip) {
  std::string path = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") +
                     "/npy_test_roundtrip.npy";
  Tensor t = Make<int64_t>(DT_INT64, TensorShape{3}, {1, 2, 3});
  ASSERT_TRUE(WriteFile(path, t).ok());
  absl::StatusOr<Tensor> back = ReadFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data<int64_t>()[2], 3);
  std::remove(path.c_str());
  EXPECT_EQ(ReadFile(path).status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(WriteFile("/nonexistent-dir/x.npy", t).ok());
}

}  // namespace
}  // namespace npy
}  // namespace tensord
