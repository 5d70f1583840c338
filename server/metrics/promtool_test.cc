// Checks the exposition of every ServingMetrics family with the Prometheus project's own
// checker, `promtool check metrics` (Debian package `prometheus`; `make deps` installs it). A
// missing promtool fails the test rather than skipping it.
//
// How promtool 2.42 reports: it reads the exposition on stdin and exits
//   1  when it does not parse ("error while linting: text format parsing error ..." on stderr),
//   3  when it parses but the linter has findings (one "<metric> <text>" line each on stderr),
//   0  when it parses and the linter is quiet.
// There is no flag to turn the linter off, so exit code 3 with only expected findings is a pass.
//
// TF Serving's names produce exactly these findings (we print HELP, so "no help text" is not
// among them), and our `tensord_*` families produce none:
//   every `:tensorflow:` family       metric names should not contain ':'
//   request_count, model_warmup_records_read, load_attempt_count, load_latency,
//   batching_session:wrapped_run_count (counters
//   without `_total`)                 counter metrics should have "_total" suffix
//   request_count, load_attempt_count, batching_session:wrapped_run_count (ending in `_count`)
//                                     non-histogram and non-summary metrics should not have
//                                     "_count" suffix
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "server/metrics/serving_metrics.h"

namespace tensord {
namespace {

constexpr char kNoColons[] = "metric names should not contain ':'";
constexpr char kNoTotal[] = "counter metrics should have \"_total\" suffix";
constexpr char kCountSuffix[] =
    "non-histogram and non-summary metrics should not have \"_count\" suffix";

// Lint findings by metric name.
using Findings = std::map<std::string, std::set<std::string>>;

struct PromtoolResult {
  int exit_code = -1;
  std::string stderr_text;
  Findings findings;
};

// promtool's path on PATH, or "" when it is not installed.
std::string FindPromtool() {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path ? path : "", ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/promtool");
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

class PromtoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    promtool_ = FindPromtool();
    ASSERT_FALSE(promtool_.empty())
        << "promtool not found on PATH; it comes with the Debian package `prometheus`, which "
           "`make deps` installs.";
  }

  PromtoolResult Run(const std::string& exposition) {
    const char* tmp = std::getenv("TEST_TMPDIR");
    const std::string dir = tmp ? tmp : "/tmp";
    const std::string input = dir + "/metrics.prom";
    const std::string errors = dir + "/promtool.stderr";
    std::ofstream(input) << exposition;
    const std::string command = absl::StrCat("'", promtool_, "' check metrics < '", input,
                                             "' > /dev/null 2> '", errors, "'");
    const int status = std::system(command.c_str());
    PromtoolResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.stderr_text = ReadFile(errors);
    for (absl::string_view line : absl::StrSplit(result.stderr_text, '\n', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits(' ', 1));
      if (parts.size() == 2) result.findings[parts[0]].insert(parts[1]);
    }
    return result;
  }

