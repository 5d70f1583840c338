#include "clients/tensorctl/bench_server_metrics.h"

#include <thread>

#include <httplib.h>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

using ::testing::HasSubstr;
using ::testing::DoubleNear;
using ::testing::Optional;

// Two versions and two methods of "mlp", another model, and the TF Serving family that must not
// be counted.
std::string Exposition(double scale, bool with_queue) {
  std::string text = absl::StrCat(
      "# TYPE tensord_request_duration_seconds histogram\n"
      "tensord_request_duration_seconds_bucket{model=\"mlp\",version=\"1\",signature=\"s\","
      "method=\"Predict\",protocol=\"grpc\",le=\"+Inf\"} ", 10 * scale, "\n"
      "tensord_request_duration_seconds_sum{model=\"mlp\",version=\"1\",signature=\"s\","
      "method=\"Predict\",protocol=\"grpc\"} ", 0.05 * scale, "\n"
      "tensord_request_duration_seconds_count{model=\"mlp\",version=\"1\",signature=\"s\","
      "method=\"Predict\",protocol=\"grpc\"} ", 10 * scale, "\n"
      "tensord_request_duration_seconds_sum{model=\"mlp\",version=\"2\",signature=\"s\","
      "method=\"Predict\",protocol=\"rest\"} ", 0.03 * scale, "\n"
      "tensord_request_duration_seconds_count{model=\"mlp\",version=\"2\",signature=\"s\","
      "method=\"Predict\",protocol=\"rest\"} ", 10 * scale, "\n"
      "tensord_request_duration_seconds_sum{model=\"other\",version=\"1\",signature=\"s\","
      "method=\"Predict\",protocol=\"grpc\"} 99\n"
      "tensord_request_duration_seconds_count{model=\"other\",version=\"1\",signature=\"s\","
      "method=\"Predict\",protocol=\"grpc\"} 99\n"
      "tensord_runtime_duration_seconds_sum{model=\"mlp\",version=\"1\",signature=\"s\","
      "method=\"Predict\"} ", 0.04 * scale, "\n"
      "tensord_runtime_duration_seconds_count{model=\"mlp\",version=\"1\",signature=\"s\","
      "method=\"Predict\"} ", 20 * scale, "\n"
      ":tensorflow:serving:request_latency_sum{model_name=\"mlp\",API=\"Predict\","
      "entrypoint=\"GRPC\"} 123456\n");
  if (with_queue) {
    absl::StrAppend(&text,
                    "tensord_batch_queue_duration_seconds_sum{model=\"mlp\",version=\"1\","
                    "signature=\"s\",method=\"Predict\"} ", 0.002 * scale, "\n"
                    "tensord_batch_queue_duration_seconds_count{model=\"mlp\",version=\"1\","
                    "signature=\"s\",method=\"Predict\"} ", 20 * scale, "\n");
  }
  return text;
}

TEST(BenchServerMetricsTest, SumsEverySeriesOfTheModel) {
  absl::StatusOr<ServerTimes> times = ServerTimesFromText(Exposition(1, true), "mlp");
  ASSERT_TRUE(times.ok()) << times.status();
  ASSERT_TRUE(times->request.has_value());
  EXPECT_DOUBLE_EQ(times->request->sum_s, 0.08);
  EXPECT_DOUBLE_EQ(times->request->count, 20);
  ASSERT_TRUE(times->runtime.has_value());
  EXPECT_DOUBLE_EQ(times->runtime->sum_s, 0.04);
  EXPECT_DOUBLE_EQ(times->runtime->count, 20);
  ASSERT_TRUE(times->queue.has_value());
  EXPECT_DOUBLE_EQ(times->queue->count, 20);

  times = ServerTimesFromText(Exposition(1, false), "mlp");
  ASSERT_TRUE(times.ok()) << times.status();
  EXPECT_FALSE(times->queue.has_value());

  times = ServerTimesFromText(Exposition(1, true), "absent");
  ASSERT_TRUE(times.ok()) << times.status();
  EXPECT_FALSE(times->request.has_value());
  EXPECT_FALSE(times->runtime.has_value());

  EXPECT_FALSE(ServerTimesFromText("bad line here\n", "mlp").ok());
}

