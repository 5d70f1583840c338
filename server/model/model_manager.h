// The model manager: one entry per model name, each with numeric version subdirectories under a
// base path and a version policy (latest N / all / specific, as TF Serving's
// ServableVersionPolicy). AddModel scans the base path and loads the versions the policy wants; a
// version whose load fails ends in END with the error; it never takes the server down.
// Poll()/StartPolling rescan the base paths: newly wanted versions load and become AVAILABLE
// before versions no longer wanted are unloaded (availability preserving), which then end in END
// with OK.
//
// Lookups hand out shared_ptrs to the loaded bundles, so a request that holds one keeps the
// bundle alive even if the version is later unloaded. All methods are thread-safe.
#ifndef TENSORD_SERVER_MODEL_MODEL_MANAGER_H_
#define TENSORD_SERVER_MODEL_MODEL_MANAGER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <condition_variable>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/saved_model/loader.h"

namespace tensord {

struct ModelManagerOptions {
  // Passed to SavedModelBundle::Load. Defaults: tag set {"serve"}, inter/intra-op threads 0
  // (= automatic), load-time optimisation on.
  LoadOptions load;
  // How many of the highest-numbered versions to load. Default 1, as TF Serving's default
  // version policy `latest {num_versions: 1}`. Values below 1 are treated as 1.
  int num_versions = 1;
};

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
};

class ModelManager {
 public:
  explicit ModelManager(ModelManagerOptions options = {});
  ~ModelManager();  // Stops the poll thread.
  ModelManager(const ModelManager&) = delete;
  ModelManager& operator=(const ModelManager&) = delete;

  // Scans `base_path` for numeric version directories and loads the highest ones. Returns an
  // error only when the model cannot be set up at all (empty name, duplicate name, unreadable
  // base path); failed version loads are recorded as END and the call still succeeds.
  // This form uses policy latest {num_versions: options.num_versions}.
  absl::Status AddModel(const std::string& name, const std::string& base_path);
  absl::Status AddModel(const ModelConfig& config);

  // Rescans every model's base path once: loads newly wanted versions, then unloads versions no
  // longer wanted (only while another version of the model stays AVAILABLE). An unreadable base
  // path leaves the model as it is.
  void Poll();

  // Calls Poll() every `period_seconds` on a background thread until StopPolling() (or the
  // destructor). period_seconds <= 0 starts nothing.
  void StartPolling(int period_seconds);
  void StopPolling();

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

  std::vector<std::string> ModelNames() const;

 private:
  struct VersionEntry {
    VersionStatus status;
    std::shared_ptr<const SavedModelBundle> bundle;
  };
  struct Model {
    ModelConfig config;
    std::map<int64_t, VersionEntry> versions;
  };

  // Scans and loads/unloads one model. Callers hold reconcile_mu_, not mu_.
  absl::Status Reconcile(const ModelConfig& config);

  const ModelManagerOptions options_;
  std::mutex reconcile_mu_;  // serialises AddModel and Poll (loads run outside mu_)
  mutable std::mutex mu_;
  std::map<std::string, Model> models_;  // guarded by mu_

  std::mutex poll_mu_;
  std::condition_variable poll_cv_;
  bool stop_polling_ = false;  // guarded by poll_mu_
  std::thread poll_thread_;
};

// Numeric subdirectory names of `base_path` (e.g. "00000123" → 123), ascending. Non-numeric
// entries and plain files are ignored. NOT_FOUND when base_path is not a readable directory.
absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> ScanVersionDirs(
    const std::string& base_path);

}  // namespace tensord

#endif  // TENSORD_SERVER_MODEL_MODEL_MANAGER_H_
