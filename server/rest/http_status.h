// HTTP status codes for absl::Status codes, as TF Serving's REST layer maps them.
#ifndef TENSORD_SERVER_REST_HTTP_STATUS_H_
#define TENSORD_SERVER_REST_HTTP_STATUS_H_

#include "absl/status/status.h"

namespace tensord {

// OK→200, INVALID_ARGUMENT/FAILED_PRECONDITION/OUT_OF_RANGE→400, NOT_FOUND→404,
// UNIMPLEMENTED→501, UNAVAILABLE→503, DEADLINE_EXCEEDED→504, ... other codes→500.
int HttpStatusFromCode(absl::StatusCode code);

// As HttpStatusFromCode, except that a request over a size limit (IsRequestTooLarge) is 413.
int HttpStatusFor(const absl::Status& status);

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_HTTP_STATUS_H_
