#include "clients/tensorctl/bench_report.h"

#include <grpcpp/grpcpp.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/util/json.h"

namespace tensord {
namespace tensorctl {
namespace {

using ::testing::HasSubstr;

// `n` successful requests of 1..n ms over `seconds`.
LevelResult Result(int n, double seconds, bool stable = true) {
  LevelResult result;
  result.stable = stable;
  result.trials = stable ? 3 : 10;
  result.measured.duration_s = seconds;
  for (int i = 1; i <= n; ++i) result.measured.latencies_ns.push_back(i * 1000000LL);
  return result;
}

std::vector<LevelReport> ClosedLoop() {
  LevelReport one{{1, 0}, Result(100, 2), std::nullopt};
  LevelReport four{{4, 0}, Result(10, 0.5, /*stable=*/false), std::nullopt};
  four.result.measured.errors[grpc::StatusCode::UNAVAILABLE] = 2;
  four.result.measured.errors[grpc::StatusCode::DEADLINE_EXCEEDED] = 1;
  return {one, four};
}

TEST(BenchReportTest, Table) {
  EXPECT_EQ(ReportTable(ClosedLoop(), {}),
            "concurrency  requests  infer/s  p50 ms  p90 ms  p95 ms  p99 ms  avg ms  errors\n"
            "          1       100     50.0  50.000  90.000  95.000  99.000  50.500  0\n"
            "         4*        10     20.0   5.000   9.000  10.000  10.000   5.500  "
            "3 (DEADLINE_EXCEEDED 1, UNAVAILABLE 2)\n"
            "* not stable within --max_trials windows; the last 3 windows are shown\n");
}

TEST(BenchReportTest, TableWithBatchRateAndServer) {
  LevelReport report{{0, 250}, Result(4, 0.02), std::nullopt};
  report.result.measured.delayed = 1;
  ServerBreakdown server;
  server.requests = 4;
  server.request_ms = 1.25;
  server.compute_ms = 1;
  report.server = server;
  ReportOptions options;
  options.batch = 8;
  options.server = true;
  EXPECT_EQ(ReportTable({report}, options),
            "rate/s  requests  infer/s  rows/s  p50 ms  p90 ms  p95 ms  p99 ms  avg ms  delayed  "
            "server ms  compute ms  queue ms  errors\n"
            "   250         4    200.0  1600.0   2.000   4.000   4.000   4.000   2.500        1  "
            "    1.250       1.000         -  0\n");
}

TEST(BenchReportTest, Csv) {
  EXPECT_EQ(ReportCsv(ClosedLoop(), {}),
            "concurrency,request_rate,requests,errors,error_codes,duration_s,windows,stable,"
            "throughput_infer_per_s,throughput_rows_per_s,latency_avg_ms,latency_p50_ms,"
            "latency_p90_ms,latency_p95_ms,latency_p99_ms,latency_max_ms,delayed,"
            "server_requests,server_request_ms,server_compute_ms,server_queue_ms\n"
            "1,,100,0,,2,3,true,50,,50.5,50,90,95,99,100,,,,,\n"
            "4,,10,3,DEADLINE_EXCEEDED=1;UNAVAILABLE=2,0.5,10,false,20,,5.5,5,9,10,10,10,,,,,\n");
}

TEST(BenchReportTest, JsonHasEveryColumn) {
  LevelReport report{{0, 100.5}, Result(3, 0.03), std::nullopt};
  ServerBreakdown server;
  server.requests = 3;
  server.request_ms = 0.4444444;
  server.compute_ms = 0.25;
  server.queue_ms = 0.0;
  report.server = server;
  ReportOptions options;
  options.batch = 2;
  const std::string text = ReportJson({report}, options);
  absl::StatusOr<json::Value> parsed = json::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << text;
  ASSERT_TRUE(parsed->is_array());
  ASSERT_EQ(parsed->size(), 1u);
  const json::Value& row = parsed->items()[0];
  EXPECT_TRUE(row.Find("concurrency")->is_null());
  EXPECT_EQ(row.Find("request_rate")->number(), 100.5);
  EXPECT_EQ(row.Find("requests")->number(), 3);
  EXPECT_EQ(row.Find("errors")->number(), 0);
  EXPECT_TRUE(row.Find("error_codes")->is_object());
  EXPECT_EQ(row.Find("duration_s")->number(), 0.03);
  EXPECT_EQ(row.Find("windows")->number(), 3);
  EXPECT_TRUE(row.Find("stable")->bool_value());
  EXPECT_EQ(row.Find("throughput_infer_per_s")->number(), 100);
  EXPECT_EQ(row.Find("throughput_rows_per_s")->number(), 200);
  EXPECT_EQ(row.Find("latency_avg_ms")->number(), 2);
  EXPECT_EQ(row.Find("latency_p50_ms")->number(), 2);
  EXPECT_EQ(row.Find("latency_p99_ms")->number(), 3);
  EXPECT_EQ(row.Find("latency_max_ms")->number(), 3);
  EXPECT_EQ(row.Find("delayed")->number(), 0);
  EXPECT_EQ(row.Find("server_requests")->number(), 3);
  EXPECT_EQ(row.Find("server_request_ms")->number(), 0.444);
  EXPECT_EQ(row.Find("server_compute_ms")->number(), 0.25);
  EXPECT_EQ(row.Find("server_queue_ms")->number(), 0);
  EXPECT_EQ(row.keys().size(), 21u);

  // Without --metrics_url or --batch the columns stay, as null.
  parsed = json::Parse(ReportJson(ClosedLoop(), {}));
  ASSERT_TRUE(parsed.ok());
  const json::Value& closed = parsed->items()[1];
  EXPECT_EQ(closed.Find("concurrency")->number(), 4);
  EXPECT_TRUE(closed.Find("request_rate")->is_null());
  EXPECT_TRUE(closed.Find("throughput_rows_per_s")->is_null());
  EXPECT_TRUE(closed.Find("delayed")->is_null());
  EXPECT_TRUE(closed.Find("server_request_ms")->is_null());
  EXPECT_FALSE(closed.Find("stable")->bool_value());
  EXPECT_EQ(closed.Find("error_codes")->Find("UNAVAILABLE")->number(), 2);
  EXPECT_THAT(ReportJson({}, {}), HasSubstr("[]"));
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
