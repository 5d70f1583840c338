#include "server/rest/http_status.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tensord
