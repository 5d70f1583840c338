#include "server/metrics/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"

namespace tensord {
namespace {

using ::testing::Contains;
using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

TEST(ExponentialBucketsTest, ScaleTimesGrowthToTheI) {
  EXPECT_THAT(ExponentialBuckets(1, 2, 4), ElementsAre(1, 2, 4, 8));
  const std::vector<double> tf = ExponentialBuckets(10, 1.8, 33);
  ASSERT_EQ(tf.size(), 33u);
  EXPECT_EQ(tf[0], 10);
  EXPECT_THAT(tf[1], DoubleEq(18));
  EXPECT_THAT(tf[2], DoubleEq(32.4));
  EXPECT_NEAR(tf[32], 1.47476e9, 1e4);
}

TEST(ExponentialBucketsDeathTest, RejectsBadArguments) {
  EXPECT_DEATH(ExponentialBuckets(0, 2, 3), "scale > 0");
  EXPECT_DEATH(ExponentialBuckets(1, 1, 3), "growth > 1");
  EXPECT_DEATH(ExponentialBuckets(1, 2, 0), "count >= 1");
}

TEST(CounterTest, CountsPerSeries) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("requests_total", "Requests.", {"model", "code"});
  EXPECT_EQ(c->Value({"m", "OK"}), 0);
  c->Increment({"m", "OK"});
  c->Increment({"m", "OK"}, 4);
  c->Increment({"m", "NOT_FOUND"});
  c->Increment({"m", "ABORTED"}, 0);
  EXPECT_EQ(c->Value({"m", "OK"}), 5);
  EXPECT_EQ(c->Value({"m", "NOT_FOUND"}), 1);
  EXPECT_EQ(c->Value({"other", "OK"}), 0);
  // An increment of 0 still creates the series, so it is exported as 0.
  EXPECT_THAT(Lines(registry.ExportPrometheus()),
              Contains("requests_total{model=\"m\",code=\"ABORTED\"} 0"));
}

TEST(GaugeTest, SetAddRemove) {
  MetricRegistry registry;
  Gauge* g = registry.AddGauge("state", "State.", {"model", "version"});
  EXPECT_EQ(g->Value({"m", "1"}), 0);
  g->Add({"m", "1"}, 2.5);
  g->Add({"m", "1"}, -1);
  EXPECT_EQ(g->Value({"m", "1"}), 1.5);
  g->Set({"m", "2"}, 30);
  g->Set({"m", "2"}, 50);
  EXPECT_EQ(g->Value({"m", "2"}), 50);
  g->Remove({"m", "1"});
  g->Remove({"m", "never"});
  EXPECT_EQ(g->Value({"m", "1"}), 0);
  EXPECT_EQ(registry.ExportPrometheus(),
            "# HELP state State.\n"
            "# TYPE state gauge\n"
            "state{model=\"m\",version=\"2\"} 50\n");
}

TEST(FamilyTest, RemoveMatchingDropsTheSeriesWithAllTheGivenValues) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("calls_total", "Calls.", {"model", "version", "code"});
  Histogram* h = registry.AddHistogram("latency", "Latency.", {"model", "version"}, {1});
  Gauge* g = registry.AddGauge("depth", "Depth.", {"model"});
  c->Increment({"m", "1", "OK"});
  c->Increment({"m", "1", "ABORTED"});
  c->Increment({"m", "2", "OK"});
  c->Increment({"n", "1", "OK"});
  h->Observe({"m", "1"}, 0.5);
  h->Observe({"m", "2"}, 0.5);
  g->Set({"m"}, 3);
  for (metrics_internal::Family* f : {static_cast<metrics_internal::Family*>(c),
                                      static_cast<metrics_internal::Family*>(h),
                                      static_cast<metrics_internal::Family*>(g)}) {
    f->RemoveMatching({{"model", "m"}, {"version", "1"}});
  }
  EXPECT_EQ(c->Value({"m", "1", "OK"}), 0);
  EXPECT_EQ(c->Value({"m", "1", "ABORTED"}), 0);
  EXPECT_EQ(c->Value({"m", "2", "OK"}), 1);
  EXPECT_EQ(c->Value({"n", "1", "OK"}), 1);
  EXPECT_EQ(h->Count({"m", "1"}), 0);
  EXPECT_EQ(h->Count({"m", "2"}), 1);
  EXPECT_EQ(g->Value({"m"}), 3);  // no version label: untouched
  const std::string text = registry.ExportPrometheus();
  EXPECT_EQ(text.find("model=\"m\",version=\"1\""), std::string::npos) << text;
}

