#include "server/model/model_manager.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/logging/log.h"

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

namespace {

// The versions `config`'s policy wants among those on disk, version → path.
std::map<int64_t, std::string> WantedVersions(
    const ModelConfig& config, const std::vector<std::pair<int64_t, std::string>>& dirs) {
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
  return wanted;
}

// Runs `work(i)` for i in [0, count) on up to `threads` threads (inline when threads <= 1).
void ParallelFor(int count, int threads, const std::function<void(int)>& work) {
  if (threads <= 1 || count <= 1) {
    for (int i = 0; i < count; ++i) work(i);
    return;
  }
  std::atomic<int> next{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < std::min(threads, count); ++t) {
    workers.emplace_back([&]() {
      for (int i = next++; i < count; i = next++) work(i);
    });
  }
  for (std::thread& worker : workers) worker.join();
}

double Milliseconds(absl::Duration d) { return absl::ToDoubleMilliseconds(d); }

}  // namespace

ModelManager::ModelManager(ModelManagerOptions options) : options_(std::move(options)) {}

ModelManager::~ModelManager() {
  {
    std::lock_guard<std::mutex> lock(poll_mu_);
    destroying_ = true;
  }
  StopPolling();
  if (poll_thread_.joinable()) poll_thread_.join();
  // Retry threads see destroying_ at their next wait; none can be added any more.
  for (RetryThread& retry : retries_) retry.thread.join();
}

absl::Status ModelManager::AddModel(const std::string& name, const std::string& base_path) {
  ModelConfig config;
  config.name = name;
  config.base_path = base_path;
  config.policy = VersionPolicy::kLatest;
  config.num_versions = options_.num_versions;
  return AddModel(config);
}

absl::Status ModelManager::AddModel(const ModelConfig& config) {
  std::vector<ModelConfig> configs = Config();
  for (const ModelConfig& existing : configs) {
    if (existing.name == config.name) {
      return absl::AlreadyExistsError(
          absl::StrCat("Model ", config.name, " is already configured"));
    }
  }
  configs.push_back(config);
  return ApplyConfig(configs);
}

std::vector<ModelConfig> ModelManager::Config() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ModelConfig> configs;
  for (const auto& [name, model] : models_) {
    if (model.configured) configs.push_back(model.config);
  }
  return configs;
}

absl::Status ModelManager::ApplyConfig(const std::vector<ModelConfig>& configs) {
  std::set<std::string> names;
  for (const ModelConfig& config : configs) {
    if (config.name.empty()) return absl::InvalidArgumentError("Model name must not be empty");
    if (!names.insert(config.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Illegal to list model ", config.name, " multiple times in config list"));
    }
    if (auto dirs = ScanVersionDirs(config.base_path); !dirs.ok()) {
      return absl::Status(dirs.status().code(),
                          absl::StrCat("model ", config.name, ": ", dirs.status().message()));
    }
  }
  std::lock_guard<std::mutex> reconcile_lock(reconcile_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, model] : models_) {
      if (model.configured && names.count(name) == 0) {
        LogEvent(LogLevel::kInfo, "model removed from config", {{"model", name}});
      }
      model.configured = false;
    }
    for (const ModelConfig& config : configs) {
      Model& model = models_[config.name];
      std::map<std::string, int64_t> labels_in_force =
          model.config.name.empty() ? std::map<std::string, int64_t>{} : model.config.labels;
      model.config = config;
      model.config.labels = std::move(labels_in_force);
      model.configured = true;
    }
  }
  ReconcileAll();
  return ApplyLabels(configs);
}

absl::Status ModelManager::ApplyLabels(const std::vector<ModelConfig>& configs) {
  absl::Status first_error;
  std::lock_guard<std::mutex> lock(mu_);
  for (const ModelConfig& config : configs) {
    Model& model = models_[config.name];
    absl::Status model_status;
    for (const auto& [label, version] : config.labels) {
      auto it = model.versions.find(version);
      const bool available =
          it != model.versions.end() && it->second.status.state == VersionState::kAvailable;
      const bool new_label = model.config.labels.count(label) == 0;
      if (available || (new_label && options_.allow_version_labels_for_unavailable_models)) {
        continue;
      }
      model_status = absl::FailedPreconditionError(absl::StrCat(
          "Request to assign label to version ", version, " of model ", config.name,
          ", which is not currently available for inference"));
      break;
    }
    if (model_status.ok()) {
      model.config.labels = config.labels;
    } else {
      LogEvent(LogLevel::kError, "version labels not applied",
               {{"model", config.name}, {"error", std::string(model_status.message())}});
      if (first_error.ok()) first_error = model_status;
    }
  }
  return first_error;
}

