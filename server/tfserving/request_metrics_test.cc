#include "server/tfserving/request_metrics.h"

#include <gtest/gtest.h>

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
    RequestMetrics request(&metrics, "Classify", Protocol::kRest, "m");
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
  {
    RequestMetrics request(&metrics, "Predict", Protocol::kGrpc, "nope");
    request.Finish(absl::NotFoundError("no such model"), unresolved, 10, 0);
  }
  EXPECT_EQ(metrics.request_count->Value({"nope", "NOT_FOUND"}), 1);
  EXPECT_EQ(metrics.request_latency->Count({"nope", "Predict", "GRPC"}), 0);
  EXPECT_EQ(metrics.runtime_latency->Count({"nope", "Predict", "TF1"}), 0);
  EXPECT_EQ(metrics.requests->Value({"nope", "", "", "Predict", "grpc", "NOT_FOUND"}), 1);
  EXPECT_EQ(metrics.request_duration->Count({"nope", "", "", "Predict", "grpc"}), 1);
}

TEST(RequestMetricsTest, NullMetricsRecordNothing) {
  RequestMetrics request(nullptr, "Predict", Protocol::kGrpc, "m");
  request.Finish(absl::OkStatus(), RequestContext(), 1, 1);
}

}  // namespace
}  // namespace tensord
