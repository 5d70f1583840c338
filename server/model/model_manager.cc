#include "server/model/model_manager.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tensord {

namespace fs = std::filesystem;

absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> ScanVersionDirs(
    const std::string& base_path) {
  std::error_code ec;
  if (!fs::is_directory(base_path, ec)) {
    return absl::NotFoundError(
        absl::StrCat("Model base path is not a readable directory: ", base_path));
  }
  std::vector<std::pair<int64_t, std::string>> result;
  fs::directory_iterator it(base_path, ec);
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat("Could not list model base path ", base_path, ": ", ec.message()));
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string dir_name = it->path().filename().string();
    if (dir_name.empty() ||
        !std::all_of(dir_name.begin(), dir_name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    int64_t version = 0;
    if (!absl::SimpleAtoi(dir_name, &version)) continue;  // overflow
    std::error_code dir_ec;
    if (!fs::is_directory(it->path(), dir_ec)) continue;
    result.emplace_back(version, it->path().string());
  }
  std::sort(result.begin(), result.end());
  return result;
}

ModelManager::ModelManager(ModelManagerOptions options) : options_(std::move(options)) {}

ModelManager::~ModelManager() { StopPolling(); }

absl::Status ModelManager::AddModel(const std::string& name, const std::string& base_path) {
  ModelConfig config;
  config.name = name;
  config.base_path = base_path;
  config.policy = VersionPolicy::kLatest;
  config.num_versions = options_.num_versions;
  return AddModel(config);
}

absl::Status ModelManager::AddModel(const ModelConfig& config) {
  if (config.name.empty()) return absl::InvalidArgumentError("Model name must not be empty");
  std::lock_guard<std::mutex> reconcile_lock(reconcile_mu_);
  if (auto dirs_or = ScanVersionDirs(config.base_path); !dirs_or.ok()) return dirs_or.status();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (models_.count(config.name) > 0) {
      return absl::AlreadyExistsError(
          absl::StrCat("Model ", config.name, " is already configured"));
    }
    models_[config.name].config = config;
  }
  return Reconcile(config);
}

absl::Status ModelManager::Reconcile(const ModelConfig& config) {
  auto dirs_or = ScanVersionDirs(config.base_path);
  if (!dirs_or.ok()) return dirs_or.status();
  const std::vector<std::pair<int64_t, std::string>>& dirs = *dirs_or;

  // The versions the policy wants, among those present on disk.
  std::map<int64_t, std::string> wanted;
  switch (config.policy) {
    case VersionPolicy::kLatest: {
      const size_t keep = static_cast<size_t>(std::max(1, config.num_versions));
      const size_t first = dirs.size() > keep ? dirs.size() - keep : 0;
      for (size_t i = first; i < dirs.size(); ++i) wanted.insert(dirs[i]);
      break;
    }
    case VersionPolicy::kAll:
      wanted.insert(dirs.begin(), dirs.end());
      break;
    case VersionPolicy::kSpecific:
      for (const auto& dir : dirs) {
        if (std::find(config.versions.begin(), config.versions.end(), dir.first) !=
            config.versions.end()) {
          wanted.insert(dir);
        }
      }
      break;
  }

  // Mark the wanted versions that are not loaded yet (new ones, or ones unloaded earlier) as
  // LOADING. Failed loads (END with an error) are not retried.
  std::vector<std::pair<int64_t, std::string>> to_load;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Model& model = models_[config.name];
    for (const auto& [version, path] : wanted) {
      auto it = model.versions.find(version);
      const bool load = it == model.versions.end() ||
                        (it->second.status.state == VersionState::kEnd &&
                         it->second.status.status.ok());
      if (!load) continue;
      VersionEntry& entry = model.versions[version];
      entry.status = {version, VersionState::kLoading, absl::OkStatus()};
      entry.bundle.reset();
      to_load.emplace_back(version, path);
    }
  }

  // Load outside mu_ (loads can take long; lookups must not wait), highest version first.
  for (auto it = to_load.rbegin(); it != to_load.rend(); ++it) {
    const auto& [version, path] = *it;
    auto bundle_or = SavedModelBundle::Load(path, options_.load);
    std::lock_guard<std::mutex> lock(mu_);
    VersionEntry& entry = models_[config.name].versions[version];
    if (bundle_or.ok()) {
      entry.bundle = std::shared_ptr<const SavedModelBundle>(std::move(*bundle_or));
      entry.status.state = VersionState::kAvailable;
      entry.status.status = absl::OkStatus();
    } else {
      entry.status.state = VersionState::kEnd;
      entry.status.status = bundle_or.status();
    }
  }

  // Availability preserving: unload versions no longer wanted only once a wanted version is
  // AVAILABLE (or nothing is wanted any more). In-flight requests keep their bundle alive through
  // their shared_ptr; it is freed when the last one finishes.
  std::vector<std::shared_ptr<const SavedModelBundle>> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Model& model = models_[config.name];
    bool wanted_available = wanted.empty();
    for (const auto& [version, path] : wanted) {
      auto it = model.versions.find(version);
      if (it != model.versions.end() && it->second.status.state == VersionState::kAvailable) {
        wanted_available = true;
      }
    }
    if (wanted_available) {
      for (auto& [version, entry] : model.versions) {
        if (wanted.count(version) > 0 || entry.status.state != VersionState::kAvailable) continue;
        entry.status = {version, VersionState::kEnd, absl::OkStatus()};
        released.push_back(std::move(entry.bundle));
        entry.bundle.reset();
      }
    }
  }
  released.clear();  // Drop the manager's references outside mu_.
  return absl::OkStatus();
}

