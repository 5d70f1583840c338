// End-to-end tests of SavedModelBundle with the real kernels: TF Serving's own test models
// (when ../shared is present) with their documented results, and failure modes — corrupt or
// missing files, unsupported ops, bad feeds — which must be clear errors, never crashes.
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/saved_model/loader.h"

namespace tensord {
namespace {

namespace fs = std::filesystem;

std::string SharedModels() {
  const char* env = std::getenv("TENSORD_SHARED_DIR");
  return env == nullptr ? "" : std::string(env) + "/testdata/tfserving/servables/tensorflow/testdata/";
}

bool HaveShared() { return !SharedModels().empty() && fs::exists(SharedModels()); }

// Our own committed model (tests/testdata), available in every checkout.
const char kLinearModel[] = "tests/testdata/tf1_linear/1";

Tensor Floats(const std::vector<float>& v, TensorShape shape) {
  Tensor t(DT_FLOAT, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

void ExpectFloats(const Tensor& t, const std::vector<float>& want) {
  ASSERT_EQ(t.dtype(), DT_FLOAT) << t.DebugString();
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(want.size())) << t.DebugString();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(t.data<float>()[i], want[i]) << i;
}

std::unique_ptr<SavedModelBundle> LoadOrDie(const std::string& dir) {
  auto bundle = SavedModelBundle::Load(dir, LoadOptions());
  EXPECT_TRUE(bundle.ok()) << dir << ": " << bundle.status();
  return bundle.ok() ? std::move(*bundle) : nullptr;
}

// A scratch copy of a model directory that a test may damage.
std::string CopyModel(const std::string& src, const std::string& name) {
  const std::string dst = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dst);
  fs::copy(src, dst, fs::copy_options::recursive);
  return dst;
}

void Truncate(const std::string& path, size_t keep) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  in.close();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), keep);
}

void FlipByte(const std::string& path, size_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset);
  char c;
  f.get(c);
  f.seekp(offset);
  f.put(static_cast<char>(c ^ 0x5a));
}

// The common half_plus_two family: y = 0.5x + 2 and friends (README §2, §5).
TEST(TfServingModelsTest, HalfPlusTwoVariantsPredict) {
  if (!HaveShared()) GTEST_SKIP() << "reference data ../shared is not beside this checkout";
  for (const char* name :
       {"saved_model_half_plus_two_cpu", "saved_model_half_plus_two_2_versions/00000124",
        "saved_model_half_plus_two_gpu", "saved_model_half_plus_two_gpu_trt",
        "saved_model_half_plus_two_mkl", "saved_model_half_plus_two_mlmd",
        "saved_model_half_plus_two_cpu_with_saved_model_config",
        "saved_model_half_plus_two_cpu_with_empty_saved_model_config"}) {
    SCOPED_TRACE(name);
    std::string dir = SharedModels() + name;
    if (fs::exists(dir + "/00000123")) dir += "/00000123";
    auto bundle = LoadOrDie(dir);
    ASSERT_NE(bundle, nullptr);
    auto out = bundle->RunSignature("serving_default", {{"x", Floats({1, 2, 5}, {3, 1})}});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectFloats(out->at("y"), {2.5, 3.0, 4.5});
    if (std::string(name) == "saved_model_half_plus_two_mkl") {
      // Its y3 adds a [1,10,10,1] conv branch, so one example broadcasts to that shape.
      out = bundle->RunSignature("regress_x2_to_y3", {{"inputs", Floats({2}, {1, 1})}});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(out->at("outputs").shape(), TensorShape({1, 10, 10, 1}));
      ExpectFloats(out->at("outputs"), std::vector<float>(100, 4.0f));
      continue;
    }
    out = bundle->RunSignature("regress_x2_to_y3", {{"inputs", Floats({0, 2}, {2, 1})}});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectFloats(out->at("outputs"), {3.0, 4.0});
  }
}

