#include "server/rest/http_status.h"

#include "server/status/request_too_large.h"

namespace tensord {

int HttpStatusFromCode(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk: return 200;
    case absl::StatusCode::kCancelled: return 499;
    case absl::StatusCode::kInvalidArgument: return 400;
    case absl::StatusCode::kFailedPrecondition: return 400;
    case absl::StatusCode::kOutOfRange: return 400;
    case absl::StatusCode::kDeadlineExceeded: return 504;
    case absl::StatusCode::kNotFound: return 404;
    case absl::StatusCode::kAlreadyExists: return 409;
    case absl::StatusCode::kAborted: return 409;
    case absl::StatusCode::kPermissionDenied: return 403;
    case absl::StatusCode::kUnauthenticated: return 401;
    case absl::StatusCode::kResourceExhausted: return 429;
    case absl::StatusCode::kUnimplemented: return 501;
    case absl::StatusCode::kUnavailable: return 503;
    default: return 500;
  }
}

int HttpStatusFor(const absl::Status& status) {
  return IsRequestTooLarge(status) ? 413 : HttpStatusFromCode(status.code());
}

}  // namespace tensord
