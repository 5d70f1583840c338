#include "server/metrics/serving_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace tensord {
namespace {

using ::testing::Contains;
using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

struct Expected {
  const metrics_internal::Family* family;
  std::string name;
  std::string type;
  std::vector<std::string> labels;
};

TEST(ServingMetricsTest, NamesTypesAndLabels) {
  MetricRegistry registry;
  ServingMetrics m(&registry);
  const std::vector<Expected> expected = {
      {m.request_count, ":tensorflow:serving:request_count", "counter", {"model_name", "status"}},
      {m.request_latency,
       ":tensorflow:serving:request_latency",
       "histogram",
       {"model_name", "API", "entrypoint"}},
      {m.runtime_latency,
       ":tensorflow:serving:runtime_latency",
       "histogram",
       {"model_name", "API", "runtime"}},
      {m.request_example_counts,
       ":tensorflow:serving:request_example_counts",
       "histogram",
       {"model"}},
      {m.request_example_count_total,
       ":tensorflow:serving:request_example_count_total",
       "counter",
       {"model"}},
      {m.model_warmup_latency,
       ":tensorflow:serving:model_warmup_latency",
       "histogram",
       {"model_path", "status"}},
      {m.model_warmup_records_read,
       ":tensorflow:serving:model_warmup_records_read",
       "counter",
       {"model_path", "status"}},
      {m.load_attempt_count,
       ":tensorflow:cc:saved_model:load_attempt_count",
       "counter",
       {"model_path", "status"}},
      {m.load_latency, ":tensorflow:cc:saved_model:load_latency", "counter", {"model_path"}},
      {m.request_duration,
       "tensord_request_duration_seconds",
       "histogram",
       {"model", "version", "signature", "method", "protocol"}},
      {m.runtime_duration,
       "tensord_runtime_duration_seconds",
       "histogram",
       {"model", "version", "signature", "method"}},
      {m.request_bytes,
       "tensord_request_bytes",
       "histogram",
       {"model", "version", "signature", "method"}},
      {m.response_bytes,
       "tensord_response_bytes",
       "histogram",
       {"model", "version", "signature", "method"}},
      {m.requests_in_flight, "tensord_requests_in_flight", "gauge", {"model", "method"}},
      {m.requests,
       "tensord_requests_total",
       "counter",
       {"model", "version", "signature", "method", "protocol", "code"}},
      {m.model_load_duration, "tensord_model_load_duration_seconds", "histogram", {"model"}},
      {m.model_loads, "tensord_model_loads_total", "counter", {"model", "status"}},
      {m.model_state, "tensord_model_version_state", "gauge", {"model", "version"}},
      {m.model_device_memory, "tensord_model_device_memory_bytes", "gauge", {"model", "version"}},
      {m.batching_queuing_latency,
       ":tensorflow:serving:batching_session:queuing_latency",
       "histogram",
       {"thread_pool_name"}},
      {m.batching_input_batch_size,
       ":tensorflow:serving:batching_session:input_batch_size",
       "histogram",
       {}},
      {m.batching_processed_batch_size,
       ":tensorflow:serving:batching_session:processed_batch_size",
       "histogram",
       {}},
      {m.batching_padding_size,
       ":tensorflow:serving:batching_session:padding_size",
       "histogram",
       {"execution_batch_size"}},
      {m.batching_wrapped_run_count,
       ":tensorflow:serving:batching_session:wrapped_run_count",
       "counter",
       {}},
      {m.batch_size, "tensord_batch_size", "histogram", {"model", "version", "signature"}},
      {m.batch_rows, "tensord_batch_rows_total", "counter", {"model", "version", "signature"}},
      {m.batch_padding_rows,
       "tensord_batch_padding_rows_total",
       "counter",
       {"model", "version", "signature"}},
      {m.batch_queue_duration,
       "tensord_batch_queue_duration_seconds",
       "histogram",
       {"model", "version", "signature"}},
      {m.batch_queue_depth, "tensord_batch_queue_depth", "gauge", {"model", "version", "signature"}},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.name);
    ASSERT_NE(e.family, nullptr);
    EXPECT_EQ(e.family->name(), e.name);
    EXPECT_EQ(e.family->type(), e.type);
    EXPECT_EQ(e.family->label_names(), e.labels);
    EXPECT_FALSE(e.family->help().empty());
  }
  // Every family is in the table, in registration order.
  std::vector<std::string> type_lines;
  for (absl::string_view line : absl::StrSplit(registry.ExportPrometheus(), '\n')) {
    if (absl::StartsWith(line, "# TYPE ")) type_lines.emplace_back(line);
  }
  std::vector<std::string> expected_type_lines;
  for (const Expected& e : expected)
    expected_type_lines.push_back("# TYPE " + e.name + " " + e.type);
  EXPECT_THAT(type_lines, ElementsAreArray(expected_type_lines));
}

