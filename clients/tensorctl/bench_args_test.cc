#include "clients/tensorctl/bench_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(BenchArgsTest, Defaults) {
  absl::StatusOr<BenchArgs> args = ParseBenchArgs({"bench", "--server=h:1", "--model", "m"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_FALSE(args->help);
  EXPECT_EQ(args->target.server, "h:1");
  EXPECT_EQ(args->target.model, "m");
  EXPECT_EQ(args->target.signature_def, "serving_default");
  EXPECT_EQ(args->target.timeout_ms, 30000);
  EXPECT_THAT(args->concurrency, ElementsAre(1));
  EXPECT_TRUE(args->request_rates.empty());
  EXPECT_EQ(args->distribution, BenchArgs::Distribution::kConstant);
  EXPECT_EQ(args->max_threads, 16);
  EXPECT_TRUE(args->shapes.empty());
  EXPECT_FALSE(args->batch.has_value());
  EXPECT_EQ(args->warmup_requests, 10);
  EXPECT_EQ(args->measurement_interval_ms, 5000);
  EXPECT_EQ(args->stability_percentage, 10);
  EXPECT_EQ(args->max_trials, 10);
  EXPECT_EQ(args->metrics_url, "");
  EXPECT_EQ(args->csv_path, "");
  EXPECT_EQ(args->json_path, "");
}

TEST(BenchArgsTest, AllFlags) {
  absl::StatusOr<BenchArgs> args = ParseBenchArgs(
      {"bench", "--server", "localhost:8500", "--model=mlp", "--label", "canary",
       "--signature_def=sig", "--input", "x=[[1.0]]", "--output_filter=y", "--timeout_ms=250",
       "--concurrency_range", "1, 4,16,64", "--shape", "images=8,224,224,3", "--shape=s=",
       "--batch=8", "--warmup_requests=0", "--measurement_interval_ms", "500",
       "--stability_percentage=2.5", "--max_trials=3",
       "--metrics_url=http://localhost:8501/monitoring/prometheus/metrics", "--csv", "o.csv",
       "--json=o.json"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->target.server, "localhost:8500");
  EXPECT_EQ(args->target.model, "mlp");
  EXPECT_EQ(args->target.version_label, "canary");
  EXPECT_EQ(args->target.signature_def, "sig");
  ASSERT_EQ(args->target.inputs.size(), 1u);
  EXPECT_EQ(args->target.inputs[0].alias, "x");
  EXPECT_EQ(args->target.inputs[0].value, "[[1.0]]");
  EXPECT_THAT(args->target.output_filter, ElementsAre("y"));
  EXPECT_EQ(args->target.timeout_ms, 250);
  EXPECT_THAT(args->concurrency, ElementsAre(1, 4, 16, 64));
  EXPECT_THAT(args->shapes, ElementsAre(Pair("images", ElementsAre(8, 224, 224, 3)),
                                        Pair("s", ElementsAre())));
  EXPECT_EQ(args->batch, 8);
  EXPECT_EQ(args->warmup_requests, 0);
  EXPECT_EQ(args->measurement_interval_ms, 500);
  EXPECT_EQ(args->stability_percentage, 2.5);
  EXPECT_EQ(args->max_trials, 3);
  EXPECT_EQ(args->metrics_url, "http://localhost:8501/monitoring/prometheus/metrics");
  EXPECT_EQ(args->csv_path, "o.csv");
  EXPECT_EQ(args->json_path, "o.json");
}

TEST(BenchArgsTest, RequestRateModes) {
  absl::StatusOr<BenchArgs> args =
      ParseBenchArgs({"bench", "--server=h:1", "--model=m", "--request_rate=100,250.5",
                      "--request_distribution=poisson", "--max_threads=4", "--version=2"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->concurrency.empty());
  EXPECT_THAT(args->request_rates, ElementsAre(100, 250.5));
  EXPECT_EQ(args->distribution, BenchArgs::Distribution::kPoisson);
  EXPECT_EQ(args->max_threads, 4);
  EXPECT_EQ(args->target.version, 2);

  args = ParseBenchArgs({"bench", "--server=h:1", "--model=m", "--concurrency", "32"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_THAT(args->concurrency, ElementsAre(32));
}

TEST(BenchArgsTest, Help) {
  absl::StatusOr<BenchArgs> args = ParseBenchArgs({"bench", "--model=m", "--help"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->help);
}

TEST(BenchArgsTest, UsageErrors) {
  struct Case {
    std::vector<std::string> extra;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--concurrency=0"}, "--concurrency '0' is not a positive integer"},
           {{"--concurrency=2", "--concurrency_range=1,2"}, "exclude each other"},
           {{"--request_rate=5", "--concurrency=2"}, "exclude each other"},
           {{"--concurrency_range=1,,4"}, "comma-separated list of positive integers"},
           {{"--concurrency_range=1,x"}, "comma-separated list of positive integers"},
           {{"--request_rate=0"}, "must be positive request rates"},
           {{"--request_rate=inf"}, "must be positive request rates"},
           {{"--request_distribution=poisson"}, "apply to --request_rate only"},
           {{"--max_threads=4"}, "apply to --request_rate only"},
           {{"--request_rate=5", "--request_distribution=uniform"}, "constant or poisson"},
           {{"--shape=x"}, "must be ALIAS=D0,D1,..."},
           {{"--shape=x=1,-1"}, "not a non-negative integer"},
           {{"--shape=x=1", "--shape=x=2"}, "given more than once"},
           {{"--shape=x=1", "--input=x=[1.0]"}, "has both --input and --shape"},
           {{"--batch=0"}, "--batch '0' is not a positive integer"},
           {{"--warmup_requests=-1"}, "not a non-negative integer"},
           {{"--measurement_interval_ms=0"}, "not a positive integer"},
           {{"--stability_percentage=-5"}, "not a non-negative number"},
           {{"--max_trials=2"}, "must be an integer >= 3"},
           {{"--metrics_url=localhost:8501/metrics"}, "must be an http:// or https:// URL"},
           {{"--csv="}, "--csv is empty"},
           {{"--json"}, "--json needs a value"},
           {{"--timeout_ms=0"}, "--timeout_ms '0' is not a positive integer"},
           {{"--version=1", "--label=a"}, "exclude each other"},
           {{"--examples=[]"}, "unknown flag --examples for 'tensorctl bench'"},
           {{"extra"}, "unexpected argument 'extra'"},
       }) {
    std::vector<std::string> argv = {"bench", "--server=h:1", "--model=m"};
    argv.insert(argv.end(), c.extra.begin(), c.extra.end());
    absl::StatusOr<BenchArgs> args = ParseBenchArgs(argv);
    ASSERT_FALSE(args.ok()) << c.message;
    EXPECT_EQ(args.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(args.status().message(), HasSubstr(c.message));
  }
  EXPECT_THAT(ParseBenchArgs({"bench", "--model=m"}).status().message(), HasSubstr("--server"));
  EXPECT_THAT(ParseBenchArgs({"bench", "--server=h:1"}).status().message(),
              HasSubstr("--model"));
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
