#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Bundles written by TensorFlow (runtime/saved_model/testdata/make_bundles.py).
std::string Testdata(const std::string& name) {
  return absl::StrCat(std::getenv("TEST_SRCDIR"), "/", std::getenv("TEST_WORKSPACE"),
                      "/runtime/saved_model/testdata/", name);
}

std::string TmpDir(const std::string& name) {
  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

Tensor Strings(const std::vector<std::string>& values) {
  return AsTensor<std::string>(values, {static_cast<int64_t>(values.size())});
}

absl::StatusOr<std::vector<Tensor>> Restore(const std::string& prefix,
                                            const std::vector<std::string>& names,
                                            const std::vector<DataType>& dtypes,
                                            DeviceType device = DeviceType::kCpu,
                                            std::vector<bool> outputs_read = {}) {
  return RunKernel(NodeBuilder("RestoreV2", "save/RestoreV2").Attr("dtypes", dtypes).Build(),
                   {Tensor::Scalar<std::string>(prefix), Strings(names),
                    Strings(std::vector<std::string>(names.size()))},
                   device, std::move(outputs_read));
}

TEST(RestoreV2Test, RestoresSeveralDtypes) {
  for (DeviceType device : TestDevices()) {
    auto out =
        Restore(Testdata("dtypes"), {"float32", "int64", "string", "bool", "half", "float32/empty"},
                {DT_FLOAT, DT_INT64, DT_STRING, DT_BOOL, DT_HALF, DT_FLOAT}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 6u);
    ExpectTensorEqual((*out)[0],
                      AsTensor<float>({0.5f, -1.25f, 3.0f, 1e-8f, 65504.0f, -0.0f}, {2, 3}));
    ExpectTensorEqual((*out)[1],
                      AsTensor<int64_t>({int64_t{1} << 40, -1, -(int64_t{1} << 62)}, {3}));
    ExpectTensorEqual((*out)[2],
                      Strings({"", "hello", std::string(200, 'x'), std::string("\0\xff", 2)}));
    ExpectTensorEqual((*out)[3], AsTensor<bool>({true, false, true, true}, {4}));
    ExpectTensorEqual((*out)[4],
                      AsTensor<Eigen::half>({Eigen::half(1.5f), Eigen::half(-2.25f),
                                             Eigen::half(65504.0f), Eigen::half(0.0001f)},
                                            {4}));
    ExpectTensorEqual((*out)[5], Tensor(DT_FLOAT, TensorShape{0, 3}));
  }
}

TEST(RestoreV2Test, RestoresAcrossShards) {
  auto out = Restore(Testdata("sharded"), {"w1", "s0", "w0"}, {DT_INT64, DT_STRING, DT_FLOAT});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<int64_t>({10, 20, 30}, {3}));
  ExpectTensorEqual((*out)[1], Strings({"shard", "zero"}));
  ExpectTensorEqual((*out)[2], AsTensor<float>({1, 2}, {2}));
}

TEST(RestoreV2Test, ObjectBasedCheckpointKeys) {
  auto out = Restore(Testdata("object"),
                     {"v/.ATTRIBUTES/VARIABLE_VALUE", "step/.ATTRIBUTES/VARIABLE_VALUE",
                      "_CHECKPOINTABLE_OBJECT_GRAPH"},
                     {DT_FLOAT, DT_INT64, DT_STRING});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({1, 2, 3}, {3}));
  ExpectTensorEqual((*out)[1], Tensor::Scalar<int64_t>(7));
  EXPECT_EQ((*out)[2].dims(), 0);
  EXPECT_FALSE((*out)[2].scalar<std::string>().empty());
}

TEST(RestoreV2Test, DtypeMismatchNamesTheKey) {
  auto out = Restore(Testdata("dtypes"), {"float32", "int32"}, {DT_FLOAT, DT_INT64});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("save/RestoreV2"));
  EXPECT_THAT(out.status().message(), HasSubstr("'int32'"));
  EXPECT_THAT(out.status().message(), HasSubstr("expected dtype int64"));
}

