#include "clients/tensorctl/model_list.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tensord {
namespace tensorctl {

namespace {

// "512 B", "3.0 MiB", "1.25 GiB": three significant digits at most.
std::string HumanBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit + 1 < static_cast<int>(std::size(kUnits))) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat(value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s", value,
                         kUnits[unit]);
}

}  // namespace

std::string ModelListText(const v1::ListModelsResponse& response) {
  // The GPU MEMORY column appears when some version keeps weights on a GPU.
  bool any_device_memory = false;
  for (const v1::ModelEntry& model : response.models()) {
    for (const auto& [version, bytes] : model.device_memory_bytes()) {
      any_device_memory |= bytes > 0;
    }
  }
  using Row = std::vector<std::string>;
  std::vector<Row> rows = {{"MODEL", "VERSION"}};
  if (any_device_memory) rows[0].push_back("GPU MEMORY");
  rows[0].push_back("STATE");
  for (const v1::ModelEntry& model : response.models()) {
    if (model.model_version_status().empty()) {
      rows.push_back({model.name(), "-"});
      if (any_device_memory) rows.back().push_back("-");
      rows.back().push_back("no versions");
    }
    for (const auto& version : model.model_version_status()) {
      std::string state =
          ::tensorflow::serving::ModelVersionStatus::State_Name(version.state());
      if (version.status().error_code() != ::tensorflow::error::OK) {
        absl::StrAppend(&state, " (", ::tensorflow::error::Code_Name(version.status().error_code()),
                        ": ", version.status().error_message(), ")");
      }
      rows.push_back({model.name(), absl::StrCat(version.version())});
      if (any_device_memory) {
        auto bytes = model.device_memory_bytes().find(version.version());
        const bool known = bytes != model.device_memory_bytes().end();
        rows.back().push_back(known ? HumanBytes(bytes->second) : "-");
      }
      rows.back().push_back(std::move(state));
    }
  }
  const size_t padded = rows[0].size() - 1;  // the last column is not padded
  std::vector<size_t> widths(padded, 0);
  for (const Row& row : rows) {
    for (size_t c = 0; c < padded; ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const Row& row : rows) {
    for (size_t c = 0; c < padded; ++c) {
      absl::StrAppend(&out, row[c], std::string(widths[c] - row[c].size() + 2, ' '));
    }
    absl::StrAppend(&out, row[padded], "\n");
  }
  return out;
}

}  // namespace tensorctl
}  // namespace tensord
