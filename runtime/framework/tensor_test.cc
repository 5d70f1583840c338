#include "runtime/framework/tensor.h"

#include <complex>
#include <new>
#include <string>

#include "gtest/gtest.h"
#include "runtime/framework/dispatch_numeric.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/framework/tensor_proto.h"

namespace tensord {
namespace {

TEST(TensorTest, ShapesAndSlicesShareTheBuffer) {
  Tensor t(DT_FLOAT, {3, 2});
  for (int i = 0; i < 6; ++i) t.data<float>()[i] = static_cast<float>(i);
  EXPECT_EQ(t.NumElements(), 6);
  EXPECT_EQ(t.TotalBytes(), 24u);
  Tensor rows = t.Slice(1, 3);
  EXPECT_EQ(rows.shape(), TensorShape({2, 2}));
  EXPECT_EQ(rows.data<float>()[0], 2.0f);
  EXPECT_TRUE(rows.SharesBufferWith(t));
  EXPECT_FALSE(t.RefCountIsOne());
  auto flat = t.Reshaped({6});
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(flat->flat<float>()(5), 5.0f);
  EXPECT_FALSE(t.Reshaped({4}).ok());
  Tensor copy = rows.DeepCopy();
  EXPECT_FALSE(copy.SharesBufferWith(t));
  EXPECT_EQ(copy.data<float>()[3], 5.0f);
}

// ForOverwrite skips zero-filling numbers only: objects are still constructed, so strings read
// as empty before anything is written.
TEST(TensorTest, ForOverwriteAllocatesTheShapeAndConstructsObjects) {
  Tensor numbers = Tensor::ForOverwrite(DT_FLOAT, {4, 5});
  EXPECT_EQ(numbers.dtype(), DT_FLOAT);
  EXPECT_EQ(numbers.shape(), TensorShape({4, 5}));
  EXPECT_EQ(numbers.TotalBytes(), 80u);
  EXPECT_TRUE(numbers.RefCountIsOne());
  for (int i = 0; i < 20; ++i) numbers.data<float>()[i] = static_cast<float>(i);
  EXPECT_EQ(numbers.data<float>()[19], 19.0f);
  Tensor strings = Tensor::ForOverwrite(DT_STRING, {3});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(strings.data<std::string>()[i], "");
}

TEST(TensorTest, StringsAreConstructedAndCopied) {
  Tensor t(DT_STRING, {2});
  EXPECT_EQ(t.data<std::string>()[1], "");
  t.data<std::string>()[0] = std::string(100, 'x');
  Tensor copy = t.DeepCopy();
  EXPECT_EQ(copy.data<std::string>()[0].size(), 100u);
  EXPECT_EQ(Tensor::Scalar<std::string>("hi").DebugString(), "string [] {\"hi\"}");
}

TEST(TensorProtoTest, TypedFieldsRepeatTheLastValue) {
  ::tensorflow::TensorProto p;
  p.set_dtype(DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(4);
  p.add_float_val(1.5f);
  p.add_float_val(2.5f);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<float>()[3], 2.5f);

  p.clear_float_val();  // no values: zeros
  t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data<float>()[2], 0.0f);

  for (int i = 0; i < 5; ++i) p.add_float_val(1);  // too many values
  EXPECT_EQ(TensorFromProto(p).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TensorProtoTest, RoundTripsEveryDtypeBothWays) {
  for (DataType dt : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_INT8, DT_INT16, DT_UINT8,
                      DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL, DT_HALF, DT_BFLOAT16,
                      DT_COMPLEX64}) {
    SCOPED_TRACE(DataTypeString(dt));
    Tensor t(dt, {3});
    DispatchNumeric(dt, [&](auto tag) {
      using T = decltype(tag);
      for (int i = 0; i < 3; ++i) t.data<T>()[i] = static_cast<T>(i % 2 == 0 ? 1 : 0);
    });
    for (bool content : {true, false}) {
      ::tensorflow::TensorProto p;
      TensorToProto(t, &p, content);
      auto back = TensorFromProto(p);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->dtype(), dt);
      EXPECT_EQ(std::memcmp(back->raw_data(), t.raw_data(), t.TotalBytes()), 0);
    }
  }
}

TEST(TensorProtoTest, HalfBitsAndStringsAndBadContent) {
  ::tensorflow::TensorProto p;
  p.set_dtype(DT_HALF);
  p.add_half_val(0x3c00);  // 1.0 in IEEE half
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(static_cast<float>(t->scalar<Eigen::half>()), 1.0f);

  ::tensorflow::TensorProto s;
  s.set_dtype(DT_STRING);
  s.mutable_tensor_shape()->add_dim()->set_size(2);
  s.add_string_val("a");
  s.add_string_val(std::string("b\0c", 3));
  t = TensorFromProto(s);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data<std::string>()[1].size(), 3u);

  ::tensorflow::TensorProto packed;  // strings in tensor_content: varint lengths, then bytes
  packed.set_dtype(DT_STRING);
  packed.mutable_tensor_shape()->add_dim()->set_size(2);
  packed.set_tensor_content(std::string("\x02\x03" "abxyz", 7));
  t = TensorFromProto(packed);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<std::string>()[0], "ab");
  EXPECT_EQ(t->data<std::string>()[1], "xyz");
  packed.set_tensor_content(std::string("\x02\x09" "abxyz", 7));
  EXPECT_EQ(TensorFromProto(packed).status().code(), absl::StatusCode::kInvalidArgument);

  ::tensorflow::TensorProto bad;
  bad.set_dtype(DT_FLOAT);
  bad.mutable_tensor_shape()->add_dim()->set_size(2);
  bad.set_tensor_content("abc");
  auto status = TensorFromProto(bad).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("needs 8"), std::string::npos) << status;

  bad.mutable_tensor_shape()->mutable_dim(0)->set_size(-1);
  EXPECT_FALSE(TensorFromProto(bad).ok());
  bad.set_dtype(DT_VARIANT);
  EXPECT_FALSE(TensorFromProto(bad).ok());
}

