// The model manager: one entry per configured model, each with numeric version subdirectories
// under a base path and a version policy (latest N / all / specific, as TF Serving's
// ServableVersionPolicy) plus version labels.
//
// ApplyConfig realises exactly a list of models (TF Serving's ModelConfigList semantics): new
// models load, removed ones unload, changed policies and labels take effect, and it returns once
// every load has had its first attempt. Poll()/StartPolling rescan the base paths. Loads run on up to
// `num_load_threads` threads and pass through the `on_loaded` hook (warmup) before AVAILABLE. A
// version whose first attempt fails stays LOADING while it is retried `max_num_load_retries` times
// on a background thread of its own, so one broken model never holds the others back; versions
// that stop being wanted meanwhile end its retries (END, CANCELLED). Swaps are availability preserving: newly wanted
// versions become AVAILABLE before versions no longer wanted unload (END with OK). A version whose
// load fails ends in END with the error; it never takes the server or other models down.
//
// Lookups hand out shared_ptrs to the loaded bundles, so a request that holds one keeps the
// bundle alive even after the version is unloaded; its memory is released with the last handle.
// All methods are thread-safe.
#ifndef TENSORD_SERVER_MODEL_MODEL_MANAGER_H_
#define TENSORD_SERVER_MODEL_MODEL_MANAGER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <condition_variable>
#include <functional>
#include <list>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/saved_model/loader.h"
#include "server/metrics/serving_metrics.h"
#include "server/model/signature_runner.h"

namespace tensord {

// Numbers as in tensorflow.serving.ModelVersionStatus.State.
enum class VersionState : int {
  kUnknown = 0,
  kStart = 10,
  kLoading = 20,
  kAvailable = 30,
  kUnloading = 40,
  kEnd = 50,
};

enum class VersionPolicy { kLatest, kAll, kSpecific };

// One model as in a ModelServerConfig's ModelConfig.
struct ModelConfig {
  std::string name;
  std::string base_path;
  VersionPolicy policy = VersionPolicy::kLatest;
  int num_versions = 1;                  // kLatest; values below 1 are treated as 1.
  std::vector<int64_t> versions;         // kSpecific
  std::map<std::string, int64_t> labels; // version_labels: label → version
  // The model's device policy (ModelConfig.device_policy); unset: the manager's
  // LoadOptions::placement. A change reloads no version: it applies to versions loaded after.
  std::optional<DevicePolicy> device_policy;
  // The model's precision (ModelConfig.precision); unset: the manager's LoadOptions::precision.
  // Like the device policy, applies to versions loaded after a change.
  std::optional<ComputePrecision> precision;
};

struct VersionStatus {
  int64_t version = 0;
  VersionState state = VersionState::kUnknown;
  absl::Status status;  // The load error for a failed version (state END), else OK.
};

// A loaded version, held for the duration of a request.
struct ServableHandle {
  std::string name;
  int64_t version = 0;
  std::shared_ptr<const SavedModelBundle> bundle;
  // Runs Predict's signatures when set (request batching); null = bundle->RunSignature.
  std::shared_ptr<const SignatureRunner> runner;
};

struct ModelManagerOptions {
  // Passed to SavedModelBundle::Load. Defaults: tag set {"serve"}, inter/intra-op threads 0
  // (= automatic), load-time optimisation on.
  LoadOptions load;
  // How many of the highest-numbered versions AddModel(name, base_path) loads. Default 1, as TF
  // Serving's default version policy `latest {num_versions: 1}`.
  int num_versions = 1;
  // Versions loading at the same time; 0 or 1 = one after another (TF Serving's 0).
  int num_load_threads = 0;
  // Versions released at the same time after an unload; 0 or 1 = one after another.
  int num_unload_threads = 0;
  // Further attempts after a failed load, `load_retry_interval` apart (TF Serving: 5, 60 s).
  int max_num_load_retries = 5;
  absl::Duration load_retry_interval = absl::Seconds(60);
  // Lets a label that is not in use yet point to a version that is not AVAILABLE.
  bool allow_version_labels_for_unavailable_models = false;
  // Runs after a version loaded and before it becomes AVAILABLE (warmup); an error fails that
  // load attempt. Called from load threads, possibly for several versions at once.
  std::function<absl::Status(const ServableHandle&)> on_loaded;
  // Makes the version's SignatureRunner once it is loaded and warmed up (null = none); an error
  // fails that load attempt.
  std::function<absl::StatusOr<std::shared_ptr<const SignatureRunner>>(const ServableHandle&)>
      make_runner;
  // Where load and state metrics go; null = nowhere. Not owned.
  ServingMetrics* metrics = nullptr;
};

class ModelManager {
 public:
  explicit ModelManager(ModelManagerOptions options = {});
  ~ModelManager();  // Stops the poll thread.
  ModelManager(const ModelManager&) = delete;
  ModelManager& operator=(const ModelManager&) = delete;

  // Serves exactly `configs` from now on (unique, non-empty names). Every base path must be a
  // readable directory, else nothing changes and the error names the model. Otherwise models
  // not listed any more unload (their versions stay visible in GetVersionStatus as END), new and
  // changed ones are reconciled, and the call returns once every load's first attempt has
  // finished (versions being retried are LOADING). Version labels
  // are applied last: a label may only point to an AVAILABLE version (unless
  // allow_version_labels_for_unavailable_models and the label is new); a model whose labels break
  // that rule keeps its previous labels and the call returns FAILED_PRECONDITION naming it.
  absl::Status ApplyConfig(const std::vector<ModelConfig>& configs);

