// Warmup replay (TF Serving's SavedModel warmup): before a freshly loaded version becomes
// AVAILABLE, the requests in `<version dir>/assets.extra/tf_serving_warmup_requests` (a TFRecord
// file of tensorflow.serving.PredictionLog) run against it, so the first real requests do not
// pay for plan building and first-touch allocation.
//
// Rules, as TF Serving: a missing file is fine (nothing to do); at most 1000 records; predict,
// classify, regress and multi_inference logs are replayed (logged responses are ignored), other
// log types are UNIMPLEMENTED; an unparseable record is INVALID_ARGUMENT, a corrupt file
// DATA_LOSS; any failure fails the load.
//
// Thread-safe: several versions may warm up at once.
#ifndef TENSORD_SERVER_TFSERVING_WARMUP_H_
#define TENSORD_SERVER_TFSERVING_WARMUP_H_

#include <string>

#include "absl/status/status.h"
#include "server/metrics/serving_metrics.h"
#include "server/model/model_manager.h"

namespace tensord {

inline constexpr char kWarmupFile[] = "assets.extra/tf_serving_warmup_requests";
inline constexpr int kMaxWarmupRecords = 1000;

struct WarmupOptions {
  // Times each record is replayed (--num_request_iterations_for_warmup); values below 1 mean 1.
  int iterations = 1;
  // model_warmup_latency / model_warmup_records_read go here; null = nowhere. Not owned.
  ServingMetrics* metrics = nullptr;
};

absl::Status ReplayWarmupRequests(const ServableHandle& handle, const WarmupOptions& options);

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_WARMUP_H_