void ModelManager::Poll() {
  std::lock_guard<std::mutex> reconcile_lock(reconcile_mu_);
  std::vector<ModelConfig> configs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, model] : models_) configs.push_back(model.config);
  }
  for (const ModelConfig& config : configs) {
    Reconcile(config).IgnoreError();  // An unreadable base path keeps the model as it is.
  }
}

void ModelManager::StartPolling(int period_seconds) {
  if (period_seconds <= 0) return;
  StopPolling();
  {
    std::lock_guard<std::mutex> lock(poll_mu_);
    stop_polling_ = false;
  }
  poll_thread_ = std::thread([this, period_seconds]() {
    std::unique_lock<std::mutex> lock(poll_mu_);
    while (!poll_cv_.wait_for(lock, std::chrono::seconds(period_seconds),
                              [this]() { return stop_polling_; })) {
      lock.unlock();
      Poll();
      lock.lock();
    }
  });
}

void ModelManager::StopPolling() {
  {
    std::lock_guard<std::mutex> lock(poll_mu_);
    stop_polling_ = true;
  }
  poll_cv_.notify_all();
  if (poll_thread_.joinable()) poll_thread_.join();
}

absl::StatusOr<ServableHandle> ModelManager::GetServableByLabel(const std::string& name,
                                                                const std::string& label) const {
  std::optional<int64_t> version;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto model_it = models_.find(name);
    if (model_it != models_.end()) {
      auto label_it = model_it->second.config.labels.find(label);
      if (label_it != model_it->second.config.labels.end()) version = label_it->second;
    }
  }
  if (!version.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unrecognized servable version label: ", label));
  }
  return GetServable(name, version);
}

absl::StatusOr<ServableHandle> ModelManager::GetServable(const std::string& name,
                                                         std::optional<int64_t> version) const {
  auto not_found = [&]() {
    return absl::NotFoundError(
        version.has_value()
            ? absl::StrCat("Servable not found for request: Specific(", name, ", ", *version, ")")
            : absl::StrCat("Servable not found for request: Latest(", name, ")"));
  };
  std::lock_guard<std::mutex> lock(mu_);
  auto model_it = models_.find(name);
  if (model_it == models_.end()) return not_found();
  const auto& versions = model_it->second.versions;
  if (version.has_value()) {
    auto it = versions.find(*version);
    if (it == versions.end() || it->second.status.state != VersionState::kAvailable) {
      return not_found();
    }
    return ServableHandle{name, it->first, it->second.bundle};
  }
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (it->second.status.state == VersionState::kAvailable) {
      return ServableHandle{name, it->first, it->second.bundle};
    }
  }
  return not_found();
}

absl::StatusOr<std::vector<VersionStatus>> ModelManager::GetVersionStatus(
    const std::string& name, std::optional<int64_t> version) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto model_it = models_.find(name);
  const std::map<int64_t, VersionEntry>* versions =
      model_it == models_.end() ? nullptr : &model_it->second.versions;
  if (version.has_value()) {
    if (versions != nullptr) {
      auto it = versions->find(*version);
      if (it != versions->end()) return std::vector<VersionStatus>{it->second.status};
    }
    return absl::NotFoundError(
        absl::StrCat("Could not find version ", *version, " of model ", name));
  }
  if (versions == nullptr || versions->empty()) {
    return absl::NotFoundError(absl::StrCat("Could not find any versions of model ", name));
  }
  std::vector<VersionStatus> result;
  for (auto it = versions->rbegin(); it != versions->rend(); ++it) {
    result.push_back(it->second.status);
  }
  return result;
}

std::vector<std::string> ModelManager::ModelNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, model] : models_) names.push_back(name);
  return names;
}

}  // namespace tensord
