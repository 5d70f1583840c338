// Early-return helpers for absl::Status / absl::StatusOr.
//
//   TENSORD_RETURN_IF_ERROR(DoThing());
//   TENSORD_ASSIGN_OR_RETURN(auto value, MakeValue());
#ifndef TENSORD_RUNTIME_UTIL_STATUS_MACROS_H_
#define TENSORD_RUNTIME_UTIL_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TENSORD_RETURN_IF_ERROR(expr)                 \
  do {                                                \
    ::absl::Status tensord_status_ = (expr);          \
    if (!tensord_status_.ok()) return tensord_status_; \
  } while (0)

#define TENSORD_CONCAT_INNER_(a, b) a##b
#define TENSORD_CONCAT_(a, b) TENSORD_CONCAT_INNER_(a, b)

#define TENSORD_ASSIGN_OR_RETURN(lhs, expr) \
  TENSORD_ASSIGN_OR_RETURN_IMPL_(TENSORD_CONCAT_(tensord_statusor_, __LINE__), lhs, expr)

#define TENSORD_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

#endif  // TENSORD_RUNTIME_UTIL_STATUS_MACROS_H_