TEST(GaugeTest, PrintsShortestRoundTripDoubles) {
  MetricRegistry registry;
  Gauge* g = registry.AddGauge("g", "G.", {"k"});
  g->Set({"a"}, 3);
  g->Set({"b"}, 0.1);
  g->Set({"c"}, 1e-7);
  g->Set({"d"}, -2.5);
  g->Set({"e"}, 1e20);
  g->Set({"f"}, 123456789);
  g->Set({"g"}, std::numeric_limits<double>::quiet_NaN());
  g->Set({"h"}, std::numeric_limits<double>::infinity());
  g->Set({"i"}, -std::numeric_limits<double>::infinity());
  g->Set({"j"}, 1.0 / 3);
  EXPECT_THAT(Lines(registry.ExportPrometheus()),
              ElementsAre("# HELP g G.", "# TYPE g gauge", "g{k=\"a\"} 3", "g{k=\"b\"} 0.1",
                          "g{k=\"c\"} 1e-07", "g{k=\"d\"} -2.5", "g{k=\"e\"} 1e+20",
                          "g{k=\"f\"} 123456789", "g{k=\"g\"} NaN", "g{k=\"h\"} +Inf",
                          "g{k=\"i\"} -Inf", "g{k=\"j\"} 0.3333333333333333"));
}

// A value equal to a limit is counted in that limit's bucket (Prometheus `le`), not the next.
TEST(HistogramTest, BucketBoundariesAreInclusive) {
  MetricRegistry registry;
  Histogram* h = registry.AddHistogram("h", "H.", {}, {1, 2, 4});
  const double just_above_1 = std::nextafter(1.0, 2.0);
  const double just_above_4 = std::nextafter(4.0, 5.0);
  for (double v : {0.5, 1.0, just_above_1, 2.0, 4.0, just_above_4, -3.0}) h->Observe({}, v);
  EXPECT_EQ(h->Count({}), 7);
  EXPECT_DOUBLE_EQ(h->Sum({}), 0.5 + 1 + just_above_1 + 2 + 4 + just_above_4 - 3);
  EXPECT_THAT(Lines(registry.ExportPrometheus()),
              ElementsAre("# HELP h H.", "# TYPE h histogram", "h_bucket{le=\"1\"} 3",
                          "h_bucket{le=\"2\"} 5", "h_bucket{le=\"4\"} 6", "h_bucket{le=\"+Inf\"} 7",
                          StartsWith("h_sum 9.5"), "h_count 7"));
}

TEST(HistogramTest, NanAndInfinityGoToTheInfBucket) {
  MetricRegistry registry;
  Histogram* h = registry.AddHistogram("h", "H.", {"k"}, {1});
  h->Observe({"x"}, std::numeric_limits<double>::quiet_NaN());
  h->Observe({"y"}, std::numeric_limits<double>::infinity());
  EXPECT_THAT(
      Lines(registry.ExportPrometheus()),
      ElementsAre("# HELP h H.", "# TYPE h histogram", "h_bucket{k=\"x\",le=\"1\"} 0",
                  "h_bucket{k=\"x\",le=\"+Inf\"} 1", "h_sum{k=\"x\"} NaN", "h_count{k=\"x\"} 1",
                  "h_bucket{k=\"y\",le=\"1\"} 0", "h_bucket{k=\"y\",le=\"+Inf\"} 1",
                  "h_sum{k=\"y\"} +Inf", "h_count{k=\"y\"} 1"));
}

TEST(HistogramTest, CountAndSumOfMissingSeriesAreZero) {
  MetricRegistry registry;
  Histogram* h = registry.AddHistogram("h", "H.", {"k"}, {1});
  EXPECT_EQ(h->Count({"x"}), 0);
  EXPECT_EQ(h->Sum({"x"}), 0);
}

TEST(HistogramTest, LeIsTfsSixDigitFormExceptWholeNumbers) {
  MetricRegistry registry;
  registry.AddHistogram("tf", "TF.", {}, ExponentialBuckets(10, 1.8, 33))->Observe({}, 1);
  registry.AddHistogram("bytes", "B.", {}, ExponentialBuckets(64, 4, 13))->Observe({}, 1);
  registry.AddHistogram("seconds", "S.", {}, {1e-7, 0.0001, 0.0002, 0.5})->Observe({}, 1);
  const std::vector<std::string> lines = Lines(registry.ExportPrometheus());
  for (const char* le : {"10", "18", "32.4", "58.32", "104.976", "188.957", "1983.59", "121440",
                         "708235", "1.27482e+06", "1.47476e+09"}) {
    EXPECT_THAT(lines, Contains(std::string("tf_bucket{le=\"") + le + "\"} 1")) << le;
  }
  EXPECT_THAT(lines, Contains("bytes_bucket{le=\"64\"} 1"));
  EXPECT_THAT(lines, Contains("bytes_bucket{le=\"1048576\"} 1"));
  EXPECT_THAT(lines, Contains("bytes_bucket{le=\"1073741824\"} 1"));
  EXPECT_THAT(lines, Contains("seconds_bucket{le=\"0.0001\"} 0"));
  EXPECT_THAT(lines, Contains("seconds_bucket{le=\"0.0002\"} 0"));
}

