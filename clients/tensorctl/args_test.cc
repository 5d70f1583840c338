#include "clients/tensorctl/args.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

std::string UsageError(const std::vector<std::string>& argv) {
  absl::StatusOr<Args> args = ParseArgs(argv);
  EXPECT_FALSE(args.ok());
  return args.ok() ? "" : std::string(args.status().message());
}

TEST(ArgsTest, Inspect) {
  absl::StatusOr<Args> args = ParseArgs({"inspect", "/m/1"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, Args::Command::kInspect);
  EXPECT_EQ(args->dir, "/m/1");
  EXPECT_FALSE(args->tag_set.has_value());
  EXPECT_FALSE(args->json);

  args = ParseArgs({"inspect", "--json", "--tag_set=serve,gpu", "/m/1"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->json);
  EXPECT_EQ(*args->tag_set, (std::set<std::string>{"gpu", "serve"}));
}

TEST(ArgsTest, Run) {
  absl::StatusOr<Args> args =
      ParseArgs({"run", "/m/1", "--signature_def", "predict", "--input", "x=[[1.0], [2.0]]",
                 "--input=y=@in.npy", "--output_dir", "/tmp/o", "--tag_set", "serve"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, Args::Command::kRun);
  EXPECT_EQ(args->signature_def, "predict");
  ASSERT_EQ(args->inputs.size(), 2u);
  EXPECT_EQ(args->inputs[0].alias, "x");
  EXPECT_EQ(args->inputs[0].value, "[[1.0], [2.0]]");
  EXPECT_EQ(args->inputs[1].alias, "y");
  EXPECT_EQ(args->inputs[1].value, "@in.npy");
  EXPECT_EQ(args->output_dir, "/tmp/o");
  EXPECT_EQ(*args->tag_set, (std::set<std::string>{"serve"}));

  args = ParseArgs({"run", "/m/1"});
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->signature_def, "serving_default");
  EXPECT_TRUE(args->inputs.empty());
  // A value may itself contain '='.
  args = ParseArgs({"run", "/m/1", "--input", "s=[\"a=b\"]"});
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->inputs[0].value, "[\"a=b\"]");
  EXPECT_EQ(args->profile_runs, 0);
  args = ParseArgs({"run", "/m/1", "--profile", "20"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->profile_runs, 20);
  EXPECT_EQ(args->precision, ComputePrecision::kFloat32);
  args = ParseArgs({"run", "/m/1", "--precision=bf16"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->precision, ComputePrecision::kBfloat16);
}

TEST(ArgsTest, PlacementAndDevice) {
  absl::StatusOr<Args> args = ParseArgs({"inspect", "--placement", "/m/1"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->placement);
  EXPECT_FALSE(args->device.has_value());
  args = ParseArgs({"inspect", "/m/1", "--placement", "--device=gpu", "--json"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->device->ToString(), "gpu:0");
  EXPECT_TRUE(args->json);
  args = ParseArgs({"run", "/m/1", "--device", "cpu"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->device->ToString(), "cpu");
  EXPECT_FALSE(args->placement);

  EXPECT_EQ(UsageError({"inspect", "/m/1", "--device", "tpu", "--placement"}),
            "--device: device policy 'tpu' is not one of auto, cpu, gpu, gpu:N");
  EXPECT_EQ(UsageError({"inspect", "/m/1", "--device", "gpu"}),
            "--device needs --placement for 'tensorctl inspect'");
  EXPECT_EQ(UsageError({"inspect", "/m/1", "--placement=yes"}), "--placement takes no value");
  EXPECT_EQ(UsageError({"run", "/m/1", "--placement"}),
            "unknown flag --placement for 'tensorctl run'");
}

TEST(ArgsTest, Help) {
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {"--help"}, {"-h"}, {"help"}, {"run", "--help"}, {"inspect", "x", "-h"}}) {
    absl::StatusOr<Args> args = ParseArgs(argv);
    ASSERT_TRUE(args.ok());
    EXPECT_EQ(args->command, Args::Command::kHelp);
  }
  EXPECT_NE(std::string(kUsage).find("run DIR [--tag_set TAGS]"), std::string::npos);
}

TEST(ArgsTest, UsageErrors) {
  EXPECT_NE(UsageError({}).find("missing command"), std::string::npos);
  EXPECT_NE(UsageError({"serve"}).find("unknown command 'serve'"), std::string::npos);
  EXPECT_NE(UsageError({"inspect"}).find("needs the SavedModel directory"), std::string::npos);
  EXPECT_NE(UsageError({"inspect", "a", "b"}).find("unexpected argument 'b'"), std::string::npos);
  EXPECT_NE(UsageError({"inspect", "a", "--input", "x=1"}).find("unknown flag --input"),
            std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--json"}).find("unknown flag --json"), std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--bogus=1"}).find("unknown flag --bogus"), std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--input"}).find("--input needs a value"), std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--input", "noequals"}).find("must be ALIAS=VALUE"),
            std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--input", "=1"}).find("must be ALIAS=VALUE"),
            std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--input", "x=1", "--input", "x=2"}).find("more than once"),
            std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--signature_def="}).find("empty"), std::string::npos);
  EXPECT_NE(UsageError({"inspect", "a", "--json=1"}).find("takes no value"), std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--profile=0"}).find("from 1 to 100000"), std::string::npos);
  EXPECT_NE(UsageError({"run", "a", "--profile", "x"}).find("from 1 to 100000"),
            std::string::npos);
  EXPECT_NE(UsageError({"inspect", "a", "--profile", "3"}).find("unknown flag --profile"),
            std::string::npos);
  EXPECT_EQ(UsageError({"run", "a", "--precision", "fp16"}),
            "--precision: precision 'fp16' is not one of fp32, bf16");
  EXPECT_NE(UsageError({"inspect", "a", "--precision", "bf16"}).find("unknown flag --precision"),
            std::string::npos);
}

TEST(ArgsTest, TagSets) {
  EXPECT_EQ(ParseTagSet("serve"), (std::set<std::string>{"serve"}));
  EXPECT_EQ(ParseTagSet("serve, gpu"), (std::set<std::string>{"serve", "gpu"}));
  EXPECT_EQ(ParseTagSet(""), (std::set<std::string>{}));
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