TEST(BenchServerMetricsTest, BreakdownIsPerRequestDeltas) {
  // Between scale 1 and 3: 40 requests taking 0.16 s in all, 40 runs taking 0.08 s, 40 queue
  // waits taking 0.004 s.
  ServerTimes before = *ServerTimesFromText(Exposition(1, true), "mlp");
  ServerTimes after = *ServerTimesFromText(Exposition(3, true), "mlp");
  ServerBreakdown b = Breakdown(before, after);
  EXPECT_DOUBLE_EQ(b.requests, 40);
  EXPECT_THAT(b.request_ms, Optional(DoubleNear(4, 1e-9)));
  EXPECT_THAT(b.compute_ms, Optional(DoubleNear(2, 1e-9)));
  EXPECT_THAT(b.queue_ms, Optional(DoubleNear(0.1, 1e-9)));

  // No batching: the queue time is absent, not zero.
  b = Breakdown(*ServerTimesFromText(Exposition(1, false), "mlp"),
                *ServerTimesFromText(Exposition(3, false), "mlp"));
  EXPECT_FALSE(b.queue_ms.has_value());
  EXPECT_TRUE(b.compute_ms.has_value());

  // No request in between: nothing to divide.
  b = Breakdown(before, before);
  EXPECT_EQ(b.requests, 0);
  EXPECT_FALSE(b.request_ms.has_value());
  EXPECT_FALSE(b.compute_ms.has_value());

  // The model's first requests: no series before.
  b = Breakdown(ServerTimes(), after);
  EXPECT_EQ(b.requests, 0);
  EXPECT_FALSE(b.request_ms.has_value());
}

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/monitoring/prometheus/metrics",
                [](const httplib::Request&, httplib::Response& reply) {
                  reply.set_content(Exposition(2, false), "text/plain; version=0.0.4");
                });
    server_.Get("/bad", [](const httplib::Request&, httplib::Response& reply) {
      reply.set_content("{not metrics", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    // The socket listens from bind_to_any_port on, so requests queue until the loop runs.
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  // Every test has had a reply by then, so the loop runs and stop() ends it.
  void TearDown() override {
    server_.stop();
    thread_.join();
  }
  std::string Url(const std::string& path) {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST_F(MetricsServerTest, Scrapes) {
  absl::StatusOr<ServerTimes> times =
      ScrapeServerTimes(Url("/monitoring/prometheus/metrics"), "mlp", 5000);
  ASSERT_TRUE(times.ok()) << times.status();
  ASSERT_TRUE(times->request.has_value());
  EXPECT_DOUBLE_EQ(times->request->count, 40);
  EXPECT_FALSE(times->queue.has_value());
}

TEST_F(MetricsServerTest, Errors) {
  absl::StatusOr<ServerTimes> times = ScrapeServerTimes(Url("/missing"), "mlp", 5000);
  EXPECT_EQ(times.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(times.status().message(), HasSubstr("HTTP status 404"));

  times = ScrapeServerTimes(Url("/bad"), "mlp", 5000);
  EXPECT_EQ(times.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(times.status().message(), HasSubstr("/bad: line 1 of the metrics text"));

  // Port 1 (tcpmux) has no listener on a test machine.
  times = ScrapeServerTimes("http://127.0.0.1:1/metrics", "mlp", 2000);
  EXPECT_EQ(times.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(times.status().message(), HasSubstr("scraping http://127.0.0.1:1/metrics failed"));

  times = ScrapeServerTimes("ftp://host/metrics", "mlp", 2000);
  EXPECT_EQ(times.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