TEST(ServingMetricsTest, Buckets) {
  MetricRegistry registry;
  ServingMetrics m(&registry);
  for (const Histogram* h : {m.request_latency, m.runtime_latency, m.model_warmup_latency}) {
    EXPECT_EQ(h->bucket_limits(), ExponentialBuckets(10, 1.8, 33)) << h->name();
  }
  const std::vector<double>& examples = m.request_example_counts->bucket_limits();
  ASSERT_EQ(examples.size(), 15u);
  EXPECT_EQ(examples.front(), 1);
  EXPECT_EQ(examples.back(), 16384);
  for (const Histogram* h : {m.request_duration, m.runtime_duration}) {
    ASSERT_EQ(h->bucket_limits().size(), 18u) << h->name();
    EXPECT_THAT(h->bucket_limits().front(), DoubleEq(0.0001));
    EXPECT_EQ(h->bucket_limits().back(), 50);
  }
  for (const Histogram* h : {m.request_bytes, m.response_bytes}) {
    ASSERT_EQ(h->bucket_limits().size(), 13u) << h->name();
    EXPECT_EQ(h->bucket_limits().front(), 64);
    EXPECT_EQ(h->bucket_limits()[1], 256);
    EXPECT_EQ(h->bucket_limits().back(), 1024.0 * 1024 * 1024);
  }
  EXPECT_THAT(m.model_load_duration->bucket_limits().front(), DoubleEq(0.01));
  EXPECT_EQ(m.model_load_duration->bucket_limits().back(), 500);
}

TEST(ServingMetricsTest, SecondCatalogueOnTheSameRegistrySharesTheFamilies) {
  MetricRegistry registry;
  ServingMetrics a(&registry);
  ServingMetrics b(&registry);
  EXPECT_EQ(a.request_count, b.request_count);
  EXPECT_EQ(a.model_state, b.model_state);
}

TEST(ServingMetricsTest, GlobalIsOnTheGlobalRegistry) {
  ServingMetrics& global = ServingMetrics::Global();
  EXPECT_EQ(&global, &ServingMetrics::Global());
  global.request_count->Increment({"global_test_model", "OK"});
  std::vector<std::string> lines =
      absl::StrSplit(MetricRegistry::Global().ExportPrometheus(), '\n');
  EXPECT_THAT(lines, Contains(":tensorflow:serving:request_count{model_name=\"global_test_model\","
                              "status=\"OK\"} 1"));
}

// The lines of TF Serving's issue #1959, produced through the catalogue.
TEST(ServingMetricsTest, TfServingLines) {
  MetricRegistry registry;
  ServingMetrics m(&registry);
  m.request_count->Increment({"test_model", "OK"}, 6);
  m.request_latency->Observe({"test_model", "predict", "REST"}, 250);
  m.runtime_latency->Observe({"test_model", "Predict", "TF1"}, 40);
  std::vector<std::string> lines = absl::StrSplit(registry.ExportPrometheus(), '\n');
  EXPECT_THAT(
      lines,
      Contains(":tensorflow:serving:request_count{model_name=\"test_model\",status=\"OK\"} 6"));
  EXPECT_THAT(lines,
              Contains(":tensorflow:serving:request_latency_bucket{model_name=\"test_model\","
                       "API=\"predict\",entrypoint=\"REST\",le=\"10\"} 0"));
  EXPECT_THAT(lines,
              Contains(":tensorflow:serving:runtime_latency_bucket{model_name=\"test_model\","
                       "API=\"Predict\",runtime=\"TF1\",le=\"18\"} 0"));
}

TEST(ServingMetricsTest, ModelStateSeriesCanBeDropped) {
  MetricRegistry registry;
  ServingMetrics m(&registry);
  m.model_state->Set({"m", "1"}, 30);
  m.model_state->Set({"m", "2"}, 30);
  m.model_state->Set({"m", "1"}, 50);
  m.model_state->Remove({"m", "1"});
  std::vector<std::string> state_lines;
  for (absl::string_view line : absl::StrSplit(registry.ExportPrometheus(), '\n')) {
    if (absl::StartsWith(line, "tensord_model_version_state{")) state_lines.emplace_back(line);
  }
  EXPECT_THAT(state_lines,
              ElementsAre("tensord_model_version_state{model=\"m\",version=\"2\"} 30"));
}

}  // namespace
}  // namespace tensord