  std::string promtool_;
};

// Guards the harness itself: promtool's exit codes and finding lines are what we rely on.
TEST_F(PromtoolTest, HarnessSeesParseErrorsAndLintFindings) {
  PromtoolResult broken = Run("# TYPE x_total counter\nx_total{k=\"1} 3\n");
  EXPECT_EQ(broken.exit_code, 1) << broken.stderr_text;
  EXPECT_THAT(broken.stderr_text, ::testing::HasSubstr("parsing error"));

  PromtoolResult lint = Run("# TYPE x counter\nx 3\n");
  EXPECT_EQ(lint.exit_code, 3) << lint.stderr_text;
  EXPECT_THAT(lint.findings["x"], ::testing::Contains("no help text"));
  EXPECT_THAT(lint.findings["x"], ::testing::Contains(kNoTotal));

  PromtoolResult clean = Run("# HELP x_total X.\n# TYPE x_total counter\nx_total 3\n");
  EXPECT_EQ(clean.exit_code, 0) << clean.stderr_text;
}

TEST_F(PromtoolTest, ServingMetricsParseAndLintOnlyWhereTfNamesRequire) {
  MetricRegistry registry;
  ServingMetrics m(&registry);
  // Awkward but legal label values: quotes, backslashes, a newline, non-ASCII and invalid UTF-8.
  const std::string weird = "we\"ird\\model\nname \xC3\xA9 \xFF";
  const std::string path = "/models/a \"b\"\\1";
  for (const std::string& model : {std::string("mnist"), weird}) {
    m.request_count->Increment({model, "OK"}, 3);
    m.request_count->Increment({model, "NOT_FOUND"});
    m.request_latency->Observe({model, "Predict", "GRPC"}, 1234.5);
    m.request_latency->Observe({model, "predict", "REST"}, 10);
    m.runtime_latency->Observe({model, "Predict", "TF1"}, 800);
    m.request_example_counts->Observe({model}, 16);
    m.request_example_count_total->Increment({model}, 16);
    m.request_duration->Observe({model, "1", "serving_default", "Predict", "grpc"}, 0.0012);
    m.runtime_duration->Observe({model, "1", "serving_default", "Predict"}, 0.0008);
    m.request_bytes->Observe({model, "1", "serving_default", "Predict"}, 4096);
    m.response_bytes->Observe({model, "1", "serving_default", "Predict"}, 100);
    m.requests_in_flight->Add({model, "Predict"}, 1);
    m.requests->Increment({model, "1", "serving_default", "Predict", "grpc", "OK"});
    m.requests->Increment({model, "", "", "Predict", "rest", "INVALID_ARGUMENT"});
    m.model_load_duration->Observe({model}, 2.5);
    m.model_loads->Increment({model, "ok"});
    m.model_loads->Increment({model, "error"});
    m.model_state->Set({model, "1"}, 30);
    m.model_state->Set({model, "2"}, 50);
    m.model_device_memory->Set({model, "1"}, 438124544);
    m.batch_size->Observe({model, "1", "serving_default"}, 32);
    m.batch_rows->Increment({model, "1", "serving_default"}, 30);
    m.batch_padding_rows->Increment({model, "1", "serving_default"}, 2);
    m.batch_queue_duration->Observe({model, "1", "serving_default"}, 0.002);
    m.batch_queue_depth->Set({model, "1", "serving_default"}, 3);
  }
  m.batching_queuing_latency->Observe({"model_server_batch_threads"}, 2000);
  m.batching_input_batch_size->Observe({}, 3);
  m.batching_processed_batch_size->Observe({}, 32);
  m.batching_padding_size->Observe({"32"}, 2);
  m.batching_wrapped_run_count->Increment({});
  for (const std::string& model_path : {std::string("/models/mnist/1"), path}) {
    m.model_warmup_latency->Observe({model_path, "OK"}, 52000);
    m.model_warmup_records_read->Increment({model_path, "OK"}, 10);
    m.load_attempt_count->Increment({model_path, "success"});
    m.load_attempt_count->Increment({model_path, "fail"});
    m.load_latency->Increment({model_path}, 1500000);
  }
  const std::string exposition = registry.ExportPrometheus();

  // Every family has series, so promtool sees every kind of line we print.
  std::map<std::string, int> samples_per_family;
  std::string family;
  for (absl::string_view line : absl::StrSplit(exposition, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "# TYPE ")) {
      const std::vector<std::string> words = absl::StrSplit(line, ' ');  // # TYPE name type
      family = words.at(2);
      samples_per_family[family] = 0;
    } else if (!absl::StartsWith(line, "#")) {
      ++samples_per_family[family];
    }
  }
  EXPECT_EQ(samples_per_family.size(), 29u);
  for (const auto& [name, samples] : samples_per_family) {
    EXPECT_GT(samples, 0) << name << " has no series; fill it above";
  }

  const PromtoolResult result = Run(exposition);
  ASSERT_NE(result.exit_code, 1) << "promtool could not parse the exposition:\n"
                                 << result.stderr_text << "\n"
                                 << exposition;
  EXPECT_THAT(result.exit_code, ::testing::AnyOf(0, 3)) << result.stderr_text;

  const Findings allowed = {
      {":tensorflow:serving:request_count", {kNoColons, kNoTotal, kCountSuffix}},
      {":tensorflow:serving:request_latency", {kNoColons}},
      {":tensorflow:serving:runtime_latency", {kNoColons}},
      {":tensorflow:serving:request_example_counts", {kNoColons}},
      {":tensorflow:serving:request_example_count_total", {kNoColons}},
      {":tensorflow:serving:model_warmup_latency", {kNoColons}},
      {":tensorflow:serving:model_warmup_records_read", {kNoColons, kNoTotal}},
      {":tensorflow:cc:saved_model:load_attempt_count", {kNoColons, kNoTotal, kCountSuffix}},
      {":tensorflow:cc:saved_model:load_latency", {kNoColons, kNoTotal}},
      {":tensorflow:serving:batching_session:queuing_latency", {kNoColons}},
      {":tensorflow:serving:batching_session:input_batch_size", {kNoColons}},
      {":tensorflow:serving:batching_session:processed_batch_size", {kNoColons}},
      {":tensorflow:serving:batching_session:padding_size", {kNoColons}},
      {":tensorflow:serving:batching_session:wrapped_run_count",
       {kNoColons, kNoTotal, kCountSuffix}},
  };
  for (const auto& [metric, texts] : result.findings) {
    auto it = allowed.find(metric);
    if (it == allowed.end()) {
      ADD_FAILURE() << "unexpected lint findings for " << metric << ": "
                    << ::testing::PrintToString(texts);
      continue;
    }
    for (const std::string& text : texts) {
      EXPECT_THAT(it->second, ::testing::Contains(text)) << metric;
    }
  }
  // promtool reports failures other than lint as "error ..." lines.
  for (absl::string_view line : absl::StrSplit(result.stderr_text, '\n', absl::SkipEmpty())) {
    EXPECT_FALSE(absl::StartsWith(line, "error")) << line;
  }
}

}  // namespace
}  // namespace tensord