TEST(TfServingModelsTest, HalfPlusThreeAndMatrixAndTf2) {
  if (!HaveShared()) GTEST_SKIP() << "reference data ../shared is not beside this checkout";
  auto three = LoadOrDie(SharedModels() + "saved_model_half_plus_three/00000123");
  ASSERT_NE(three, nullptr);
  auto out = three->RunSignature("serving_default", {{"x", Floats({1, 2, 5}, {3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectFloats(out->at("y"), {3.5, 4.0, 5.5});
  EXPECT_FALSE(three->has_mutable_state());  // its variables are frozen: runs are independent

  auto matrix = LoadOrDie(SharedModels() + "../../../batching/testdata/matrix_half_plus_two/1");
  ASSERT_NE(matrix, nullptr);
  out = matrix->RunSignature("serving_default",
                             {{"x", Floats(std::vector<float>(9, 1.0f), {1, 3, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectFloats(out->at("y"), std::vector<float>(9, 2.5f));

  auto tf2 = LoadOrDie(SharedModels() + "saved_model_half_plus_two_tf2_cpu/00000123");
  ASSERT_NE(tf2, nullptr);
  out = tf2->RunSignature("serving_default", {{"x", Floats({1}, {1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectFloats(out->at("y"), {2.5});
  out = tf2->RunSignature("serving_default", {});  // PlaceholderWithDefault: x = [0]
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectFloats(out->at("y"), {2.0});
}

TEST(TfServingModelsTest, CounterKeepsStateAcrossRuns) {
  if (!HaveShared()) GTEST_SKIP() << "reference data ../shared is not beside this checkout";
  auto counter = LoadOrDie(SharedModels() + "saved_model_counter/00000123");
  ASSERT_NE(counter, nullptr);
  EXPECT_TRUE(counter->has_mutable_state());
  auto run = [&](const std::string& sig, std::map<std::string, Tensor> in = {}) {
    auto out = counter->RunSignature(sig, in);
    EXPECT_TRUE(out.ok()) << sig << ": " << out.status();
    return out.ok() ? out->at("output").scalar<float>() : -1.0f;
  };
  EXPECT_EQ(run("get_counter"), 0.0f);
  EXPECT_EQ(run("incr_counter"), 1.0f);
  EXPECT_EQ(run("incr_counter"), 2.0f);
  EXPECT_EQ(run("get_counter"), 2.0f);
  EXPECT_EQ(run("incr_counter_by", {{"delta", Tensor::Scalar<float>(3)}}), 5.0f);
  EXPECT_EQ(run("reset_counter"), 0.0f);
  EXPECT_EQ(run("get_counter"), 0.0f);
}

TEST(TfServingModelsTest, LegacySessionBundleFailsCleanly) {
  if (!HaveShared()) GTEST_SKIP() << "reference data ../shared is not beside this checkout";
  auto bundle = SavedModelBundle::Load(SharedModels() + "bad_half_plus_two/00000123", {});
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(bundle.status().message().find("SavedModel .pb"), std::string::npos);
}

// The load-time passes (zero pads and batch norm folded into convolutions, bias and activation
// fused, elementwise ops fused, pass-through nodes removed), the restore of only the variables
// serving reads and the release of those it no longer reads must not change any result: the
// optimised bundle answers like the plain one.
// Runs `optimized` and the same model loaded without optimisation on `inputs`, twice (the
// second run uses the cached plans and weights), and expects the same outputs.
void ExpectAnswersLikeThePlainGraph(const SavedModelBundle& optimized,
                                    const std::map<std::string, Tensor>& inputs) {
  LoadOptions plain_options;
  plain_options.optimize = false;
  auto plain = SavedModelBundle::Load(optimized.export_dir(), plain_options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  for (int run = 0; run < 2; ++run) {
    auto got = optimized.RunSignature("serving_default", inputs);
    auto want = (*plain)->RunSignature("serving_default", inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(want.ok()) << want.status();
    for (const auto& [alias, tensor] : *want) {
      const Tensor& g = got->at(alias);
      ASSERT_EQ(g.shape(), tensor.shape()) << alias;
      for (int64_t i = 0; i < tensor.NumElements(); ++i) {
        const float w = tensor.data<float>()[i];
        EXPECT_NEAR(g.data<float>()[i], w, 1e-6 + 1e-5 * std::abs(w)) << alias << " " << i;
      }
    }
  }
}

TEST(LoaderOptimizationTest, OptimizedModelAnswersLikeThePlainGraph) {
  auto optimized = LoadOrDie("tests/testdata/cnn_small/1");
  ASSERT_NE(optimized, nullptr);
  EXPECT_GT(optimized->rewrites("fold_pad_into_conv"), 0);
  EXPECT_GT(optimized->rewrites("fold_affine_into_conv"), 0);
  EXPECT_GT(optimized->rewrites("fuse_bias_activation"), 0);
  EXPECT_GT(optimized->rewrites("eliminate_identities"), 0);
  EXPECT_GT(optimized->released_variables(), 0);
  EXPECT_GT(optimized->skipped_top_level_nodes(), 0);  // the save function's call, for one
  EXPECT_GT(optimized->pruned_nodes(), 0);  // the restore op and the reads behind the constants
  EXPECT_GT(optimized->skipped_restores(), 0);  // Keras 3 writes each variable twice
  const auto signatures = optimized->signatures();
  const auto& input = *signatures.at("serving_default").inputs().begin();
  Tensor x(DT_FLOAT, {3, 32, 32, 3});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = ((i * 7919) % 201) / 100.0f - 1.0f;
  ExpectAnswersLikeThePlainGraph(*optimized, {{input.first, x}});
}

// The LSTM and GRU steps run as While bodies: their gates fuse into _FusedElementwise nodes and
// their weights are read before the loops.
TEST(LoaderOptimizationTest, RecurrentCellsFuseAndAnswerLikeThePlainGraph) {
  auto optimized = LoadOrDie("tests/testdata/keras_rnn/1");
  ASSERT_NE(optimized, nullptr);
  EXPECT_GT(optimized->rewrites("fuse_elementwise"), 0);
  // Seven loops (LSTM, GRU, two directions, two stacked, masked GRU) in each of the two
  // signatures' functions, each reading its kernel, recurrent kernel and bias once instead of
  // on every step.
  EXPECT_EQ(optimized->rewrites("hoist_loop_invariant_reads"), 2 * 7 * 3);
  std::map<std::string, Tensor> inputs;
  const auto signatures = optimized->signatures();
  for (const auto& [alias, info] : signatures.at("serving_default").inputs()) {
    std::vector<int64_t> dims;
    for (const auto& d : info.tensor_shape().dim()) dims.push_back(d.size() < 0 ? 2 : d.size());
    Tensor t(info.dtype(), TensorShape(dims));
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if (info.dtype() == DT_FLOAT) t.data<float>()[i] = ((i * 7919) % 201) / 100.0f - 1.0f;
      if (info.dtype() == DT_INT32) t.data<int32_t>()[i] = static_cast<int32_t>(i % 5);
      if (info.dtype() == DT_INT64) t.data<int64_t>()[i] = i % 5;
    }
    inputs[alias] = t;
  }
  ExpectAnswersLikeThePlainGraph(*optimized, inputs);
}

TEST(LoaderErrorsTest, MissingDirectoryAndWrongTags) {
  auto bundle = SavedModelBundle::Load("/nonexistent/model/1", {});
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kNotFound);

  LoadOptions options;
  options.tags = {"serve", "gpu"};
  bundle = SavedModelBundle::Load(kLinearModel, options);
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(bundle.status().message().find("{serve}"), std::string::npos) << bundle.status();
}

TEST(LoaderErrorsTest, TruncatedSavedModelPb) {
  const std::string dir = CopyModel(kLinearModel, "truncated_pb");
  Truncate(dir + "/saved_model.pb", 100);
  auto bundle = SavedModelBundle::Load(dir, {});
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(bundle.status().message().find("saved_model.pb"), std::string::npos);
}

TEST(LoaderErrorsTest, CorruptCheckpointData) {
  const std::string dir = CopyModel(kLinearModel, "corrupt_data");
  FlipByte(dir + "/variables/variables.data-00000-of-00001", 3);
  auto bundle = SavedModelBundle::Load(dir, {});
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kDataLoss) << bundle.status();
}

TEST(LoaderErrorsTest, TruncatedIndexAndMissingShard) {
  std::string dir = CopyModel(kLinearModel, "truncated_index");
  Truncate(dir + "/variables/variables.index", 20);
  auto bundle = SavedModelBundle::Load(dir, {});
  ASSERT_FALSE(bundle.ok());
  EXPECT_NE(bundle.status().message().find("variables.index"), std::string::npos)
      << bundle.status();

  dir = CopyModel(kLinearModel, "missing_shard");
  fs::remove(dir + "/variables/variables.data-00000-of-00001");
  bundle = SavedModelBundle::Load(dir, {});
  ASSERT_FALSE(bundle.ok());
  EXPECT_NE(bundle.status().message().find("variables.data-00000-of-00001"), std::string::npos)
      << bundle.status();
}

TEST(LoaderErrorsTest, UnsupportedOpNamesOpAndNode) {
  const std::string dir = CopyModel(kLinearModel, "unknown_op");
  ::tensorflow::SavedModel model;
  ASSERT_TRUE(ReadSavedModel(dir, &model).ok());
  auto* graph = model.mutable_meta_graphs(0)->mutable_graph_def();
  // Re-route the signature output through an op no runtime knows.
  auto& sig = (*model.mutable_meta_graphs(0)->mutable_signature_def())["serving_default"];
  const std::string out_tensor = sig.outputs().begin()->second.name();
  auto* node = graph->add_node();
  node->set_name("mystery_node");
  node->set_op("FancyNewOp");
  node->add_input(out_tensor);
  (*sig.mutable_outputs()->begin()).second.set_name("mystery_node:0");
  std::ofstream(dir + "/saved_model.pb", std::ios::binary | std::ios::trunc)
      << model.SerializeAsString();
  // Regression: the load succeeded and every request then failed; now the load fails and
  // names what is missing.
  auto bundle = SavedModelBundle::Load(dir, {});
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(bundle.status().message().find("no kernel for: FancyNewOp (node mystery_node)"),
            std::string::npos)
      << bundle.status();
}

TEST(LoaderErrorsTest, BadFeeds) {
  auto bundle = LoadOrDie(kLinearModel);
  ASSERT_NE(bundle, nullptr);
  const auto sig = bundle->signatures().at("serving_default");
  const std::string alias = sig.inputs().begin()->first;
  const int64_t width = sig.inputs().begin()->second.tensor_shape().dim(1).size();

  // Wrong dtype.
  auto out = bundle->RunSignature("serving_default", {{alias, Tensor::Scalar<std::string>("a")}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("expects float but got string"), std::string::npos)
      << out.status();
  // Wrong shape: the inner dimension does not match the weights.
  out = bundle->RunSignature("serving_default", {{alias, Tensor(DT_FLOAT, {2, width + 3})}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  // Missing feed.
  out = bundle->RunSignature("serving_default", {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("must feed a value"), std::string::npos) << out.status();
  // Unknown alias and unknown signature.
  out = bundle->RunSignature("serving_default", {{"nope", Tensor(DT_FLOAT, {1, width})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  out = bundle->RunSignature("nope", {});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(out.status().message(), "Serving signature key \"nope\" not found.");
  // And the model still serves.
  out = bundle->RunSignature("serving_default", {{alias, Tensor(DT_FLOAT, {2, width})}});
  EXPECT_TRUE(out.ok()) << out.status();
}

}  // namespace
}  // namespace tensord
