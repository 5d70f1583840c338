// Errors for requests over a configured size limit, as distinct from overload: both are
// RESOURCE_EXHAUSTED on gRPC, but REST answers a too-large request with 413 Payload Too Large
// and overload with 429 (server/rest/http_status.h).
#ifndef TENSORD_SERVER_STATUS_REQUEST_TOO_LARGE_H_
#define TENSORD_SERVER_STATUS_REQUEST_TOO_LARGE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tensord {

// RESOURCE_EXHAUSTED carrying `message` (which should name the limit's flag) and a payload
// that marks it as a size limit.
absl::Status RequestTooLargeError(absl::string_view message);

bool IsRequestTooLarge(const absl::Status& status);

}  // namespace tensord

#endif  // TENSORD_SERVER_STATUS_REQUEST_TOO_LARGE_H_
