#include "server/model/model_config_proto.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "google/protobuf/text_format.h"

namespace tensord {
namespace {

absl::StatusOr<std::vector<ModelConfig>> FromText(const std::string& text) {
  ::tensorflow::serving::ModelServerConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return ModelConfigsFromProto(config);
}

TEST(ModelConfigProtoTest, ConvertsPoliciesAndLabels) {
  auto configs = FromText(R"pb(
    model_config_list {
      config {
        name: "a" base_path: "/m/a" model_platform: "tensorflow"
        model_version_policy { specific { versions: 42 versions: 43 } }
        version_labels { key: "stable" value: 42 }
        version_labels { key: "canary" value: 43 }
      }
      config { name: "b" base_path: "/m/b" model_platform: "tensorflow"
               model_version_policy { all {} } }
      config { name: "c" base_path: "/m/c" model_platform: "tensorflow"
               model_version_policy { latest { num_versions: 2 } } }
      config { name: "d" base_path: "/m/d" model_platform: "tensorflow" }
    })pb");
  ASSERT_TRUE(configs.ok()) << configs.status();
  ASSERT_EQ(configs->size(), 4u);
  EXPECT_EQ((*configs)[0].policy, VersionPolicy::kSpecific);
  EXPECT_EQ((*configs)[0].versions, (std::vector<int64_t>{42, 43}));
  EXPECT_EQ((*configs)[0].labels, (std::map<std::string, int64_t>{{"canary", 43}, {"stable", 42}}));
  EXPECT_EQ((*configs)[1].policy, VersionPolicy::kAll);
  EXPECT_EQ((*configs)[2].policy, VersionPolicy::kLatest);
  EXPECT_EQ((*configs)[2].num_versions, 2);
  EXPECT_EQ((*configs)[3].policy, VersionPolicy::kLatest);
  EXPECT_EQ((*configs)[3].num_versions, 1);
  EXPECT_EQ((*configs)[3].base_path, "/m/d");
}

TEST(ModelConfigProtoTest, RejectsWithTfServingMessages) {
  EXPECT_EQ(FromText("").status().message(),
            "only model_config_list is supported (custom_model_config is not)");
  EXPECT_EQ(FromText(R"pb(model_config_list {
                config { name: "a" base_path: "/x" model_platform: "tensorflow" }
                config { name: "a" base_path: "/y" model_platform: "tensorflow" } })pb")
                .status()
                .message(),
            "Illegal to list model a multiple times in config list");
  EXPECT_EQ(FromText(R"pb(model_config_list {
                config { name: "a" base_path: "rel" model_platform: "tensorflow" } })pb")
                .status()
                .message(),
            "Expected model a to have an absolute path or URI; got base_path()=rel");
  EXPECT_EQ(FromText(R"pb(model_config_list { config { name: "a" base_path: "/x" } })pb")
                .status()
                .message(),
            "Illegal setting neither ModelServerConfig::model_type (deprecated) nor "
            "ModelServerConfig::model_platform, model name is a");
  EXPECT_EQ(FromText(R"pb(model_config_list {
                config { name: "a" base_path: "/x" model_platform: "onnx" } })pb")
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ModelConfigProtoTest, DevicePolicyIsReadAndChecked) {
  auto configs = FromText(R"pb(
    model_config_list {
      config { name: "a" base_path: "/m/a" model_platform: "tensorflow" device_policy: "gpu:1" }
      config { name: "b" base_path: "/m/b" model_platform: "tensorflow" device_policy: "cpu" }
      config { name: "c" base_path: "/m/c" model_platform: "tensorflow" }
    })pb");
  ASSERT_TRUE(configs.ok()) << configs.status();
  ASSERT_EQ(configs->size(), 3u);
  ASSERT_TRUE((*configs)[0].device_policy.has_value());
  EXPECT_EQ((*configs)[0].device_policy->ToString(), "gpu:1");
  EXPECT_EQ((*configs)[1].device_policy->ToString(), "cpu");
  EXPECT_FALSE((*configs)[2].device_policy.has_value());  // the flag's

  auto bad = FromText(R"pb(
    model_config_list {
      config { name: "a" base_path: "/m/a" model_platform: "tensorflow" device_policy: "tpu" }
    })pb");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "model a: device policy 'tpu' is not one of auto, cpu, gpu, gpu:N");
}

TEST(ModelConfigProtoTest, PrecisionIsReadAndChecked) {
  auto configs = FromText(R"pb(
    model_config_list {
      config { name: "a" base_path: "/m/a" model_platform: "tensorflow" precision: "bf16" }
      config { name: "b" base_path: "/m/b" model_platform: "tensorflow" precision: "fp32" }
      config { name: "c" base_path: "/m/c" model_platform: "tensorflow" }
    })pb");
  ASSERT_TRUE(configs.ok()) << configs.status();
  ASSERT_EQ(configs->size(), 3u);
  EXPECT_EQ((*configs)[0].precision, ComputePrecision::kBfloat16);
  EXPECT_EQ((*configs)[1].precision, ComputePrecision::kFloat32);
  EXPECT_FALSE((*configs)[2].precision.has_value());  // the flag's

  auto bad = FromText(R"pb(
    model_config_list {
      config { name: "a" base_path: "/m/a" model_platform: "tensorflow" precision: "fp16" }
    })pb");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "model a: precision 'fp16' is not one of fp32, bf16");
}

TEST(ModelConfigProtoTest, FileErrorsNameTheFile) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/bad_models.config";
  std::ofstream(path) << "model_config_list { config { name: ";
  auto configs = ReadModelConfigFile(path);
  EXPECT_EQ(configs.status().message(),
            "invalid model config file " + path + ": not a text-format ModelServerConfig");
  EXPECT_EQ(ReadModelConfigFile(path + ".missing").status().message(),
            "invalid model config file " + path + ".missing: cannot open the file");
}

}  // namespace
}  // namespace tensord
