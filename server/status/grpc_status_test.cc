#include "server/status/grpc_status.h"

#include <gtest/gtest.h>

namespace tensord {
namespace {

TEST(GrpcStatusTest, OkIsOk) { EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok()); }

TEST(GrpcStatusTest, EveryCanonicalCodeKeepsItsNumberAndMessage) {
  for (int code = 1; code <= 16; ++code) {
    absl::Status s(static_cast<absl::StatusCode>(code), "msg " + std::to_string(code));
    grpc::Status g = ToGrpcStatus(s);
    EXPECT_EQ(static_cast<int>(g.error_code()), code);
    EXPECT_EQ(g.error_message(), "msg " + std::to_string(code));
  }
}

TEST(GrpcStatusTest, NamedCodes) {
  EXPECT_EQ(ToGrpcStatus(absl::NotFoundError("x")).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(ToGrpcStatus(absl::FailedPreconditionError("x")).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(ToGrpcStatus(absl::InvalidArgumentError("x")).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ToGrpcStatus(absl::UnimplementedError("x")).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

TEST(GrpcStatusTest, LongMessagePreserved) {
  std::string long_message(5000, 'a');
  EXPECT_EQ(ToGrpcStatus(absl::InternalError(long_message)).error_message(), long_message);
}

TEST(GrpcStatusTest, OutOfRangeCodeBecomesUnknown) {
  absl::Status s(static_cast<absl::StatusCode>(99), "odd");
  EXPECT_EQ(ToGrpcStatus(s).error_code(), grpc::StatusCode::UNKNOWN);
  EXPECT_EQ(ToGrpcStatus(s).error_message(), "odd");
}

}  // namespace
}  // namespace tensord
