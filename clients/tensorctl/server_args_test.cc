#include "clients/tensorctl/server_args.h"

#include <sstream>

#include "clients/tensorctl/remote.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ServerArgsTest, IsServerCommand) {
  EXPECT_TRUE(IsServerCommand("predict"));
  EXPECT_TRUE(IsServerCommand("metadata"));
  EXPECT_TRUE(IsServerCommand("status"));
  EXPECT_TRUE(IsServerCommand("classify"));
  EXPECT_TRUE(IsServerCommand("regress"));
  EXPECT_TRUE(IsServerCommand("list"));
  EXPECT_TRUE(IsServerCommand("reload"));
  EXPECT_FALSE(IsServerCommand("run"));
  EXPECT_FALSE(IsServerCommand("inspect"));
}

TEST(ServerArgsTest, PredictAllFlags) {
  absl::StatusOr<ServerArgs> args = ParseServerArgs(
      {"predict", "--server", "localhost:8500", "--model=mlp", "--version", "3",
       "--signature_def=sig", "--input", "x=[[1.0]]", "--input=y=@in.npy",
       "--output_filter", "a, b", "--timeout_ms=500"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, ServerArgs::Command::kPredict);
  EXPECT_EQ(args->server, "localhost:8500");
  EXPECT_EQ(args->model, "mlp");
  ASSERT_TRUE(args->version.has_value());
  EXPECT_EQ(*args->version, 3);
  EXPECT_EQ(args->signature_def, "sig");
  ASSERT_EQ(args->inputs.size(), 2u);
  EXPECT_EQ(args->inputs[0].alias, "x");
  EXPECT_EQ(args->inputs[0].value, "[[1.0]]");
  EXPECT_EQ(args->inputs[1].alias, "y");
  EXPECT_EQ(args->inputs[1].value, "@in.npy");
  EXPECT_THAT(args->output_filter, ElementsAre("a", "b"));
  EXPECT_EQ(args->timeout_ms, 500);
}

TEST(ServerArgsTest, Defaults) {
  absl::StatusOr<ServerArgs> args =
      ParseServerArgs({"status", "--server=h:1", "--model", "m"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, ServerArgs::Command::kStatus);
  EXPECT_FALSE(args->version.has_value());
  EXPECT_EQ(args->signature_def, "serving_default");
  EXPECT_EQ(args->timeout_ms, 30000);
  EXPECT_TRUE(args->inputs.empty());
  EXPECT_TRUE(args->output_filter.empty());
}

TEST(ServerArgsTest, ClassifyAllFlags) {
  absl::StatusOr<ServerArgs> args = ParseServerArgs(
      {"classify", "--server=h:1", "--model", "m", "--label=stable", "--signature_def", "sig",
       "--examples", R"([{"x": 1.0}])", "--context={\"c\": 2}", "--timeout_ms=10"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, ServerArgs::Command::kClassify);
  EXPECT_EQ(args->server, "h:1");
  EXPECT_EQ(args->model, "m");
  EXPECT_FALSE(args->version.has_value());
  EXPECT_EQ(args->version_label, "stable");
  EXPECT_EQ(args->signature_def, "sig");
  EXPECT_EQ(args->examples, R"([{"x": 1.0}])");
  EXPECT_EQ(args->context, std::optional<std::string>(R"({"c": 2})"));
  EXPECT_EQ(args->timeout_ms, 10);
}

TEST(ServerArgsTest, RegressDefaults) {
  absl::StatusOr<ServerArgs> args = ParseServerArgs(
      {"regress", "--server=h:1", "--model=m", "--version=2", "--examples=@in.json"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, ServerArgs::Command::kRegress);
  EXPECT_EQ(args->version, std::optional<int64_t>(2));
  EXPECT_EQ(args->version_label, "");
  EXPECT_EQ(args->signature_def, "serving_default");
  EXPECT_EQ(args->examples, "@in.json");
  EXPECT_FALSE(args->context.has_value());
}

TEST(ServerArgsTest, ListAndReload) {
  absl::StatusOr<ServerArgs> args = ParseServerArgs({"list", "--server", "h:1"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, ServerArgs::Command::kList);
  EXPECT_FALSE(args->json);
  args = ParseServerArgs({"list", "--json", "--server=h:1"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->json);

  args = ParseServerArgs({"reload", "--server=h:1", "--config", "models.config"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command, ServerArgs::Command::kReload);
  EXPECT_EQ(args->config, "models.config");
  EXPECT_EQ(args->model, "");
}

TEST(ServerArgsTest, Help) {
  absl::StatusOr<ServerArgs> args = ParseServerArgs({"metadata", "--help"});
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->command, ServerArgs::Command::kHelp);
}

TEST(ServerArgsTest, Errors) {
  auto error = [](std::vector<std::string> argv) {
    absl::StatusOr<ServerArgs> args = ParseServerArgs(argv);
    EXPECT_FALSE(args.ok());
    return std::string(args.status().message());
  };
  EXPECT_THAT(error({"status", "--model=m"}), HasSubstr("needs --server"));
  EXPECT_THAT(error({"status", "--server=h:1"}), HasSubstr("needs --model"));
  EXPECT_THAT(error({"status", "--server=h:1", "--model=m", "--version=-1"}),
              HasSubstr("--version"));
  EXPECT_THAT(error({"status", "--server=h:1", "--model=m", "--version=x"}),
              HasSubstr("--version"));
  EXPECT_THAT(error({"status", "--server=h:1", "--model=m", "--timeout_ms=0"}),
              HasSubstr("--timeout_ms"));
  EXPECT_THAT(error({"status", "--server=h:1", "--model=m", "--input=x=1"}),
              HasSubstr("unknown flag --input"));
  EXPECT_THAT(error({"metadata", "--server=h:1", "--model=m", "--signature_def=s"}),
              HasSubstr("unknown flag --signature_def"));
  EXPECT_THAT(error({"predict", "--server=h:1", "--model=m", "--input=x"}),
              HasSubstr("ALIAS=VALUE"));
  EXPECT_THAT(error({"predict", "--server=h:1", "--model=m", "--input=x=1", "--input=x=2"}),
              HasSubstr("more than once"));
  EXPECT_THAT(error({"predict", "--server=h:1", "--model"}), HasSubstr("needs a value"));
  EXPECT_THAT(error({"predict", "--server=h:1", "--model=m", "extra"}),
              HasSubstr("unexpected argument"));
  EXPECT_THAT(error({"predict", "--server=h:1", "--model=m", "--version=1", "--label=a"}),
              HasSubstr("--version and --label exclude each other"));
  EXPECT_THAT(error({"status", "--server=h:1", "--model=m", "--label=a"}),
              HasSubstr("unknown flag --label for 'tensorctl status'"));
  EXPECT_THAT(error({"classify", "--server=h:1", "--model=m", "--label="}),
              HasSubstr("--label is empty"));
  EXPECT_THAT(error({"classify", "--server=h:1", "--model=m"}),
              HasSubstr("'tensorctl classify' needs --examples JSON"));
  EXPECT_THAT(error({"regress", "--server=h:1", "--examples=[]"}),
              HasSubstr("'tensorctl regress' needs --model"));
  EXPECT_THAT(error({"regress", "--server=h:1", "--model=m", "--examples=[]", "--input=x=1"}),
              HasSubstr("unknown flag --input for 'tensorctl regress'"));
  EXPECT_THAT(error({"predict", "--server=h:1", "--model=m", "--examples=[]"}),
              HasSubstr("unknown flag --examples for 'tensorctl predict'"));
  EXPECT_THAT(error({"list"}), HasSubstr("'tensorctl list' needs --server HOST:PORT"));
  EXPECT_THAT(error({"list", "--server=h:1", "--model=m"}),
              HasSubstr("unknown flag --model for 'tensorctl list'"));
  EXPECT_THAT(error({"list", "--server=h:1", "--json=yes"}), HasSubstr("--json takes no value"));
  EXPECT_THAT(error({"reload", "--server=h:1"}),
              HasSubstr("'tensorctl reload' needs --config FILE"));
  EXPECT_THAT(error({"reload", "--server=h:1", "--config"}), HasSubstr("--config needs a value"));
  EXPECT_THAT(error({"status", "--server=h:1", "--model=m", "--json"}),
              HasSubstr("unknown flag --json for 'tensorctl status'"));
}

TEST(RemoteTest, GrpcCodeNames) {
  EXPECT_STREQ(GrpcCodeName(0), "OK");
  EXPECT_STREQ(GrpcCodeName(4), "DEADLINE_EXCEEDED");
  EXPECT_STREQ(GrpcCodeName(5), "NOT_FOUND");
  EXPECT_STREQ(GrpcCodeName(14), "UNAVAILABLE");
  EXPECT_STREQ(GrpcCodeName(16), "UNAUTHENTICATED");
  EXPECT_STREQ(GrpcCodeName(99), "UNKNOWN");
}

TEST(RemoteTest, UnreachableServerIsUnavailable) {
  absl::StatusOr<ServerArgs> args =
      ParseServerArgs({"status", "--server=127.0.0.1:1", "--model=m", "--timeout_ms=2000"});
  ASSERT_TRUE(args.ok());
  std::ostringstream out, err;
  EXPECT_EQ(RunServerCommand(*args, out, err), 1);
  EXPECT_EQ(out.str(), "");
  EXPECT_THAT(err.str(), ::testing::StartsWith("tensorctl: "));
  EXPECT_THAT(err.str(), ::testing::AnyOf(HasSubstr("UNAVAILABLE"),
                                          HasSubstr("DEADLINE_EXCEEDED")));
}

TEST(ServerArgsTest, SetServerFlagForOtherCommands) {
  ServerArgs args;
  EXPECT_TRUE(SetServerFlag("model", "m", &args).ok());
  EXPECT_EQ(args.model, "m");
  EXPECT_TRUE(SetServerFlag("input", "x=[1]", &args).ok());
  ASSERT_EQ(args.inputs.size(), 1u);
  EXPECT_THAT(SetServerFlag("version", "-1", &args).message(),
              HasSubstr("is not a non-negative integer"));
  EXPECT_THAT(SetServerFlag("concurrency", "2", &args).message(),
              HasSubstr("unknown flag --concurrency"));
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