void ModelManager::SetState(const std::string& model, VersionEntry* entry, VersionState state,
                            absl::Status status) {
  entry->status.state = state;
  entry->status.status = std::move(status);
  if (options_.metrics != nullptr) {
    options_.metrics->model_state->Set({model, absl::StrCat(entry->status.version)},
                                       static_cast<double>(state));
  }
}

bool ModelManager::SleepUnlessStopping(absl::Duration duration) {
  std::unique_lock<std::mutex> lock(poll_mu_);
  return !poll_cv_.wait_for(lock, absl::ToChronoNanoseconds(duration),
                            [this]() { return destroying_; });
}

ModelManager::LoadResult ModelManager::AttemptLoad(const LoadTask& task, int attempt) {
  const std::string version = absl::StrCat(task.version);
  LoadResult result;
  const absl::Time start = absl::Now();
  LoadOptions load = options_.load;
  if (task.device_policy.has_value()) load.placement.policy = *task.device_policy;
  if (task.precision.has_value()) load.precision = *task.precision;
  auto bundle_or = SavedModelBundle::Load(task.path, load);
  if (bundle_or.ok()) {
    result.bundle = std::shared_ptr<const SavedModelBundle>(std::move(*bundle_or));
    const ServableHandle handle{task.model, task.version, result.bundle};
    result.status = options_.on_loaded ? options_.on_loaded(handle) : absl::OkStatus();
    if (result.status.ok() && options_.make_runner) {
      absl::StatusOr<std::shared_ptr<const SignatureRunner>> made = options_.make_runner(handle);
      result.status = made.status();
      if (made.ok()) result.runner = *std::move(made);
    }
  } else {
    result.status = bundle_or.status();
  }
  const absl::Duration took = absl::Now() - start;
  if (options_.metrics != nullptr) {
    ServingMetrics& m = *options_.metrics;
    m.load_attempt_count->Increment({task.path, result.status.ok() ? "success" : "fail"});
    m.load_latency->Increment({task.path}, absl::ToInt64Microseconds(took));
    m.model_load_duration->Observe({task.model}, absl::ToDoubleSeconds(took));
    m.model_loads->Increment({task.model, result.status.ok() ? "ok" : "error"});
  }
  if (result.status.ok()) {
    const PlacementRecord& placement = result.bundle->placement();
    if (result.bundle->precision() != load.precision) {
      LogEvent(LogLevel::kWarning, "precision not available on this CPU",
               {{"model", task.model},
                {"version", version},
                {"requested", PrecisionName(load.precision)},
                {"running", PrecisionName(result.bundle->precision())},
                {"why", "the CPU has no bfloat16 arithmetic (AVX512_BF16)"}});
    }
    LogEvent(LogLevel::kInfo, "model version available",
             {{"model", task.model},
              {"version", version},
              {"load_ms", absl::StrFormat("%.1f", Milliseconds(took))},
              {"device_policy", load.placement.policy.ToString()},
              {"precision", PrecisionName(result.bundle->precision())},
              {"nodes", placement.DeviceSummary()},
              {"copies", absl::StrCat(placement.copies)},
              {"soft_placed", absl::StrCat(placement.SoftPlaced())}});
    return result;
  }
  result.bundle.reset();
  result.runner.reset();
  const bool retry = attempt < options_.max_num_load_retries;
  LogEvent(LogLevel::kError, "model version failed to load",
           {{"model", task.model},
            {"version", version},
            {"attempt", absl::StrCat(attempt + 1)},
            {"will_retry", retry ? "true" : "false"},
            {"error", result.status.ToString()}});
  return result;
}

bool ModelManager::LoadStillWanted(const LoadTask& task) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto model = models_.find(task.model);
  if (model == models_.end()) return false;
  auto entry = model->second.versions.find(task.version);
  return entry != model->second.versions.end() &&
         entry->second.load_generation == task.generation &&
         entry->second.status.state == VersionState::kLoading;
}