TEST(HistogramDeathTest, LimitsMustBeFiniteAndIncreasing) {
  MetricRegistry registry;
  EXPECT_DEATH(registry.AddHistogram("h", "H.", {}, {1, 1}), "strictly increasing");
  EXPECT_DEATH(registry.AddHistogram("h", "H.", {}, {2, 1}), "strictly increasing");
  EXPECT_DEATH(registry.AddHistogram("h", "H.", {}, {1, std::numeric_limits<double>::infinity()}),
               "finite");
  EXPECT_DEATH(registry.AddHistogram("h", "H.", {"le"}, {1}), "\"le\"");
}

// The line forms TF Serving prints (issue #1959), which dashboards match on.
TEST(ExpositionTest, TfServingLineForms) {
  MetricRegistry registry;
  Counter* count = registry.AddCounter(":tensorflow:serving:request_count", "Requests.",
                                       {"model_name", "status"});
  Histogram* latency =
      registry.AddHistogram(":tensorflow:serving:request_latency", "Latency.",
                            {"model_name", "API", "entrypoint"}, ExponentialBuckets(10, 1.8, 33));
  Histogram* runtime =
      registry.AddHistogram(":tensorflow:serving:runtime_latency", "Runtime.",
                            {"model_name", "API", "runtime"}, ExponentialBuckets(10, 1.8, 33));
  count->Increment({"test_model", "OK"}, 6);
  latency->Observe({"test_model", "predict", "REST"}, 150);
  runtime->Observe({"test_model", "Predict", "TF1"}, 20);
  const std::vector<std::string> lines = Lines(registry.ExportPrometheus());
  EXPECT_THAT(
      lines,
      Contains(":tensorflow:serving:request_count{model_name=\"test_model\",status=\"OK\"} 6"));
  EXPECT_THAT(lines,
              Contains(":tensorflow:serving:request_latency_bucket{model_name=\"test_model\","
                       "API=\"predict\",entrypoint=\"REST\",le=\"10\"} 0"));
  EXPECT_THAT(lines,
              Contains(":tensorflow:serving:request_latency_bucket{model_name=\"test_model\","
                       "API=\"predict\",entrypoint=\"REST\",le=\"188.957\"} 1"));
  EXPECT_THAT(lines,
              Contains(":tensorflow:serving:request_latency_bucket{model_name=\"test_model\","
                       "API=\"predict\",entrypoint=\"REST\",le=\"+Inf\"} 1"));
  EXPECT_THAT(lines, Contains(":tensorflow:serving:request_latency_sum{model_name=\"test_model\","
                              "API=\"predict\",entrypoint=\"REST\"} 150"));
  EXPECT_THAT(lines, Contains(":tensorflow:serving:request_latency_count{model_name=\"test_model\","
                              "API=\"predict\",entrypoint=\"REST\"} 1"));
  EXPECT_THAT(lines,
              Contains(":tensorflow:serving:runtime_latency_bucket{model_name=\"test_model\","
                       "API=\"Predict\",runtime=\"TF1\",le=\"18\"} 0"));
  EXPECT_THAT(lines,
              Contains(":tensorflow:serving:runtime_latency_bucket{model_name=\"test_model\","
                       "API=\"Predict\",runtime=\"TF1\",le=\"32.4\"} 1"));
  // 33 limits plus +Inf per series.
  int latency_buckets = 0;
  for (const std::string& line : lines) {
    latency_buckets += line.rfind(":tensorflow:serving:request_latency_bucket{", 0) == 0;
  }
  EXPECT_EQ(latency_buckets, 34);
}