::tensorflow::TensorProto FloatProto(std::initializer_list<int64_t> dims) {
  ::tensorflow::TensorProto p;
  p.set_dtype(DT_FLOAT);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

// Regression: 2^62 floats need 2^64 bytes, which wrapped to a 0-byte buffer that the fill
// then overran.
TEST(TensorProtoTest, ByteCountsThatOverflowAreRejected) {
  ::tensorflow::TensorProto p = FloatProto({int64_t{1} << 61, 2});
  p.add_float_val(1.0f);
  absl::Status status = TensorFromProto(p).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("too large"), std::string::npos) << status;
  EXPECT_THROW(Tensor(DT_FLOAT, {int64_t{1} << 61, 2}), std::bad_alloc);
}

// Regression: a dim of 2^40 with one value asked the allocator for 4 TiB (std::bad_alloc out
// of the RPC handler); now the size is checked against the bound first.
TEST(TensorProtoTest, HugeShapesAreRefusedBeforeAllocating) {
  ::tensorflow::TensorProto p = FloatProto({int64_t{1} << 40});
  p.add_float_val(1.0f);
  absl::Status status = TensorFromProto(p).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_NE(status.message().find("4398046511104 bytes"), std::string::npos) << status;

  p.clear_float_val();
  p.set_tensor_content("abcd");  // content shorter than its shape
  status = TensorFromProto(p).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("has 4 bytes"), std::string::npos) << status;

  ::tensorflow::TensorProto small = FloatProto({1000});
  small.add_float_val(2.0f);
  EXPECT_EQ(TensorFromProto(small, /*max_bytes=*/3999).status().code(),
            absl::StatusCode::kResourceExhausted);
  auto t = TensorFromProto(small, /*max_bytes=*/4000);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<float>()[999], 2.0f);
}

TEST(TensorProtoTest, MeasuresStringsWithTheirRepeats) {
  ::tensorflow::TensorProto s;
  s.set_dtype(DT_STRING);
  s.mutable_tensor_shape()->add_dim()->set_size(1000);
  s.add_string_val("ab");
  s.add_string_val(std::string(1 << 20, 'x'));  // repeated for elements 2..999
  auto size = MeasureTensorProto(s);
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(size->elements, 1000);
  EXPECT_EQ(size->longest_string, 1 << 20);
  EXPECT_EQ(size->bytes, 1000 * static_cast<int64_t>(sizeof(std::string)) + 2 +
                             999 * (int64_t{1} << 20));
  EXPECT_EQ(TensorFromProto(s, /*max_bytes=*/int64_t{1} << 29).status().code(),
            absl::StatusCode::kResourceExhausted);

  s.mutable_tensor_shape()->mutable_dim(0)->set_size(int64_t{1} << 50);
  EXPECT_EQ(MeasureTensorProto(s).status().code(), absl::StatusCode::kInvalidArgument);

  ::tensorflow::TensorProto packed;  // more elements than content bytes: truncated at once
  packed.set_dtype(DT_STRING);
  packed.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 40);
  packed.set_tensor_content(std::string("\x01" "a", 2));
  absl::Status status = MeasureTensorProto(packed).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("truncated"), std::string::npos) << status;
  packed.mutable_tensor_shape()->mutable_dim(0)->set_size(1);
  size = MeasureTensorProto(packed);
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(size->bytes, static_cast<int64_t>(sizeof(std::string)) + 1);
}

TEST(TensorProtoTest, OddComplexValueCountsAreRejected) {
  ::tensorflow::TensorProto p;
  p.set_dtype(DT_COMPLEX64);
  p.mutable_tensor_shape()->add_dim()->set_size(2);
  p.add_scomplex_val(1);
  p.add_scomplex_val(2);
  p.add_scomplex_val(3);
  EXPECT_EQ(TensorFromProto(p).status().code(), absl::StatusCode::kInvalidArgument);
  p.add_scomplex_val(4);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<std::complex<float>>()[1], std::complex<float>(3, 4));
}

// Regression (found by tests/fuzz:tensor_proto_fuzzer under UBSan): bool tensor_content was
// copied byte for byte, so a client's byte 0x38 became a bool holding 56, which is undefined
// behaviour wherever it is read.
TEST(TensorProtoTest, BoolContentBytesBecomeZeroOrOne) {
  ::tensorflow::TensorProto p;
  p.set_dtype(DT_BOOL);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.set_tensor_content(std::string("\x00\x38\x01", 3));
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  const uint8_t* bytes = static_cast<const uint8_t*>(t->raw_data());
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], 1);
  EXPECT_EQ(bytes[2], 1);
}

}  // namespace
}  // namespace tensord