TEST(RestoreV2Test, MissingKeyAndMissingBundle) {
  auto key = Restore(Testdata("dtypes"), {"no/such/key"}, {DT_FLOAT});
  EXPECT_EQ(key.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(key.status().message(), HasSubstr("'no/such/key'"));

  auto bundle = Restore(Testdata("no_such_bundle"), {"a"}, {DT_FLOAT});
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(bundle.status().message(), HasSubstr("no_such_bundle.index"));
}

TEST(RestoreV2Test, CorruptDataIsDataLoss) {
  const std::string dir = TmpDir("corrupt");
  for (const char* suffix : {".index", ".data-00000-of-00001"}) {
    fs::copy_file(Testdata(std::string("dtypes") + suffix), dir + "/dtypes" + suffix);
  }
  fs::permissions(dir + "/dtypes.data-00000-of-00001",
                  fs::perms::owner_read | fs::perms::owner_write);
  {
    std::fstream data(dir + "/dtypes.data-00000-of-00001",
                      std::ios::in | std::ios::out | std::ios::binary);
    data.seekp(0);  // the first tensor written (keys are saved in sorted order: "bfloat16")
    data.put('\x55');
  }
  auto out = Restore(dir + "/dtypes", {"bfloat16"}, {DT_BFLOAT16});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(out.status().message(), HasSubstr("Checksum does not match"));
  EXPECT_THAT(out.status().message(), HasSubstr("for key 'bfloat16'"));
  EXPECT_TRUE(Restore(dir + "/dtypes", {"int8"}, {DT_INT8}).ok());
  // An entry the run does not read is not read from the file (its checksum never checked).
  auto unread = Restore(dir + "/dtypes", {"bfloat16", "int8"}, {DT_BFLOAT16, DT_INT8},
                        DeviceType::kCpu, {false, true});
  ASSERT_TRUE(unread.ok()) << unread.status();
  ASSERT_EQ(unread->size(), 2u);
  EXPECT_FALSE((*unread)[0].IsInitialized());
  EXPECT_EQ((*unread)[1].dtype(), DT_INT8);
}

TEST(RestoreV2Test, SlicesAreUnimplemented) {
  auto out =
      RunKernel(NodeBuilder("RestoreV2").Attr("dtypes", std::vector<DataType>{DT_FLOAT}).Build(),
                {Tensor::Scalar<std::string>(Testdata("dtypes")), Strings({"float32"}),
                 Strings({"2 3 0,1:-"})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("sliced restore"));
}

TEST(RestoreV2Test, V1CheckpointIsUnimplemented) {
  const std::string v1 = TmpDir("v1") + "/model.ckpt";
  std::ofstream(v1) << "not a V2 bundle";
  auto out = Restore(v1, {"a"}, {DT_FLOAT});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("V1 checkpoint"));
}

TEST(RestoreV2Test, BadInputs) {
  const ::tensorflow::NodeDef node =
      NodeBuilder("RestoreV2").Attr("dtypes", std::vector<DataType>{DT_FLOAT, DT_FLOAT}).Build();
  const Tensor prefix = Tensor::Scalar<std::string>(Testdata("dtypes"));
  const std::vector<std::vector<Tensor>> cases = {
      {Strings({Testdata("dtypes")}), Strings({"a", "b"}), Strings({"", ""})},  // prefix rank 1
      {prefix, Strings({"a"}), Strings({"", ""})},                              // 1 name, 2 dtypes
      {prefix, Strings({"a", "b"}), Strings({""})},
      {prefix, AsTensor<int32_t>({1, 2}, {2}), Strings({"", ""})},
  };
  for (const auto& inputs : cases) {
    EXPECT_EQ(RunKernel(node, inputs).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(CheckpointOpsTest, SaveAndV1OpsLoadButDoNotRun) {
  const std::vector<std::pair<std::string, std::string>> ops = {
      {"SaveV2", "never writes"},
      {"Save", "never writes"},
      {"SaveSlices", "never writes"},
      {"MergeV2Checkpoints", "never writes"},
      {"Restore", "V1"},
      {"RestoreSlice", "V1"}};
  for (const auto& [op, message] : ops) {
    auto out = RunKernel(NodeBuilder(op, "save/" + op).Build(), {});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << op;
    EXPECT_THAT(out.status().message(), HasSubstr("save/" + op));
    EXPECT_THAT(out.status().message(), HasSubstr(message));
  }
}

TEST(CheckpointOpsTest, ShardedFilenameAndFilespec) {
  // Reference strings from TensorFlow (tf.raw_ops.ShardedFilename / ShardedFilespec).
  const ::tensorflow::NodeDef filename = NodeBuilder("ShardedFilename").Build();
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(filename,
                         {Tensor::Scalar<std::string>("foo/bar"), Tensor::Scalar<int32_t>(3),
                          Tensor::Scalar<int32_t>(12)},
                         device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Tensor::Scalar<std::string>("foo/bar-00003-of-00012"));
  }
  auto wide = RunKernel(filename, {Tensor::Scalar<std::string>("foo/bar"),
                                   Tensor::Scalar<int32_t>(123456), Tensor::Scalar<int32_t>(-1)});
  ASSERT_TRUE(wide.ok()) << wide.status();
  ExpectTensorEqual((*wide)[0], Tensor::Scalar<std::string>("foo/bar-123456-of--0001"));
  EXPECT_EQ(RunKernel(filename, {Tensor::Scalar<std::string>("foo/bar"),
                                 AsTensor<int32_t>({1}, {1}), Tensor::Scalar<int32_t>(2)})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);

  auto spec = RunKernel(NodeBuilder("ShardedFilespec").Build(),
                        {Tensor::Scalar<std::string>("foo/bar"), Tensor::Scalar<int32_t>(12)});
  ASSERT_TRUE(spec.ok()) << spec.status();
  ExpectTensorEqual((*spec)[0], Tensor::Scalar<std::string>("foo/bar-?????"
                                                            "-of-00012"));
}

}  // namespace
}  // namespace testing
}  // namespace tensord