TEST(ExpositionTest, WholeRegistryInRegistrationOrder) {
  MetricRegistry registry;
  Gauge* z = registry.AddGauge("z_gauge", "Registered first.", {});
  Counter* a = registry.AddCounter("a_total", "Registered second.", {"k"});
  Histogram* h = registry.AddHistogram("m_seconds", "Registered third.", {"k"}, {0.5, 1});
  registry.AddCounter("never_total", "No series yet.", {"k"});
  z->Set({}, 2);
  a->Increment({"b"}, 2);
  a->Increment({"a"});
  h->Observe({"x"}, 0.25);
  h->Observe({"x"}, 1);
  EXPECT_EQ(registry.ExportPrometheus(),
            "# HELP z_gauge Registered first.\n"
            "# TYPE z_gauge gauge\n"
            "z_gauge 2\n"
            "# HELP a_total Registered second.\n"
            "# TYPE a_total counter\n"
            "a_total{k=\"a\"} 1\n"
            "a_total{k=\"b\"} 2\n"
            "# HELP m_seconds Registered third.\n"
            "# TYPE m_seconds histogram\n"
            "m_seconds_bucket{k=\"x\",le=\"0.5\"} 1\n"
            "m_seconds_bucket{k=\"x\",le=\"1\"} 2\n"
            "m_seconds_bucket{k=\"x\",le=\"+Inf\"} 2\n"
            "m_seconds_sum{k=\"x\"} 1.25\n"
            "m_seconds_count{k=\"x\"} 2\n"
            "# HELP never_total No series yet.\n"
            "# TYPE never_total counter\n");
}

TEST(ExpositionTest, SeriesSortedByLabelValues) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("c_total", "C.", {"model", "code"});
  c->Increment({"b", "OK"});
  c->Increment({"a", "OK"});
  c->Increment({"b", "ABORTED"});
  c->Increment({"a", "NOT_FOUND"});
  EXPECT_THAT(
      Lines(registry.ExportPrometheus()),
      ElementsAre("# HELP c_total C.", "# TYPE c_total counter",
                  "c_total{model=\"a\",code=\"NOT_FOUND\"} 1", "c_total{model=\"a\",code=\"OK\"} 1",
                  "c_total{model=\"b\",code=\"ABORTED\"} 1", "c_total{model=\"b\",code=\"OK\"} 1"));
}

TEST(ExpositionTest, EscapesLabelValuesAndHelp) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("c_total", "Back\\slash and\nnewline \"kept\".", {"k"});
  c->Increment({"a\\b\"c\nd"});
  EXPECT_THAT(Lines(registry.ExportPrometheus()),
              ElementsAre("# HELP c_total Back\\\\slash and\\nnewline \"kept\".",
                          "# TYPE c_total counter", "c_total{k=\"a\\\\b\\\"c\\nd\"} 1"));
}

TEST(ExpositionTest, InvalidUtf8InLabelValuesIsReplaced) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("c_total", "C.", {"k"});
  c->Increment({"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"});  // valid: é € 😀
  c->Increment({"x\xFFy"});                                     // invalid byte
  c->Increment({"\xC3"});                                       // truncated sequence
  c->Increment({"\xC0\xAF"});                                   // overlong '/'
  c->Increment({"\xED\xA0\x80"});                               // surrogate U+D800
  const std::vector<std::string> lines = Lines(registry.ExportPrometheus());
  EXPECT_THAT(lines, Contains("c_total{k=\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"} 1"));
  EXPECT_THAT(lines, Contains("c_total{k=\"x\xEF\xBF\xBDy\"} 1"));
  EXPECT_THAT(lines, Contains("c_total{k=\"\xEF\xBF\xBD\"} 1"));
  EXPECT_THAT(lines, Contains("c_total{k=\"\xEF\xBF\xBD\xEF\xBF\xBD\"} 1"));
  EXPECT_THAT(lines, Contains("c_total{k=\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"} 1"));
}

TEST(ExpositionTest, FamilyWithoutLabelsPrintsBareName) {
  MetricRegistry registry;
  registry.AddCounter("c_total", "C.", {})->Increment({}, 3);
  EXPECT_THAT(Lines(registry.ExportPrometheus()), Contains("c_total 3"));
  EXPECT_THAT(registry.ExportPrometheus(), Not(HasSubstr("{}")));
}

TEST(RegistryTest, SameShapeReturnsTheExistingFamily) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("c_total", "First help.", {"k"});
  EXPECT_EQ(registry.AddCounter("c_total", "Second help.", {"k"}), c);
  Histogram* h = registry.AddHistogram("h", "H.", {"k"}, {1, 2});
  EXPECT_EQ(registry.AddHistogram("h", "H.", {"k"}, {1, 2}), h);
  EXPECT_EQ(c->help(), "First help.");
  EXPECT_THAT(registry.ExportPrometheus(), Not(HasSubstr("Second help.")));
}

TEST(RegistryTest, RegistriesAreIndependent) {
  MetricRegistry a, b;
  a.AddCounter("c_total", "C.", {})->Increment({});
  EXPECT_EQ(b.AddCounter("c_total", "C.", {})->Value({}), 0);
}