  // Adds one model to the current configuration (ALREADY_EXISTS when the name is taken). The
  // name/base_path form uses policy latest {num_versions: options.num_versions}.
  absl::Status AddModel(const std::string& name, const std::string& base_path);
  absl::Status AddModel(const ModelConfig& config);

  // Rescans every model's base path once: loads newly wanted versions, then unloads versions no
  // longer wanted (only while another version of the model stays AVAILABLE). An unreadable base
  // path leaves the model as it is.
  void Poll();

  // Calls Poll() every `period_seconds` on a background thread until StopPolling() (or the
  // destructor). period_seconds <= 0 starts nothing.
  void StartPolling(int period_seconds);
  // No poll starts after this returns. It returns at once: a pass already under way (a load,
  // possibly a long warmup) finishes in the background, and the destructor waits for it.
  void StopPolling();

  // The current configuration, in name order.
  std::vector<ModelConfig> Config() const;

  // The AVAILABLE version that `label` points to. INVALID_ARGUMENT
  // "Unrecognized servable version label: <label>" for an unknown label (or model); NOT_FOUND as
  // GetServable when the labelled version is not AVAILABLE.
  absl::StatusOr<ServableHandle> GetServableByLabel(const std::string& name,
                                                    const std::string& label) const;

  // The requested AVAILABLE version, or the highest AVAILABLE one when `version` is unset.
  // NOT_FOUND "Servable not found for request: Latest(<name>)" / "Specific(<name>, <v>)".
  absl::StatusOr<ServableHandle> GetServable(const std::string& name,
                                             std::optional<int64_t> version) const;

  // Status of one version, or all versions in descending order (TF Serving's GetModelStatus).
  absl::StatusOr<std::vector<VersionStatus>> GetVersionStatus(
      const std::string& name, std::optional<int64_t> version) const;

  // Names of the configured models, sorted.
  std::vector<std::string> ModelNames() const;
  // True for a model configured now or earlier (still visible in GetVersionStatus); the names
  // a client can make this true for are bounded by the configs.
  bool HasModel(const std::string& name) const;

 private:
  struct VersionEntry {
    VersionStatus status;
    // Identifies the load in progress; a retry records its outcome only while this still
    // matches (0 = none wanted).
    uint64_t load_generation = 0;
    std::shared_ptr<const SavedModelBundle> bundle;
    std::shared_ptr<const SignatureRunner> runner;
  };
  struct Model {
    ModelConfig config;          // labels here are the ones in force
    bool configured = true;      // false once a config no longer lists the model
    std::map<int64_t, VersionEntry> versions;
  };
  struct LoadTask {
    std::string model;
    int64_t version;
    std::string path;
    uint64_t generation;
    std::optional<DevicePolicy> device_policy;  // the model's, if it has one
    std::optional<ComputePrecision> precision;  // the model's, if it has one
  };
  struct LoadResult {
    absl::Status status;
    std::shared_ptr<const SavedModelBundle> bundle;
    std::shared_ptr<const SignatureRunner> runner;
  };
  struct RetryThread {
    std::thread thread;
    bool done = false;  // guarded by poll_mu_
  };

  // Scans every configured model's base path, loads what the policies want and unloads the rest.
  // Callers hold reconcile_mu_, not mu_.
  void ReconcileAll();
  // Loads one version (with on_loaded) and records the outcome, or hands it to a retry thread.
  void Load(const LoadTask& task);
  // One attempt (`attempt` 0 is the first), with its metrics and log lines.
  LoadResult AttemptLoad(const LoadTask& task, int attempt);
  // Records `result` unless the load was abandoned; true when the version became AVAILABLE.
  bool FinishLoad(const LoadTask& task, LoadResult result);
  bool LoadStillWanted(const LoadTask& task) const;
  void RetryInBackground(const LoadTask& task);
  // Applies the labels of `configs` where valid; FAILED_PRECONDITION naming the first bad one.
  absl::Status ApplyLabels(const std::vector<ModelConfig>& configs);
  // Records a state change (and its metric). Callers hold mu_.
  void SetState(const std::string& model, VersionEntry* entry, VersionState state,
                absl::Status status);
  // Waits `duration` unless the manager is being destroyed; false when it is.
  bool SleepUnlessStopping(absl::Duration duration);

  const ModelManagerOptions options_;
  std::mutex reconcile_mu_;  // serialises ApplyConfig, AddModel and Poll (loads run outside mu_)
  mutable std::mutex mu_;
  std::map<std::string, Model> models_;  // guarded by mu_
  uint64_t last_load_generation_ = 0;    // guarded by mu_

  std::mutex poll_mu_;
  std::condition_variable poll_cv_;
  bool stop_polling_ = false;  // guarded by poll_mu_
  bool destroying_ = false;    // guarded by poll_mu_; cuts load retries short
  std::thread poll_thread_;
  std::list<RetryThread> retries_;  // guarded by poll_mu_
};

// Numeric subdirectory names of `base_path` (e.g. "00000123" → 123), ascending. Non-numeric
// entries and plain files are ignored. NOT_FOUND when base_path is not a readable directory.
absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> ScanVersionDirs(
    const std::string& base_path);

}  // namespace tensord

#endif  // TENSORD_SERVER_MODEL_MODEL_MANAGER_H_
