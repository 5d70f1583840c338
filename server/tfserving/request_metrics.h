// RequestMetrics: the metrics of one API request, recorded in one place for gRPC and REST.
//
//   RequestMetrics metrics(&ServingMetrics::Global(), "Predict", Protocol::kGrpc, model_name);
//   absl::Status s = HandlePredict(manager, request, &response, &context);
//   metrics.Finish(s, context, request.ByteSizeLong(), response.ByteSizeLong());
//
// Construction counts the request as in flight; Finish (at most once) records TF Serving's
// request_count / request_latency / runtime_latency and tensord's families; destruction ends the
// in-flight count. A null ServingMetrics records nothing. Not thread-safe (one per request).
#ifndef TENSORD_SERVER_TFSERVING_REQUEST_METRICS_H_
#define TENSORD_SERVER_TFSERVING_REQUEST_METRICS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/metrics/serving_metrics.h"
#include "server/tfserving/handlers.h"

namespace tensord {

enum class Protocol { kGrpc, kRest };

// The model_name label of requests for models the server does not have.
inline constexpr char kUnknownModelLabel[] = "<unknown>";

class RequestMetrics {
 public:
  // `method`: the API method as gRPC names it ("Predict", "Classify", "Regress",
  // "MultiInference", "GetModelMetadata", "GetModelStatus"). `model`: the name in the request,
  // recorded as kUnknownModelLabel unless `manager` (may be null: any name) has that model, so
  // clients cannot add label values, and series, without bound.
  RequestMetrics(ServingMetrics* metrics, std::string method, Protocol protocol,
                 const std::string& model, const ModelManager* manager);
  ~RequestMetrics();
  RequestMetrics(const RequestMetrics&) = delete;
  RequestMetrics& operator=(const RequestMetrics&) = delete;

  // `examples`: tf.Examples in a Classify/Regress/MultiInference request, -1 for other methods.
  void Finish(const absl::Status& status, const RequestContext& context, size_t request_bytes,
              size_t response_bytes, int64_t examples = -1);

 private:
  ServingMetrics* const metrics_;
  const std::string method_;
  const Protocol protocol_;
  const std::string model_;
  const absl::Time start_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_REQUEST_METRICS_H_