bool ModelManager::FinishLoad(const LoadTask& task, LoadResult result) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    VersionEntry& entry = models_[task.model].versions[task.version];
    if (entry.load_generation == task.generation &&
        entry.status.state == VersionState::kLoading) {
      entry.bundle = std::move(result.bundle);
      entry.runner = std::move(result.runner);
      if (options_.metrics != nullptr && entry.bundle != nullptr && result.status.ok()) {
        options_.metrics->model_device_memory->Set(
            {task.model, absl::StrCat(task.version)},
            static_cast<double>(entry.bundle->session()->device_memory_bytes()));
      }
      SetState(task.model, &entry,
               result.status.ok() ? VersionState::kAvailable : VersionState::kEnd,
               result.status);
      return result.status.ok();
    }
  }
  // Abandoned while it loaded (the version is no longer wanted): released outside mu_.
  return false;
}

void ModelManager::Load(const LoadTask& task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    SetState(task.model, &models_[task.model].versions[task.version], VersionState::kLoading,
             absl::OkStatus());
  }
  LogEvent(LogLevel::kInfo, "loading model version",
           {{"model", task.model}, {"version", absl::StrCat(task.version)}, {"path", task.path}});
  LoadResult result = AttemptLoad(task, 0);
  if (!result.status.ok() && options_.max_num_load_retries > 0) {
    RetryInBackground(task);  // the version stays LOADING meanwhile
    return;
  }
  FinishLoad(task, std::move(result));
}

void ModelManager::RetryInBackground(const LoadTask& task) {
  std::lock_guard<std::mutex> lock(poll_mu_);
  if (destroying_) return;
  // Threads that finished are joined here, so a long-lived server keeps none of them around.
  for (auto it = retries_.begin(); it != retries_.end();) {
    if (it->done) {
      it->thread.join();
      it = retries_.erase(it);
    } else {
      ++it;
    }
  }
  retries_.emplace_back();
  RetryThread* retry = &retries_.back();
  retry->thread = std::thread([this, task, retry]() {
    LoadResult result;
    bool finished = false;
    for (int attempt = 1; attempt <= options_.max_num_load_retries; ++attempt) {
      if (!SleepUnlessStopping(options_.load_retry_interval) || !LoadStillWanted(task)) break;
      result = AttemptLoad(task, attempt);
      if (result.status.ok() || attempt == options_.max_num_load_retries) {
        finished = true;
        break;
      }
    }
    // Once available, versions it supersedes can unload (availability preserving).
    if (finished && FinishLoad(task, std::move(result))) Poll();
    std::lock_guard<std::mutex> done_lock(poll_mu_);
    retry->done = true;
  });
}