TEST(RegistryTest, GlobalIsOneRegistry) {
  EXPECT_EQ(&MetricRegistry::Global(), &MetricRegistry::Global());
}

TEST(RegistryDeathTest, MismatchedReRegistrationAborts) {
  MetricRegistry registry;
  registry.AddCounter("c_total", "C.", {"k"});
  registry.AddHistogram("h", "H.", {"k"}, {1, 2});
  EXPECT_DEATH(registry.AddGauge("c_total", "C.", {"k"}), "different type");
  EXPECT_DEATH(registry.AddCounter("c_total", "C.", {"j"}), "different type");
  EXPECT_DEATH(registry.AddCounter("c_total", "C.", {"k", "j"}), "different type");
  EXPECT_DEATH(registry.AddHistogram("h", "H.", {"k"}, {1, 3}), "different type");
}

TEST(RegistryDeathTest, SampleNameCollisionAborts) {
  MetricRegistry registry;
  registry.AddHistogram("x", "X.", {}, {1});
  EXPECT_DEATH(registry.AddCounter("x_count", "C.", {}), "x_count is also printed by x");
  registry.AddGauge("y_sum", "Y.", {});
  EXPECT_DEATH(registry.AddHistogram("y", "H.", {}, {1}), "y_sum is also printed by y_sum");
}

TEST(RegistryDeathTest, InvalidNamesAbort) {
  MetricRegistry registry;
  EXPECT_DEATH(registry.AddCounter("", "C.", {}), "invalid metric name");
  EXPECT_DEATH(registry.AddCounter("1abc", "C.", {}), "invalid metric name");
  EXPECT_DEATH(registry.AddCounter("/tensorflow/serving/x", "C.", {}), "invalid metric name");
  EXPECT_DEATH(registry.AddCounter("a-b", "C.", {}), "invalid metric name");
  EXPECT_DEATH(registry.AddCounter("c", "C.", {"a:b"}), "invalid label name");
  EXPECT_DEATH(registry.AddCounter("c", "C.", {"__reserved"}), "invalid label name");
  EXPECT_DEATH(registry.AddCounter("c", "C.", {"0k"}), "invalid label name");
  EXPECT_DEATH(registry.AddCounter("c", "C.", {"k", "k"}), "duplicate label name");
  // Valid: colons in metric names, leading underscores and upper case everywhere.
  registry.AddCounter(":tensorflow:serving:x", "C.", {"API", "_k"});
}

TEST(FamilyTest, WrongNumberOfLabelValuesIsDroppedNotFatal) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("c_total", "C.", {"a", "b"});
  Gauge* g = registry.AddGauge("g", "G.", {"a"});
  Histogram* h = registry.AddHistogram("h", "H.", {}, {1});
  c->Increment({"x"});
  EXPECT_EQ(c->Value({"x", "y", "z"}), 0);
  g->Set({}, 1);
  h->Observe({"x"}, 1);
  EXPECT_EQ(h->Count({"x"}), 0);
  const std::string text = registry.ExportPrometheus();
  EXPECT_EQ(text.find("c_total{"), std::string::npos) << text;
  EXPECT_EQ(text.find("g{"), std::string::npos) << text;
  EXPECT_EQ(text.find("h_count"), std::string::npos) << text;
}

TEST(FamilyTest, NegativeCounterIncrementIsDropped) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("c_total", "C.", {});
  c->Increment({}, 2);
  c->Increment({}, -1);
  EXPECT_EQ(c->Value({}), 2);
}

TEST(ConcurrencyTest, ConcurrentRecordingAndExportLoseNothing) {
  MetricRegistry registry;
  Counter* c = registry.AddCounter("c_total", "C.", {"k"});
  Gauge* g = registry.AddGauge("g", "G.", {"k"});
  Histogram* h = registry.AddHistogram("h", "H.", {"k"}, {1, 2});
  constexpr int kThreads = 4;
  constexpr int kIterations = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string own = "t" + std::to_string(t);
      for (int i = 0; i < kIterations; ++i) {
        c->Increment({"shared"});
        c->Increment({own});
        g->Add({"shared"}, 1);
        h->Observe({"shared"}, i % 3);
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 50; ++i) registry.ExportPrometheus();
  });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(c->Value({"shared"}), kThreads * kIterations);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(c->Value({"t" + std::to_string(t)}), kIterations);
  EXPECT_EQ(g->Value({"shared"}), kThreads * kIterations);
  EXPECT_EQ(h->Count({"shared"}), kThreads * kIterations);
}

}  // namespace
}  // namespace tensord
