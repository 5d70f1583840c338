#include "server/rest/http_status.h"

#include <gtest/gtest.h>

#include "server/status/request_too_large.h"

namespace tensord {
namespace {

TEST(HttpStatusTest, MapsCodes) {
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kOk), 200);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kFailedPrecondition), 400);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kUnimplemented), 501);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kUnavailable), 503);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kDeadlineExceeded), 504);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kResourceExhausted), 429);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kInternal), 500);
  EXPECT_EQ(HttpStatusFromCode(absl::StatusCode::kDataLoss), 500);
}

TEST(HttpStatusTest, SizeLimitsAre413AndOverloadIs429) {
  EXPECT_EQ(HttpStatusFor(RequestTooLargeError("over --max_request_tensor_bytes")), 413);
  EXPECT_EQ(HttpStatusFor(absl::ResourceExhaustedError("queue full")), 429);
  EXPECT_EQ(HttpStatusFor(absl::NotFoundError("m")), 404);
}

}  // namespace
}  // namespace tensord
