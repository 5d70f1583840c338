#include "server/model/model_manager.h"

#include <algorithm>
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

absl::Status ModelManager::AddModel(const std::string& name, const std::string& base_path) {
  if (name.empty()) return absl::InvalidArgumentError("Model name must not be empty");
  auto dirs_or = ScanVersionDirs(base_path);
  if (!dirs_or.ok()) return dirs_or.status();
  std::vector<std::pair<int64_t, std::string>> dirs = *std::move(dirs_or);
  const size_t keep = static_cast<size_t>(std::max(1, options_.num_versions));
  if (dirs.size() > keep) dirs.erase(dirs.begin(), dirs.end() - keep);

  {
    std::lock_guard<std::mutex> lock(mu_);
    if (models_.count(name) > 0) {
      return absl::AlreadyExistsError(absl::StrCat("Model ", name, " is already configured"));
    }
    Model& model = models_[name];
    model.base_path = base_path;
    for (const auto& [version, path] : dirs) {
      VersionEntry& entry = model.versions[version];
      entry.status = {version, VersionState::kLoading, absl::OkStatus()};
    }
  }

  // Load outside the lock: loads can take long and lookups must not wait for them.
  for (const auto& [version, path] : dirs) {
    auto bundle_or = SavedModelBundle::Load(path, options_.load);
    std::lock_guard<std::mutex> lock(mu_);
    VersionEntry& entry = models_[name].versions[version];
    if (bundle_or.ok()) {
      entry.bundle = std::shared_ptr<const SavedModelBundle>(std::move(*bundle_or));
      entry.status.state = VersionState::kAvailable;
      entry.status.status = absl::OkStatus();
    } else {
      entry.status.state = VersionState::kEnd;
      entry.status.status = bundle_or.status();
    }
  }
  return absl::OkStatus();
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
