// The catalogue of the daemon's metrics, registered on one MetricRegistry.
//
// Two groups:
// * TF Serving's own families, under TF Serving's names, labels and microsecond buckets, so that
//   dashboards and alerts built for tensorflow_model_server keep working. Their names break
//   Prometheus naming conventions (colons, counters without `_total`); that is deliberate.
// * tensord's own families (`tensord_*`), named by Prometheus conventions (base units seconds and
//   bytes, `_total` on counters) and with the labels TF Serving users asked for: version,
//   signature, method, protocol.
//
// Buckets: TF's microsecond histograms use exp(10, 1.8, 33) (10 us .. ~24.6 min); tensord's
// request and runtime durations 1-2-5 steps from 100 us to 50 s; model loads 1-2-5 steps from
// 10 ms to 500 s; sizes powers of 4 from 64 B to 1 GiB.
//
// Label values that are codes (status, code) are canonical code names such as `OK` or
// `NOT_FOUND`; `method` is the API method (`Predict`, `Classify`, `Regress`, `MultiInference`,
// `GetModelMetadata`, ...); `protocol` is `grpc` or `rest`.
//
// Ownership and thread safety: the families are owned by the registry passed in and live as
// long as it; the pointers are set once in the constructor and never change, so they may be
// read from any thread. Global() is never destroyed.
#ifndef TENSORD_SERVER_METRICS_SERVING_METRICS_H_
#define TENSORD_SERVER_METRICS_SERVING_METRICS_H_

#include <cstdint>
#include <string>

#include "server/metrics/metrics.h"

namespace tensord {

struct ServingMetrics {
  // On MetricRegistry::Global().
  static ServingMetrics& Global();
  explicit ServingMetrics(MetricRegistry* registry);

  // Drops every series of one model version, called once the version is unloaded: tensord's
  // families labelled {model, version} and TF's labelled with the version's `model_path`. The
  // label sets then stay bounded by the versions loaded, however many are pushed over time.
  void ForgetVersion(const std::string& model, int64_t version, const std::string& model_path);

  // --- TF Serving compatible ---
  // :tensorflow:serving:request_count {model_name, status}: requests by final status.
  Counter* request_count;
  // :tensorflow:serving:request_latency {model_name, API, entrypoint}: successful request time in
  // microseconds; entrypoint GRPC or REST.
  Histogram* request_latency;
  // :tensorflow:serving:runtime_latency {model_name, API, runtime}: graph run time in
  // microseconds; runtime TF1 (what TF Serving reports for Session::Run).
  Histogram* runtime_latency;
  // :tensorflow:serving:request_example_counts {model}: examples per Classify/Regress request,
  // exp(1, 2, 15).
  Histogram* request_example_counts;
  // :tensorflow:serving:request_example_count_total {model}: examples in Classify/Regress
  // requests.
  Counter* request_example_count_total;
  // :tensorflow:serving:model_warmup_latency {model_path, status}: warmup time per model version
  // in microseconds.
  Histogram* model_warmup_latency;
  // :tensorflow:serving:model_warmup_records_read {model_path, status}: warmup records replayed.
  Counter* model_warmup_records_read;
  // :tensorflow:cc:saved_model:load_attempt_count {model_path, status}: SavedModel loads; status
  // success or fail.
  Counter* load_attempt_count;
  // :tensorflow:cc:saved_model:load_latency {model_path}: total SavedModel load time in
  // microseconds (a counter, as in TF).
  Counter* load_latency;

  // --- tensord's own ---
  // tensord_request_duration_seconds {model, version, signature, method, protocol}: time from
  // receiving a request to its response, every outcome.
  Histogram* request_duration;
  // tensord_runtime_duration_seconds {model, version, signature, method}: graph execution time
  // of a request.
  Histogram* runtime_duration;
  // tensord_request_bytes {model, version, signature, method}: request body size.
  Histogram* request_bytes;
  // tensord_response_bytes {model, version, signature, method}: response body size.
  Histogram* response_bytes;
  // tensord_requests_in_flight {model, method}: requests received and not yet answered.
  Gauge* requests_in_flight;
  // tensord_requests_total {model, version, signature, method, protocol, code}: requests by
  // final status code.
  Counter* requests;
  // tensord_model_load_duration_seconds {model}: time to load one model version.
  Histogram* model_load_duration;
  // tensord_model_loads_total {model, status}: model version loads; status ok or error.
  Counter* model_loads;
  // tensord_model_version_state {model, version}: ModelVersionStatus.State number of each
  // version (10 START, 20 LOADING, 30 AVAILABLE, 40 UNLOADING, 50 END).
  Gauge* model_state;
  // tensord_model_device_memory_bytes {model, version}: GPU memory an AVAILABLE version keeps
  // between requests (its weights on the GPUs it runs on); 0 on the CPU.
  Gauge* model_device_memory;

  // --- Request batching ---
  // TF Serving's batching_session families (queuing_latency µs {thread_pool_name},
  // input_batch_size, processed_batch_size, padding_size {execution_batch_size},
  // wrapped_run_count).
  Histogram* batching_queuing_latency;
  Histogram* batching_input_batch_size;
  Histogram* batching_processed_batch_size;
  Histogram* batching_padding_size;
  Counter* batching_wrapped_run_count;
  // tensord_batch_size {model, version, signature}: executed batch size, padding included.
  Histogram* batch_size;
  // tensord_batch_rows_total / tensord_batch_padding_rows_total {model, version, signature}:
  // request rows and padding rows executed in merged batches.
  Counter* batch_rows;
  Counter* batch_padding_rows;
  // tensord_batch_queue_duration_seconds {model, version, signature}: time in the queue.
  Histogram* batch_queue_duration;
  // tensord_batch_queue_depth {model, version, signature}: requests waiting.
  Gauge* batch_queue_depth;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_METRICS_SERVING_METRICS_H_
