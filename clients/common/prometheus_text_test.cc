#include "clients/common/prometheus_text.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensord {
namespace prometheus {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(PrometheusTextTest, ParsesHistogramAsTensordWritesIt) {
  absl::StatusOr<std::vector<Sample>> samples = ParseText(
      "# HELP tensord_request_duration_seconds Time from receiving a request to its response.\n"
      "# TYPE tensord_request_duration_seconds histogram\n"
      "tensord_request_duration_seconds_bucket{model=\"mlp\",version=\"1\",signature="
      "\"serving_default\",method=\"Predict\",protocol=\"grpc\",le=\"0.0001\"} 0\n"
      "tensord_request_duration_seconds_bucket{model=\"mlp\",version=\"1\",signature="
      "\"serving_default\",method=\"Predict\",protocol=\"grpc\",le=\"+Inf\"} 12\n"
      "tensord_request_duration_seconds_sum{model=\"mlp\",version=\"1\",signature="
      "\"serving_default\",method=\"Predict\",protocol=\"grpc\"} 0.0375\n"
      "tensord_request_duration_seconds_count{model=\"mlp\",version=\"1\",signature="
      "\"serving_default\",method=\"Predict\",protocol=\"grpc\"} 12\n");
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 4u);
  const Sample& sum = (*samples)[2];
  EXPECT_EQ(sum.name, "tensord_request_duration_seconds_sum");
  EXPECT_THAT(sum.labels, ElementsAre(Pair("method", "Predict"), Pair("model", "mlp"),
                                      Pair("protocol", "grpc"),
                                      Pair("signature", "serving_default"), Pair("version", "1")));
  EXPECT_DOUBLE_EQ(sum.value, 0.0375);
  EXPECT_EQ((*samples)[1].labels.at("le"), "+Inf");
  EXPECT_EQ((*samples)[3].value, 12);
}

TEST(PrometheusTextTest, NamesWithColonsNoLabelsAndTimestamps) {
  absl::StatusOr<std::vector<Sample>> samples =
      ParseText(":tensorflow:serving:request_count{model_name=\"m\",status=\"OK\"} 3\n"
                "up 1 1700000000000\n"
                "empty{} -2.5e-3\n"
                "trailing_comma{a=\"x\",} 7\n"
                "  spaced { a = \"y\" }   8  \r\n"
                "\n"
                "# a plain comment\n");
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 5u);
  EXPECT_EQ((*samples)[0].name, ":tensorflow:serving:request_count");
  EXPECT_EQ((*samples)[0].labels.at("status"), "OK");
  EXPECT_EQ((*samples)[1].name, "up");
  EXPECT_TRUE((*samples)[1].labels.empty());
  EXPECT_EQ((*samples)[1].value, 1);
  EXPECT_TRUE((*samples)[2].labels.empty());
  EXPECT_DOUBLE_EQ((*samples)[2].value, -0.0025);
  EXPECT_EQ((*samples)[3].labels.at("a"), "x");
  EXPECT_EQ((*samples)[4].name, "spaced");
  EXPECT_EQ((*samples)[4].labels.at("a"), "y");
  EXPECT_EQ((*samples)[4].value, 8);
}

TEST(PrometheusTextTest, SpecialValuesAndEscapes) {
  absl::StatusOr<std::vector<Sample>> samples = ParseText(
      "a{path=\"C:\\\\dir \\\"q\\\"\\nnext\"} NaN\n"
      "b +Inf\n"
      "c -Inf\n");
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 3u);
  EXPECT_EQ((*samples)[0].labels.at("path"), "C:\\dir \"q\"\nnext");
  EXPECT_TRUE(std::isnan((*samples)[0].value));
  EXPECT_EQ((*samples)[1].value, INFINITY);
  EXPECT_EQ((*samples)[2].value, -INFINITY);
}

TEST(PrometheusTextTest, ErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"ok 1\n{a=\"b\"} 1\n", "line 2 of the metrics text: expected a metric name"},
           {"m{a=\"b} 1\n", "unterminated label value"},
           {"m{a=b} 1\n", "expected a quoted value for label a"},
           {"m{a=\"b\" c=\"d\"} 1\n", "expected ',' or '}'"},
           {"m{a=\"b\",a=\"c\"} 1\n", "label a is repeated"},
           {"m{a=\"\\t\"} 1\n", "unknown escape \\t"},
           {"m\n", "'' is not a sample value"},
           {"m one\n", "'one' is not a sample value"},
           {"m inf\n", "'inf' is not a sample value"},
           {"m 1 soon\n", "'soon' is not a timestamp"},
           {"m 1 2 3\n", "unexpected text after the timestamp"},
       }) {
    absl::StatusOr<std::vector<Sample>> samples = ParseText(c.text);
    ASSERT_FALSE(samples.ok()) << c.text;
    EXPECT_EQ(samples.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(samples.status().message(), HasSubstr(c.message)) << c.text;
  }
}

TEST(PrometheusTextTest, SumMatchingAddsEverySeriesWithTheLabels) {
  absl::StatusOr<std::vector<Sample>> samples = ParseText(
      "t_sum{model=\"a\",version=\"1\",method=\"Predict\"} 1.5\n"
      "t_sum{model=\"a\",version=\"2\",method=\"Classify\"} 0.25\n"
      "t_sum{model=\"b\",version=\"1\",method=\"Predict\"} 100\n"
      "t_count{model=\"a\",version=\"1\",method=\"Predict\"} 3\n"
      "t_sum{version=\"1\"} 1000\n");
  ASSERT_TRUE(samples.ok()) << samples.status();
  EXPECT_EQ(SumMatching(*samples, "t_sum", {{"model", "a"}}), 1.75);
  EXPECT_EQ(SumMatching(*samples, "t_sum", {{"model", "a"}, {"method", "Predict"}}), 1.5);
  EXPECT_EQ(SumMatching(*samples, "t_sum", {}), 1101.75);
  EXPECT_EQ(SumMatching(*samples, "t_count", {{"model", "a"}}), 3);
  EXPECT_EQ(SumMatching(*samples, "t_sum", {{"model", "c"}}), std::nullopt);
  EXPECT_EQ(SumMatching(*samples, "absent", {}), std::nullopt);
}

}  // namespace
}  // namespace prometheus
}  // namespace tensord
