#include "server/metrics/serving_metrics.h"

#include <initializer_list>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tensord {
namespace {

std::vector<double> TfMicroseconds() { return ExponentialBuckets(10, 1.8, 33); }

// Decimal 1-2-5 steps read well on dashboards (le="0.005", not le="0.0051200").
std::vector<double> RequestSeconds() {
  return {0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05,
          0.1,    0.2,    0.5,    1,     2,     5,     10,   20,   50};
}

std::vector<double> LoadSeconds() {
  return {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500};
}

std::vector<double> SizeBytes() { return ExponentialBuckets(64, 4, 13); }

}  // namespace

ServingMetrics& ServingMetrics::Global() {
  static ServingMetrics* const metrics = new ServingMetrics(&MetricRegistry::Global());
  return *metrics;
}

void ServingMetrics::ForgetVersion(const std::string& model, int64_t version,
                                   const std::string& model_path) {
  const std::vector<std::pair<std::string, std::string>> of_version = {
      {"model", model}, {"version", absl::StrCat(version)}};
  for (metrics_internal::Family* f : std::initializer_list<metrics_internal::Family*>{
           request_duration, runtime_duration, request_bytes, response_bytes, requests,
           model_state, model_device_memory, batch_size, batch_rows, batch_padding_rows,
           batch_queue_duration, batch_queue_depth}) {
    f->RemoveMatching(of_version);
  }
  for (metrics_internal::Family* f : std::initializer_list<metrics_internal::Family*>{
           model_warmup_latency, model_warmup_records_read, load_attempt_count, load_latency}) {
    f->RemoveMatching({{"model_path", model_path}});
  }
}

ServingMetrics::ServingMetrics(MetricRegistry* r)
    : request_count(r->AddCounter(":tensorflow:serving:request_count",
                                  "Number of requests by model and final status.",
                                  {"model_name", "status"})),
      request_latency(r->AddHistogram(":tensorflow:serving:request_latency",
                                      "Latency of successful requests in microseconds.",
                                      {"model_name", "API", "entrypoint"}, TfMicroseconds())),
      runtime_latency(r->AddHistogram(":tensorflow:serving:runtime_latency",
                                      "Graph run time of requests in microseconds.",
                                      {"model_name", "API", "runtime"}, TfMicroseconds())),
      request_example_counts(r->AddHistogram(":tensorflow:serving:request_example_counts",
                                             "Examples per Classify/Regress request.", {"model"},
                                             ExponentialBuckets(1, 2, 15))),
      request_example_count_total(
          r->AddCounter(":tensorflow:serving:request_example_count_total",
                        "Total number of examples in Classify/Regress requests.", {"model"})),
      model_warmup_latency(r->AddHistogram(":tensorflow:serving:model_warmup_latency",
                                           "Model version warmup time in microseconds.",
                                           {"model_path", "status"}, TfMicroseconds())),
      model_warmup_records_read(r->AddCounter(":tensorflow:serving:model_warmup_records_read",
                                              "Number of warmup records replayed.",
                                              {"model_path", "status"})),
      load_attempt_count(r->AddCounter(":tensorflow:cc:saved_model:load_attempt_count",
                                       "SavedModel load attempts; status success or fail.",
                                       {"model_path", "status"})),
      load_latency(r->AddCounter(":tensorflow:cc:saved_model:load_latency",
                                 "Total SavedModel load time in microseconds.", {"model_path"})),
      request_duration(r->AddHistogram(
          "tensord_request_duration_seconds",
          "Time from receiving a request to sending its response, every outcome.",
          {"model", "version", "signature", "method", "protocol"}, RequestSeconds())),
      runtime_duration(
          r->AddHistogram("tensord_runtime_duration_seconds", "Graph execution time of a request.",
                          {"model", "version", "signature", "method"}, RequestSeconds())),
      request_bytes(r->AddHistogram("tensord_request_bytes", "Request body size.",
                                    {"model", "version", "signature", "method"}, SizeBytes())),
      response_bytes(r->AddHistogram("tensord_response_bytes", "Response body size.",
                                     {"model", "version", "signature", "method"}, SizeBytes())),
      requests_in_flight(r->AddGauge("tensord_requests_in_flight",
                                     "Requests received and not yet answered.",
                                     {"model", "method"})),
      requests(r->AddCounter("tensord_requests_total", "Requests by final status code.",
                             {"model", "version", "signature", "method", "protocol", "code"})),
      model_load_duration(r->AddHistogram("tensord_model_load_duration_seconds",
                                          "Time to load one model version.", {"model"},
                                          LoadSeconds())),
      model_loads(r->AddCounter("tensord_model_loads_total",
                                "Model version loads; status ok or error.", {"model", "status"})),
      model_state(r->AddGauge(
          "tensord_model_version_state",
          "ModelVersionStatus.State of each version: 10 START, 20 LOADING, 30 AVAILABLE, "
          "40 UNLOADING, 50 END.",
          {"model", "version"})),
      model_device_memory(r->AddGauge(
          "tensord_model_device_memory_bytes",
          "GPU memory an AVAILABLE version keeps between requests: its weights on the GPUs it "
          "runs on; 0 on the CPU.",
          {"model", "version"})),
      batching_queuing_latency(r->AddHistogram(
          ":tensorflow:serving:batching_session:queuing_latency",
          "Time requests wait in a batch queue, in microseconds.", {"thread_pool_name"},
          ExponentialBuckets(100, 1.2, 52))),
      batching_input_batch_size(r->AddHistogram(
          ":tensorflow:serving:batching_session:input_batch_size",
          "Dim-0 size of each request entering a batch queue.", {}, ExponentialBuckets(1, 2, 14))),
      batching_processed_batch_size(r->AddHistogram(
          ":tensorflow:serving:batching_session:processed_batch_size",
          "Executed batch size, padding included.", {}, ExponentialBuckets(1, 2, 14))),
      batching_padding_size(r->AddHistogram(":tensorflow:serving:batching_session:padding_size",
                                            "Padding rows added to reach an allowed batch size.",
                                            {"execution_batch_size"},
                                            ExponentialBuckets(1, 2, 14))),
      batching_wrapped_run_count(
          r->AddCounter(":tensorflow:serving:batching_session:wrapped_run_count",
                        "Runs of the model for merged batches.", {})),
      batch_size(r->AddHistogram("tensord_batch_size", "Executed batch size, padding included.",
                                 {"model", "version", "signature"}, ExponentialBuckets(1, 2, 14))),
      batch_rows(r->AddCounter("tensord_batch_rows_total",
                               "Request rows executed in merged batches.",
                               {"model", "version", "signature"})),
      batch_padding_rows(r->AddCounter(
          "tensord_batch_padding_rows_total",
          "Padding rows executed in merged batches (padding fraction = padding / (rows + "
          "padding)).",
          {"model", "version", "signature"})),
      batch_queue_duration(r->AddHistogram("tensord_batch_queue_duration_seconds",
                                           "Time a request waits in its batch queue.",
                                           {"model", "version", "signature"}, RequestSeconds())),
      batch_queue_depth(r->AddGauge("tensord_batch_queue_depth",
                                    "Requests waiting in a batch queue.",
                                    {"model", "version", "signature"})) {}

}  // namespace tensord
