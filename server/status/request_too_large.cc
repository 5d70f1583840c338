#include "server/status/request_too_large.h"

#include "absl/strings/cord.h"

namespace tensord {
namespace {
constexpr char kPayloadUrl[] = "type.tensord/request_too_large";
}  // namespace

absl::Status RequestTooLargeError(absl::string_view message) {
  absl::Status status = absl::ResourceExhaustedError(message);
  status.SetPayload(kPayloadUrl, absl::Cord());
  return status;
}

bool IsRequestTooLarge(const absl::Status& status) {
  return status.code() == absl::StatusCode::kResourceExhausted &&
         status.GetPayload(kPayloadUrl).has_value();
}

}  // namespace tensord
