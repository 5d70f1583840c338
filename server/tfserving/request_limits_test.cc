#include "server/tfserving/request_limits.h"

#include <string>

#include "gtest/gtest.h"
#include "server/status/request_too_large.h"

namespace tensord {
namespace {

using ::tensorflow::TensorInfo;
using ::tensorflow::TensorProto;

TensorInfo FloatInfo(std::initializer_list<int64_t> dims) {
  TensorInfo info;
  info.set_name("x:0");
  info.set_dtype(::tensorflow::DT_FLOAT);
  for (int64_t d : dims) info.mutable_tensor_shape()->add_dim()->set_size(d);
  return info;
}

TensorProto FloatProto(std::initializer_list<int64_t> dims, int values) {
  TensorProto p;
  p.set_dtype(::tensorflow::DT_FLOAT);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  for (int i = 0; i < values; ++i) p.add_float_val(static_cast<float>(i));
  return p;
}

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& text) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(status.message().find(text), std::string::npos) << status;
  // Size limits are marked so that REST answers 413; malformed input is not.
  EXPECT_EQ(IsRequestTooLarge(status), code == absl::StatusCode::kResourceExhausted) << status;
}

TEST(RequestBudgetTest, DecodesWhatFitsTheSignature) {
  RequestBudget budget{RequestLimits()};
  auto t = budget.Decode("x", FloatProto({2, 3}, 6), FloatInfo({-1, 3}), "serving_default");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), TensorShape({2, 3}));
  EXPECT_EQ(t->data<float>()[5], 5.0f);
}

TEST(RequestBudgetTest, DtypeIsCheckedAgainstTheSignatureButShapeIsNot) {
  RequestBudget budget{RequestLimits()};
  TensorProto ints;
  ints.set_dtype(::tensorflow::DT_INT32);
  ints.add_int_val(1);
  ExpectError(budget.Decode("x", ints, FloatInfo({}), "sig").status(),
              absl::StatusCode::kInvalidArgument,
              "input 'x' of signature 'sig' expects float but got int32");
  // As in TF Serving, the graph decides what shapes it accepts (half_plus_two's [?,1] input is
  // sent [3]).
  EXPECT_TRUE(budget.Decode("x", FloatProto({3}, 3), FloatInfo({-1, 1}), "sig").ok());
}

// Regression: these shapes reached the allocator (2^64 bytes wrapped to 0, then overran; 2^40
// floats threw std::bad_alloc out of the RPC handler).
TEST(RequestBudgetTest, HostileShapesAreRefusedWithoutAllocating) {
  TensorInfo any = FloatInfo({});
  any.mutable_tensor_shape()->set_unknown_rank(true);
  RequestBudget budget{RequestLimits()};
  ExpectError(budget.Decode("x", FloatProto({int64_t{1} << 61, 2}, 1), any, "sig").status(),
              absl::StatusCode::kInvalidArgument, "input 'x': TensorProto of shape");
  ExpectError(budget.Decode("x", FloatProto({int64_t{1} << 40}, 1), any, "sig").status(),
              absl::StatusCode::kResourceExhausted, "--max_request_tensor_elements");
  TensorProto short_content = FloatProto({int64_t{1} << 40}, 0);
  short_content.set_tensor_content("abcd");
  ExpectError(budget.Decode("x", short_content, any, "sig").status(),
              absl::StatusCode::kInvalidArgument, "tensor_content has 4 bytes");
}

TEST(RequestBudgetTest, LimitsAddUpAcrossInputs) {
  RequestLimits limits;
  limits.max_tensor_elements = 10;
  limits.max_tensor_bytes = 1000;
  limits.max_inputs = 2;
  RequestBudget budget(limits);
  ExpectError(budget.CheckInputCount(3), absl::StatusCode::kResourceExhausted,
              "request has 3 inputs, more than the limit of 2 (--max_request_inputs)");
  EXPECT_TRUE(budget.CheckInputCount(2).ok());
  TensorInfo any = FloatInfo({-1});
  EXPECT_TRUE(budget.Decode("a", FloatProto({6}, 1), any, "sig").ok());
  ExpectError(budget.Decode("b", FloatProto({5}, 1), any, "sig").status(),
              absl::StatusCode::kResourceExhausted,
              "more than the limit of 10 tensor elements (--max_request_tensor_elements)");
  EXPECT_TRUE(budget.Decode("b", FloatProto({4}, 1), any, "sig").ok());
}

TEST(RequestBudgetTest, StringsCountTheirBytesAndRepeats) {
  RequestLimits limits;
  limits.max_string_bytes = 8;
  limits.max_tensor_bytes = 1000;
  TensorInfo strings;
  strings.set_name("s:0");
  strings.set_dtype(::tensorflow::DT_STRING);
  strings.mutable_tensor_shape()->add_dim()->set_size(-1);
  TensorProto p;
  p.set_dtype(::tensorflow::DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(2);
  p.add_string_val("123456789");
  RequestBudget budget(limits);
  ExpectError(budget.Decode("s", p, strings, "sig").status(), absl::StatusCode::kResourceExhausted,
              "input 's' has a string of 9 bytes, more than the limit of 8 "
              "(--max_request_string_bytes)");
  p.set_string_val(0, "12345678");  // 2 x (32 + 8) bytes
  EXPECT_TRUE(budget.Decode("s", p, strings, "sig").ok());
  p.mutable_tensor_shape()->mutable_dim(0)->set_size(100);  // one value repeated 100 times
  ExpectError(budget.Decode("s", p, strings, "sig").status(),
              absl::StatusCode::kResourceExhausted, "(--max_request_tensor_bytes)");
}

}  // namespace
}  // namespace tensord