void ModelManager::ReconcileAll() {
  // Scan outside mu_: file systems can be slow.
  std::vector<ModelConfig> configs = Config();
  std::map<std::string, std::map<int64_t, std::string>> wanted;
  for (const ModelConfig& config : configs) {
    auto dirs_or = ScanVersionDirs(config.base_path);
    if (!dirs_or.ok()) continue;  // An unreadable base path leaves the model as it is.
    if (dirs_or->empty()) {
      LogEvent(LogLevel::kWarning,
               "no versions found under base path (did you forget to name the version "
               "directory as a number, e.g. '/1/'?)",
               {{"model", config.name}, {"base_path", config.base_path}});
    }
    wanted[config.name] = WantedVersions(config, *dirs_or);
  }

  // Wanted versions not loaded yet (new ones, or ones unloaded earlier) start loading. Failed
  // loads (END with an error) already had their retries and are not loaded again.
  std::vector<LoadTask> to_load;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, versions] : wanted) {
      Model& model = models_[name];
      // Highest version first: it is the one requests for the latest version will get.
      for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
        auto existing = model.versions.find(it->first);
        const bool load = existing == model.versions.end() ||
                          (existing->second.status.state == VersionState::kEnd &&
                           existing->second.status.status.ok());
        if (!load) continue;
        VersionEntry& entry = model.versions[it->first];
        entry.status.version = it->first;
        entry.bundle.reset();
        entry.load_generation = ++last_load_generation_;
        SetState(name, &entry, VersionState::kStart, absl::OkStatus());
        to_load.push_back(
            {name, it->first, it->second, entry.load_generation, model.config.device_policy,
             model.config.precision});
      }
    }
  }
  ParallelFor(static_cast<int>(to_load.size()), options_.num_load_threads,
              [&](int i) { Load(to_load[i]); });

  // Availability preserving: unload versions no longer wanted only once a wanted version is
  // AVAILABLE (or nothing is wanted any more); a model removed from the config unloads entirely.
  struct Unloaded {
    std::string model;
    int64_t version;
    std::string path;
  };
  std::vector<Unloaded> unloaded;
  std::vector<std::shared_ptr<const SavedModelBundle>> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, model] : models_) {
      auto wanted_it = wanted.find(name);
      if (model.configured && wanted_it == wanted.end()) continue;  // not scanned this time
      static const std::map<int64_t, std::string> kNothing;
      const std::map<int64_t, std::string>& model_wanted =
          model.configured ? wanted_it->second : kNothing;
      // Retries of versions that are no longer wanted stop; their outcome is not recorded.
      for (auto& [version, entry] : model.versions) {
        if (entry.status.state != VersionState::kLoading || model_wanted.count(version) > 0) {
          continue;
        }
        entry.load_generation = 0;
        SetState(name, &entry, VersionState::kEnd,
                 absl::CancelledError("load retries stopped: the version is no longer wanted"));
      }
      bool wanted_available = model_wanted.empty();
      for (const auto& [version, path] : model_wanted) {
        auto it = model.versions.find(version);
        if (it != model.versions.end() && it->second.status.state == VersionState::kAvailable) {
          wanted_available = true;
        }
      }
      if (!wanted_available) continue;
      for (auto& [version, entry] : model.versions) {
        if (model_wanted.count(version) > 0 || entry.status.state != VersionState::kAvailable) {
          continue;
        }
        SetState(name, &entry, VersionState::kUnloading, absl::OkStatus());
        unloaded.push_back({name, version, entry.bundle->export_dir()});
        released.push_back(std::move(entry.bundle));
        entry.bundle.reset();
        entry.runner.reset();
      }
    }
  }
  // Drop the manager's references outside mu_; requests still holding a handle free theirs last.
  ParallelFor(static_cast<int>(released.size()), options_.num_unload_threads,
              [&](int i) { released[i].reset(); });
  std::lock_guard<std::mutex> lock(mu_);
  for (const Unloaded& u : unloaded) {
    SetState(u.model, &models_[u.model].versions[u.version], VersionState::kEnd,
             absl::OkStatus());
    // Its series go (END is implied by their absence), so that pushing versions over time
    // does not grow the exposition without bound.
    if (options_.metrics != nullptr) options_.metrics->ForgetVersion(u.model, u.version, u.path);
    LogEvent(LogLevel::kInfo, "model version unloaded",
             {{"model", u.model}, {"version", absl::StrCat(u.version)}});
  }
  // A model no longer configured leaves the state gauge, so alerts on versions that are not
  // AVAILABLE do not fire for it forever; GetModelStatus still reports its versions as END.
  if (options_.metrics != nullptr) {
    for (const auto& [name, model] : models_) {
      if (model.configured) continue;
      for (const auto& [version, entry] : model.versions) {
        options_.metrics->model_state->Remove({name, absl::StrCat(version)});
        options_.metrics->model_device_memory->Remove({name, absl::StrCat(version)});
      }
    }
  }
}

void ModelManager::Poll() {
  std::lock_guard<std::mutex> reconcile_lock(reconcile_mu_);
  ReconcileAll();
}

void ModelManager::StartPolling(int period_seconds) {
  if (period_seconds <= 0) return;
  StopPolling();
  if (poll_thread_.joinable()) poll_thread_.join();
  {
    std::lock_guard<std::mutex> lock(poll_mu_);
    stop_polling_ = false;
  }
  poll_thread_ = std::thread([this, period_seconds]() {
    std::unique_lock<std::mutex> lock(poll_mu_);
    while (!poll_cv_.wait_for(lock, std::chrono::seconds(period_seconds),
                              [this]() { return stop_polling_ || destroying_; })) {
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
    return ServableHandle{name, it->first, it->second.bundle, it->second.runner};
  }
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (it->second.status.state == VersionState::kAvailable) {
      return ServableHandle{name, it->first, it->second.bundle, it->second.runner};
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
  for (const auto& [name, model] : models_) {
    if (model.configured) names.push_back(name);
  }
  return names;
}

bool ModelManager::HasModel(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return models_.count(name) != 0;
}

}  // namespace tensord
