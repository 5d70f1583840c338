#include "server/tfserving/request_metrics.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tensord {

RequestMetrics::RequestMetrics(ServingMetrics* metrics, std::string method, Protocol protocol,
                               const std::string& model, const ModelManager* manager)
    : metrics_(metrics),
      method_(std::move(method)),
      protocol_(protocol),
      model_(manager == nullptr || manager->HasModel(model) ? model : kUnknownModelLabel),
      start_(absl::Now()) {
  if (metrics_ != nullptr) metrics_->requests_in_flight->Add({model_, method_}, 1);
}

RequestMetrics::~RequestMetrics() {
  if (metrics_ != nullptr) metrics_->requests_in_flight->Add({model_, method_}, -1);
}

void RequestMetrics::Finish(const absl::Status& status, const RequestContext& context,
                            size_t request_bytes, size_t response_bytes, int64_t examples) {
  if (metrics_ == nullptr) return;
  const absl::Duration took = absl::Now() - start_;
  const std::string code = absl::StatusCodeToString(status.code());
  const std::string model = context.version >= 0 ? context.model : model_;
  const std::string version = context.version >= 0 ? absl::StrCat(context.version) : "";
  const bool rest = protocol_ == Protocol::kRest;

  // TF Serving's families: REST labels the API with the URL verb ("predict").
  metrics_->request_count->Increment({model, code});
  if (status.ok()) {
    metrics_->request_latency->Observe(
        {model, rest ? absl::AsciiStrToLower(method_) : method_, rest ? "REST" : "GRPC"},
        absl::ToDoubleMicroseconds(took));
  }
  if (context.runtime > absl::ZeroDuration()) {
    metrics_->runtime_latency->Observe({model, method_, "TF1"},
                                       absl::ToDoubleMicroseconds(context.runtime));
    metrics_->runtime_duration->Observe({model, version, context.signature, method_},
                                        absl::ToDoubleSeconds(context.runtime));
  }
  if (examples >= 0) {
    metrics_->request_example_counts->Observe({model}, static_cast<double>(examples));
    metrics_->request_example_count_total->Increment({model}, examples);
  }

  const std::string protocol = rest ? "rest" : "grpc";
  metrics_->request_duration->Observe({model, version, context.signature, method_, protocol},
                                      absl::ToDoubleSeconds(took));
  metrics_->requests->Increment({model, version, context.signature, method_, protocol, code});
  metrics_->request_bytes->Observe({model, version, context.signature, method_},
                                   static_cast<double>(request_bytes));
  metrics_->response_bytes->Observe({model, version, context.signature, method_},
                                    static_cast<double>(response_bytes));
}

}  // namespace tensord
