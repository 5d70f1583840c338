#include "server/model/model_manager.h"

#include "runtime/framework/device_set.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>
#include <algorithm>
#include <chrono>

namespace tensord {
namespace {

namespace fs = std::filesystem;

// A fresh base path under TEST_TMPDIR with version dirs made of the committed keras_mlp model
// (symlinked) and bad versions (empty directories: no saved_model.pb).
fs::path MakeBase(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path base = fs::path(tmp != nullptr ? tmp : "/tmp") / name;
  fs::remove_all(base);
  fs::create_directories(base);
  return base;
}

void LinkGood(const fs::path& base, const std::string& version) {
  fs::create_directory_symlink(fs::absolute("tests/testdata/keras_mlp/1"), base / version);
}

// The versions of `name`, once none is LOADING any more (retries run in the background).
std::vector<VersionStatus> SettledStatus(const ModelManager& manager, const std::string& name) {
  for (;;) {
    auto statuses = manager.GetVersionStatus(name, std::nullopt);
    if (!statuses.ok()) return {};
    if (std::none_of(statuses->begin(), statuses->end(), [](const VersionStatus& s) {
          return s.state == VersionState::kLoading;
        })) {
      return *statuses;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Bad versions in these tests fail for good; TF Serving's default retries would only slow them.
ModelManagerOptions NoRetries() {
  ModelManagerOptions options;
  options.max_num_load_retries = 0;
  return options;
}

TEST(ModelManagerTest, ScanFindsNumericDirsOnly) {
  fs::path base = MakeBase("scan");
  fs::create_directories(base / "00000123");
  fs::create_directories(base / "7");
  fs::create_directories(base / "tmp");
  fs::create_directories(base / "12a");
  std::ofstream(base / "99") << "file, not dir";
  auto dirs = ScanVersionDirs(base.string());
  ASSERT_TRUE(dirs.ok()) << dirs.status();
  ASSERT_EQ(dirs->size(), 2u);
  EXPECT_EQ((*dirs)[0].first, 7);
  EXPECT_EQ((*dirs)[1].first, 123);
  EXPECT_EQ(ScanVersionDirs((base / "missing").string()).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(ModelManagerTest, LoadsHighestVersionOnly) {
  fs::path base = MakeBase("highest");
  LinkGood(base, "1");
  LinkGood(base, "3");
  ModelManager manager(NoRetries());
  ASSERT_TRUE(manager.AddModel("mlp", base.string()).ok());
  auto handle = manager.GetServable("mlp", std::nullopt);
  ASSERT_TRUE(handle.ok()) << handle.status();
  EXPECT_EQ(handle->version, 3);
  EXPECT_NE(handle->bundle, nullptr);
  auto status = manager.GetVersionStatus("mlp", std::nullopt);
  ASSERT_TRUE(status.ok());
  ASSERT_EQ(status->size(), 1u);
  EXPECT_EQ((*status)[0].state, VersionState::kAvailable);
  auto v1 = manager.GetServable("mlp", 1);
  EXPECT_EQ(v1.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(v1.status().message(), "Servable not found for request: Specific(mlp, 1)");
}

TEST(ModelManagerTest, BadVersionEndsWithErrorAndOthersServe) {
  fs::path base = MakeBase("bad");
  LinkGood(base, "1");
  fs::create_directories(base / "5");  // no saved_model.pb
  ModelManagerOptions options = NoRetries();
  options.num_versions = 2;
  ModelManager manager(options);
  ASSERT_TRUE(manager.AddModel("m", base.string()).ok());
  auto status = manager.GetVersionStatus("m", std::nullopt);
  ASSERT_TRUE(status.ok());
  ASSERT_EQ(status->size(), 2u);
  EXPECT_EQ((*status)[0].version, 5);  // descending
  EXPECT_EQ((*status)[0].state, VersionState::kEnd);
  EXPECT_FALSE((*status)[0].status.ok());
  EXPECT_EQ((*status)[1].version, 1);
  EXPECT_EQ((*status)[1].state, VersionState::kAvailable);
  auto handle = manager.GetServable("m", std::nullopt);
  ASSERT_TRUE(handle.ok());
  EXPECT_EQ(handle->version, 1);
}

TEST(ModelManagerTest, OnlyBadVersionMeansNotFound) {
  fs::path base = MakeBase("onlybad");
  LinkGood(base, "1");
  fs::create_directories(base / "2");
  ModelManager manager(NoRetries());  // num_versions = 1: only 2 is tried
  ASSERT_TRUE(manager.AddModel("m", base.string()).ok());
  auto handle = manager.GetServable("m", std::nullopt);
  EXPECT_EQ(handle.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(handle.status().message(), "Servable not found for request: Latest(m)");
  auto one = manager.GetVersionStatus("m", 1);
  EXPECT_EQ(one.status().message(), "Could not find version 1 of model m");
}

TEST(ModelManagerTest, UnknownAndDuplicateModels) {
  ModelManager manager(NoRetries());
  EXPECT_EQ(manager.GetServable("nope", std::nullopt).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(manager.GetVersionStatus("nope", std::nullopt).status().message(),
            "Could not find any versions of model nope");
  EXPECT_EQ(manager.AddModel("x", "/nonexistent/path").code(), absl::StatusCode::kNotFound);
  fs::path base = MakeBase("dup");
  LinkGood(base, "1");
  ASSERT_TRUE(manager.AddModel("m", base.string()).ok());
  EXPECT_EQ(manager.AddModel("m", base.string()).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(manager.ModelNames(), std::vector<std::string>{"m"});
}

TEST(ModelManagerTest, HandleOutlivesLookup) {
  fs::path base = MakeBase("refcount");
  LinkGood(base, "1");
  std::shared_ptr<const SavedModelBundle> held;
  {
    ModelManager manager(NoRetries());
    ASSERT_TRUE(manager.AddModel("m", base.string()).ok());
    held = manager.GetServable("m", std::nullopt)->bundle;
  }
  ASSERT_NE(held, nullptr);
  EXPECT_FALSE(held->signatures().empty());
}

TEST(ModelManagerTest, PoliciesAllAndSpecificAndLabels) {
  fs::path base = MakeBase("policies");
  LinkGood(base, "1");
  LinkGood(base, "2");
  LinkGood(base, "3");
  ModelManager manager(NoRetries());
  ModelConfig all{"all", base.string(), VersionPolicy::kAll};
  ASSERT_TRUE(manager.AddModel(all).ok());
  auto statuses = manager.GetVersionStatus("all", std::nullopt);
  ASSERT_TRUE(statuses.ok());
  ASSERT_EQ(statuses->size(), 3u);
  EXPECT_EQ((*statuses)[0].version, 3);
  EXPECT_EQ((*statuses)[2].version, 1);
  for (const auto& vs : *statuses) EXPECT_EQ(vs.state, VersionState::kAvailable);

  ModelConfig specific{"specific", base.string(), VersionPolicy::kSpecific};
  specific.versions = {1, 5};
  specific.labels = {{"stable", 1}};
  ASSERT_TRUE(manager.AddModel(specific).ok());
  statuses = manager.GetVersionStatus("specific", std::nullopt);
  ASSERT_TRUE(statuses.ok());
  ASSERT_EQ(statuses->size(), 1u);
  EXPECT_EQ((*statuses)[0].version, 1);
  auto labelled = manager.GetServableByLabel("specific", "stable");
  ASSERT_TRUE(labelled.ok()) << labelled.status();
  EXPECT_EQ(labelled->version, 1);
  EXPECT_EQ(manager.GetServableByLabel("specific", "nope").status().code(),
            absl::StatusCode::kInvalidArgument);

  ModelConfig latest2{"latest2", base.string(), VersionPolicy::kLatest, 2};
  ASSERT_TRUE(manager.AddModel(latest2).ok());
  statuses = manager.GetVersionStatus("latest2", std::nullopt);
  ASSERT_TRUE(statuses.ok());
  ASSERT_EQ(statuses->size(), 2u);
  EXPECT_EQ((*statuses)[1].version, 2);
}

TEST(ModelManagerTest, PollLoadsNewVersionThenUnloadsOld) {
  fs::path base = MakeBase("poll");
  LinkGood(base, "1");
  ModelManager manager(NoRetries());
  ASSERT_TRUE(manager.AddModel("mlp", base.string()).ok());
  auto old_handle = manager.GetServable("mlp", std::nullopt);
  ASSERT_TRUE(old_handle.ok());

  // A failing new version keeps the old one serving (availability preserving).
  fs::create_directories(base / "2");
  manager.Poll();
  auto statuses = manager.GetVersionStatus("mlp", std::nullopt);
  ASSERT_TRUE(statuses.ok());
  ASSERT_EQ(statuses->size(), 2u);
  EXPECT_EQ((*statuses)[0].state, VersionState::kEnd);
  EXPECT_FALSE((*statuses)[0].status.ok());
  EXPECT_EQ((*statuses)[1].state, VersionState::kAvailable);

  LinkGood(base, "3");
  manager.Poll();
  statuses = manager.GetVersionStatus("mlp", std::nullopt);
  ASSERT_TRUE(statuses.ok());
  ASSERT_EQ(statuses->size(), 3u);
  EXPECT_EQ((*statuses)[0].version, 3);
  EXPECT_EQ((*statuses)[0].state, VersionState::kAvailable);
  EXPECT_EQ((*statuses)[2].version, 1);
  EXPECT_EQ((*statuses)[2].state, VersionState::kEnd);
  EXPECT_TRUE((*statuses)[2].status.ok());
  EXPECT_FALSE(manager.GetServable("mlp", 1).ok());
  EXPECT_NE(old_handle->bundle, nullptr);  // the in-flight handle keeps version 1 alive
  EXPECT_EQ(manager.GetServable("mlp", std::nullopt)->version, 3);
  // ... and the last handle to go frees it.
  std::weak_ptr<const SavedModelBundle> old_bundle = old_handle->bundle;
  old_handle = absl::NotFoundError("released");
  EXPECT_TRUE(old_bundle.expired());

  manager.StartPolling(1);
  manager.StopPolling();  // stops promptly
}

TEST(ModelManagerTest, LabelsMayOnlyPointToAvailableVersions) {
  fs::path base = MakeBase("labels");
  LinkGood(base, "1");
  LinkGood(base, "2");
  ModelManager manager(NoRetries());
  ModelConfig config{"m", base.string(), VersionPolicy::kSpecific};
  config.versions = {1, 2};
  config.labels = {{"stable", 1}, {"canary", 2}};
  ASSERT_TRUE(manager.ApplyConfig({config}).ok());  // loaded before the labels apply
  EXPECT_EQ(manager.GetServableByLabel("m", "canary")->version, 2);

  // Moving a label to a version that is not loaded is refused; the old labels stay.
  ModelConfig moved = config;
  moved.labels = {{"stable", 1}, {"canary", 7}};
  absl::Status s = manager.ApplyConfig({moved});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "Request to assign label to version 7 of model m, which is not currently available "
            "for inference");
  EXPECT_EQ(manager.GetServableByLabel("m", "canary")->version, 2);

  // The flag lets a new label point ahead to a version that is not there yet, not an old one.
  ModelManagerOptions options = NoRetries();
  options.allow_version_labels_for_unavailable_models = true;
  ModelManager permissive(options);
  ASSERT_TRUE(permissive.ApplyConfig({config}).ok());
  ModelConfig ahead = config;
  ahead.labels["next"] = 3;
  ASSERT_TRUE(permissive.ApplyConfig({ahead}).ok());
  EXPECT_EQ(permissive.GetServableByLabel("m", "next").status().code(),
            absl::StatusCode::kNotFound);
  ahead.labels["canary"] = 3;
  EXPECT_EQ(permissive.ApplyConfig({ahead}).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ModelManagerTest, ApplyConfigAddsAndRemovesModels) {
  fs::path base = MakeBase("apply");
  LinkGood(base, "1");
  ModelManager manager(NoRetries());
  ModelConfig a{"a", base.string()};
  ModelConfig b{"b", base.string()};
  ASSERT_TRUE(manager.ApplyConfig({a, b}).ok());
  EXPECT_EQ(manager.ModelNames(), (std::vector<std::string>{"a", "b"}));
  auto held = manager.GetServable("a", std::nullopt);
  ASSERT_TRUE(held.ok());

  ASSERT_TRUE(manager.ApplyConfig({b}).ok());
  EXPECT_EQ(manager.ModelNames(), std::vector<std::string>{"b"});
  EXPECT_EQ(manager.GetServable("a", std::nullopt).status().code(), absl::StatusCode::kNotFound);
  auto gone = manager.GetVersionStatus("a", std::nullopt);
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ((*gone)[0].state, VersionState::kEnd);
  EXPECT_TRUE((*gone)[0].status.ok());
  EXPECT_NE(held->bundle, nullptr);
  EXPECT_TRUE(manager.GetServable("b", std::nullopt).ok());

  // A bad base path or a duplicate name changes nothing.
  ModelConfig missing{"c", (base / "missing").string()};
  EXPECT_EQ(manager.ApplyConfig({b, missing}).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(manager.ApplyConfig({b, b}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(manager.ModelNames(), std::vector<std::string>{"b"});

  // Added back, it loads again.
  ASSERT_TRUE(manager.ApplyConfig({a, b}).ok());
  EXPECT_TRUE(manager.GetServable("a", std::nullopt).ok());
}

// A model's own device policy wins over the manager's. On a machine without a GPU, a model
// asking for one is soft-placed on the CPU, node by node, and still serves.
TEST(ModelManagerTest, ModelDevicePolicyOverridesTheManagers) {
  fs::path base = MakeBase("policy");
  LinkGood(base, "1");
  ModelManagerOptions options = NoRetries();
  options.load.placement.policy.kind = DevicePolicy::Kind::kCpu;
  ModelManager manager(options);
  ModelConfig on_gpu{"on_gpu", base.string()};
  on_gpu.device_policy = DevicePolicy{DevicePolicy::Kind::kGpu, 0};
  ModelConfig by_flag{"by_flag", base.string()};
  ASSERT_TRUE(manager.ApplyConfig({on_gpu, by_flag}).ok());

  auto gpu = manager.GetServable("on_gpu", std::nullopt);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  const PlacementRecord& asked = gpu->bundle->placement();
  ASSERT_FALSE(asked.nodes.empty());
  int requested_gpu = 0;
  for (const NodePlacement& node : asked.nodes) {
    requested_gpu += node.requested == "/device:GPU:0" ? 1 : 0;
    if (DeviceSet::ProcessDefault().gpus().empty()) {
      EXPECT_EQ(node.assigned, "/device:CPU:0") << node.node;
    }
  }
  EXPECT_EQ(requested_gpu, static_cast<int>(asked.nodes.size()));  // the MLP pins nothing

  auto cpu = manager.GetServable("by_flag", std::nullopt);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  for (const NodePlacement& node : cpu->bundle->placement().nodes) {
    EXPECT_EQ(node.requested, "/device:CPU:0") << node.node;
    EXPECT_EQ(node.assigned, "/device:CPU:0") << node.node;
  }
  EXPECT_EQ(cpu->bundle->placement().SoftPlaced(), 0);
}

// A model's own precision wins over the manager's; bf16 is what a version runs in only where
// the CPU has bfloat16 arithmetic.
TEST(ModelManagerTest, ModelPrecisionOverridesTheManagers) {
  fs::path base = MakeBase("precision");
  LinkGood(base, "1");
  ModelManagerOptions options = NoRetries();
  options.load.precision = ComputePrecision::kBfloat16;
  ModelManager manager(options);
  ModelConfig fp32{"fp32", base.string()};
  fp32.precision = ComputePrecision::kFloat32;
  ModelConfig by_flag{"by_flag", base.string()};
  ASSERT_TRUE(manager.ApplyConfig({fp32, by_flag}).ok());

  auto kept = manager.GetServable("fp32", std::nullopt);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->bundle->precision(), ComputePrecision::kFloat32);
  EXPECT_EQ(kept->bundle->rewrites("reduced_precision"), 0);
  auto reduced = manager.GetServable("by_flag", std::nullopt);
  ASSERT_TRUE(reduced.ok()) << reduced.status();
  EXPECT_EQ(reduced->bundle->precision(),
            CpuHasBfloat16() ? ComputePrecision::kBfloat16 : ComputePrecision::kFloat32);
  // The MLP's three Dense layers (products fused with bias and activation) in each of its two
  // signatures, serve and serving_default.
  EXPECT_EQ(reduced->bundle->rewrites("reduced_precision"), CpuHasBfloat16() ? 6 : 0);
}

TEST(ModelManagerTest, StateGaugeFollowsVersionsAndForgetsRemovedModels) {
  fs::path base = MakeBase("gauge");
  LinkGood(base, "1");
  MetricRegistry registry;
  ServingMetrics metrics(&registry);
  ModelManagerOptions options = NoRetries();
  options.metrics = &metrics;
  ModelManager manager(options);
  ModelConfig a{"a", base.string()};
  ModelConfig b{"b", base.string()};
  ASSERT_TRUE(manager.ApplyConfig({a, b}).ok());
  EXPECT_EQ(metrics.model_state->Value({"a", "1"}), 30);
  EXPECT_EQ(metrics.model_loads->Value({"a", "ok"}), 1);
  ASSERT_TRUE(manager.ApplyConfig({b}).ok());
  EXPECT_EQ(registry.ExportPrometheus().find("tensord_model_version_state{model=\"a\""),
            std::string::npos);
  EXPECT_EQ(metrics.model_state->Value({"b", "1"}), 30);
}

TEST(ModelManagerTest, UnloadedVersionsLeaveEveryVersionedSeries) {
  fs::path base = MakeBase("pushes");
  LinkGood(base, "1");
  MetricRegistry registry;
  ServingMetrics metrics(&registry);
  ModelManagerOptions options = NoRetries();
  options.metrics = &metrics;
  ModelManager manager(options);
  ASSERT_TRUE(manager.ApplyConfig({ModelConfig{"m", base.string()}}).ok());
  const std::string v1_path = (base / "1").string();
  // What serving version 1 records, as the handlers and the batcher would.
  metrics.requests->Increment({"m", "1", "serving_default", "Predict", "grpc", "OK"});
  metrics.request_duration->Observe({"m", "1", "serving_default", "Predict", "grpc"}, 0.01);
  metrics.batch_queue_depth->Set({"m", "1", "serving_default"}, 0);
  metrics.model_warmup_latency->Observe({v1_path, "OK"}, 10);
  EXPECT_EQ(metrics.load_attempt_count->Value({v1_path, "success"}), 1);

  // Pushing versions 2 and then 3 unloads each predecessor and its series.
  for (const char* version : {"2", "3"}) {
    LinkGood(base, version);
    manager.Poll();
  }
  const std::string exposition = registry.ExportPrometheus();
  for (const std::string& gone : {std::string("version=\"1\""), std::string("version=\"2\""),
                                  "model_path=\"" + v1_path + "\""}) {
    EXPECT_EQ(exposition.find(gone), std::string::npos) << gone << " in\n" << exposition;
  }
  EXPECT_EQ(metrics.model_state->Value({"m", "3"}), 30);
  EXPECT_EQ(metrics.load_attempt_count->Value({(base / "3").string(), "success"}), 1);
  // Model-level series stay: three loads happened.
  EXPECT_EQ(metrics.model_loads->Value({"m", "ok"}), 3);
}

TEST(ModelManagerTest, RetriesRunTheHookAgainAndParallelLoadsFinish) {
  fs::path base = MakeBase("retries");
  LinkGood(base, "1");
  LinkGood(base, "2");
  LinkGood(base, "3");
  std::atomic<int> calls{0};
  ModelManagerOptions options;
  options.max_num_load_retries = 2;
  options.load_retry_interval = absl::Milliseconds(10);
  options.num_load_threads = 3;
  // Version 3 fails twice and then warms up; version 2 always fails.
  std::map<int64_t, int> failures;
  std::mutex mu;
  options.on_loaded = [&](const ServableHandle& handle) -> absl::Status {
    ++calls;
    std::lock_guard<std::mutex> lock(mu);
    if (handle.version == 2) return absl::InternalError("warmup failed for good");
    if (handle.version == 3 && failures[3]++ < 2) return absl::UnavailableError("flaky");
    return absl::OkStatus();
  };
  ModelManager manager(options);
  ASSERT_TRUE(manager.ApplyConfig({ModelConfig{"m", base.string(), VersionPolicy::kAll}}).ok());
  const std::vector<VersionStatus> statuses = SettledStatus(manager, "m");
  ASSERT_EQ(statuses.size(), 3u);
  EXPECT_EQ(statuses[0].state, VersionState::kAvailable);
  EXPECT_EQ(statuses[1].state, VersionState::kEnd);
  EXPECT_EQ(statuses[1].status.message(), "warmup failed for good");
  EXPECT_EQ(statuses[2].state, VersionState::kAvailable);
  EXPECT_EQ(calls.load(), 3 + 3 + 1);  // v3: 3 attempts, v2: 1 + 2 retries, v1: 1
}

// Regression: loads retried inside ApplyConfig, so one broken model held every other model (and
// the server's start) back for the whole retry schedule, 5 x 60 s by default.
TEST(ModelManagerTest, BrokenModelRetriesInTheBackgroundWhileOthersServe) {
  fs::path good = MakeBase("retry_good");
  LinkGood(good, "1");
  fs::path bad = MakeBase("retry_bad");
  fs::create_directories(bad / "1");  // no saved_model.pb
  ModelManagerOptions options;
  options.max_num_load_retries = 5;
  options.load_retry_interval = absl::Hours(1);  // only the destructor can cut these short
  ModelManager manager(options);
  ASSERT_TRUE(manager.ApplyConfig({ModelConfig{"bad", bad.string()},
                                   ModelConfig{"good", good.string()}})
                  .ok());
  EXPECT_TRUE(manager.GetServable("good", std::nullopt).ok());
  auto bad_status = manager.GetVersionStatus("bad", std::nullopt);
  ASSERT_TRUE(bad_status.ok());
  ASSERT_EQ(bad_status->size(), 1u);
  EXPECT_EQ((*bad_status)[0].state, VersionState::kLoading);

  // Dropping the model from the config ends its retries.
  ASSERT_TRUE(manager.ApplyConfig({ModelConfig{"good", good.string()}}).ok());
  bad_status = manager.GetVersionStatus("bad", std::nullopt);
  ASSERT_TRUE(bad_status.ok());
  EXPECT_EQ((*bad_status)[0].state, VersionState::kEnd);
  EXPECT_EQ((*bad_status)[0].status.code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(manager.GetServable("good", std::nullopt).ok());
}

TEST(ModelManagerTest, RetryServesAVersionRepairedOnDisk) {
  fs::path base = MakeBase("repaired");
  LinkGood(base, "1");
  fs::create_directories(base / "2");  // incomplete: the export is still being copied
  ModelManagerOptions options;
  options.max_num_load_retries = 1000;
  options.load_retry_interval = absl::Milliseconds(20);
  ModelManager manager(options);
  ASSERT_TRUE(manager.AddModel("m", base.string()).ok());
  // The policy (latest 1) wants only version 2, which is still being retried.
  EXPECT_EQ(manager.GetServable("m", std::nullopt).status().code(), absl::StatusCode::kNotFound);
  for (const char* file : {"saved_model.pb", "variables"}) {
    fs::path from = fs::absolute("tests/testdata/keras_mlp/1") / file;
    if (fs::is_directory(from)) {
      fs::create_directory_symlink(from, base / "2" / file);
    } else {
      fs::create_symlink(from, base / "2" / file);
    }
  }
  const std::vector<VersionStatus> statuses = SettledStatus(manager, "m");
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(statuses[0].version, 2);
  EXPECT_EQ(statuses[0].state, VersionState::kAvailable);
  auto handle = manager.GetServable("m", std::nullopt);
  ASSERT_TRUE(handle.ok()) << handle.status();
  EXPECT_EQ(handle->version, 2);
}

int ThreadsOfThisProcess() {
  int threads = 0;
  for (const auto& entry : fs::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++threads;
  }
  return threads;
}

TEST(ModelManagerTest, VersionsShareTheDevicesThreads) {
  fs::path base = MakeBase("shared_devices");
  LinkGood(base, "1");
  LinkGood(base, "2");
  LinkGood(base, "3");
  DeviceSet devices(DeviceSetOptions{2, 2});
  const int with_devices = ThreadsOfThisProcess();
  ModelManagerOptions options = NoRetries();
  options.load.session.devices = &devices;
  ModelManager manager(options);
  ASSERT_TRUE(manager.AddModel({"one", base.string(), VersionPolicy::kLatest}).ok());
  ASSERT_EQ(SettledStatus(manager, "one").size(), 1u);
  const int one_version = ThreadsOfThisProcess();
  // Loading runs and folds on the device set's pools: the manager adds no threads of its own
  // once a load has finished.
  EXPECT_EQ(one_version, with_devices);

  ASSERT_TRUE(manager.AddModel({"all", base.string(), VersionPolicy::kAll}).ok());
  ASSERT_TRUE(manager.AddModel({"again", base.string(), VersionPolicy::kAll}).ok());
  const auto all = SettledStatus(manager, "all");
  ASSERT_EQ(all.size(), 3u);
  for (const auto& status : all) EXPECT_EQ(status.state, VersionState::kAvailable);
  ASSERT_EQ(SettledStatus(manager, "again").size(), 3u);
  // Seven loaded versions, and not one thread more than one version had.
  EXPECT_EQ(ThreadsOfThisProcess(), one_version);

  auto handle = manager.GetServable("all", 2);
  ASSERT_TRUE(handle.ok()) << handle.status();
  std::map<std::string, Tensor> inputs;
  Tensor features(DT_FLOAT, TensorShape({1, 16}));
  for (int i = 0; i < 16; ++i) features.data<float>()[i] = 0.1f * static_cast<float>(i);
  inputs.emplace("features", features);
  auto outputs = handle->bundle->RunSignature("serving_default", inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  auto other = manager.GetServable("one", std::nullopt);
  ASSERT_TRUE(other.ok()) << other.status();
  auto expected = other->bundle->RunSignature("serving_default", inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // The same model on the same pools: the same bits.
  ASSERT_EQ(outputs->size(), expected->size());
  for (const auto& [alias, tensor] : *expected) {
    const Tensor& got = outputs->at(alias);
    ASSERT_EQ(got.NumElements(), tensor.NumElements()) << alias;
    ASSERT_GT(got.NumElements(), 0) << alias;
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      EXPECT_EQ(got.data<float>()[i], tensor.data<float>()[i]) << alias << "[" << i << "]";
    }
  }
  EXPECT_EQ(ThreadsOfThisProcess(), one_version);
}

}  // namespace
}  // namespace tensord
