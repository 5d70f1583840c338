#include "server/tfserving/request_metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace tensord {
namespace {

TEST(RequestMetricsTest, RecordsTfServingAndOwnFamilies) {
  MetricRegistry registry;
  ServingMetrics metrics(&registry);
  RequestContext context;
  context.model = "m";
  context.version = 3;
  context.signature = "serving_default";
  context.runtime = absl::Milliseconds(2);
  {
    RequestMetrics request(&metrics, "Classify", Protocol::kRest, "m", /*manager=*/nullptr);
    EXPECT_EQ(metrics.requests_in_flight->Value({"m", "Classify"}), 1);
    request.Finish(absl::OkStatus(), context, 100, 40, /*examples=*/5);
  }
  EXPECT_EQ(metrics.requests_in_flight->Value({"m", "Classify"}), 0);
  EXPECT_EQ(metrics.request_count->Value({"m", "OK"}), 1);
  EXPECT_EQ(metrics.request_latency->Count({"m", "classify", "REST"}), 1);
  EXPECT_EQ(metrics.runtime_latency->Count({"m", "Classify", "TF1"}), 1);
  EXPECT_DOUBLE_EQ(metrics.runtime_latency->Sum({"m", "Classify", "TF1"}), 2000);
  EXPECT_EQ(metrics.request_example_count_total->Value({"m"}), 5);
  EXPECT_EQ(metrics.requests->Value({"m", "3", "serving_default", "Classify", "rest", "OK"}), 1);
  EXPECT_DOUBLE_EQ(metrics.request_bytes->Sum({"m", "3", "serving_default", "Classify"}), 100);
  EXPECT_DOUBLE_EQ(metrics.response_bytes->Sum({"m", "3", "serving_default", "Classify"}), 40);
}

TEST(RequestMetricsTest, FailuresCountButHaveNoTfLatency) {
  MetricRegistry registry;
  ServingMetrics metrics(&registry);
  RequestContext unresolved;  // the lookup failed: no version, no runtime
  unresolved.model = "nope";
  {
    RequestMetrics request(&metrics, "Predict", Protocol::kGrpc, "nope", nullptr);
    request.Finish(absl::NotFoundError("no such model"), unresolved, 10, 0);
  }
  EXPECT_EQ(metrics.request_count->Value({"nope", "NOT_FOUND"}), 1);
  EXPECT_EQ(metrics.request_latency->Count({"nope", "Predict", "GRPC"}), 0);
  EXPECT_EQ(metrics.runtime_latency->Count({"nope", "Predict", "TF1"}), 0);
  EXPECT_EQ(metrics.requests->Value({"nope", "", "", "Predict", "grpc", "NOT_FOUND"}), 1);
  EXPECT_EQ(metrics.request_duration->Count({"nope", "", "", "Predict", "grpc"}), 1);
}

// Regression: every unknown name a client sent added series for good.
TEST(RequestMetricsTest, UnknownModelsShareOneLabel) {
  MetricRegistry registry;
  ServingMetrics metrics(&registry);
  ModelManager manager;  // has no models
  for (int i = 0; i < 100; ++i) {
    const std::string name = "probe" + std::to_string(i);
    RequestContext unresolved;
    unresolved.model = name;
    RequestMetrics request(&metrics, "Predict", Protocol::kGrpc, name, &manager);
    EXPECT_EQ(metrics.requests_in_flight->Value({kUnknownModelLabel, "Predict"}), 1);
    request.Finish(absl::NotFoundError("no such model"), unresolved, 10, 0);
  }
  EXPECT_EQ(metrics.request_count->Value({kUnknownModelLabel, "NOT_FOUND"}), 100);
  EXPECT_EQ(metrics.request_count->Value({"probe7", "NOT_FOUND"}), 0);
  EXPECT_EQ(registry.ExportPrometheus().find("probe"), std::string::npos);
}

TEST(RequestMetricsTest, NullMetricsRecordNothing) {
  RequestMetrics request(nullptr, "Predict", Protocol::kGrpc, "m", nullptr);
  request.Finish(absl::OkStatus(), RequestContext(), 1, 1);
}

}  // namespace
}  // namespace tensord
