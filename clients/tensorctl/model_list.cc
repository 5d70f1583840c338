#include "clients/tensorctl/model_list.h"

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tensord {
namespace tensorctl {

std::string ModelListText(const v1::ListModelsResponse& response) {
  using Row = std::array<std::string, 3>;
  std::vector<Row> rows = {{"MODEL", "VERSION", "STATE"}};
  for (const v1::ModelEntry& model : response.models()) {
    if (model.model_version_status().empty()) {
      rows.push_back({model.name(), "-", "no versions"});
    }
    for (const auto& version : model.model_version_status()) {
      std::string state =
          ::tensorflow::serving::ModelVersionStatus::State_Name(version.state());
      if (version.status().error_code() != ::tensorflow::error::OK) {
        absl::StrAppend(&state, " (", ::tensorflow::error::Code_Name(version.status().error_code()),
                        ": ", version.status().error_message(), ")");
      }
      rows.push_back({model.name(), absl::StrCat(version.version()), std::move(state)});
    }
  }
  std::array<size_t, 2> widths = {0, 0};  // the last column is not padded
  for (const Row& row : rows) {
    for (size_t c = 0; c < widths.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const Row& row : rows) {
    for (size_t c = 0; c < widths.size(); ++c) {
      absl::StrAppend(&out, row[c], std::string(widths[c] - row[c].size() + 2, ' '));
    }
    absl::StrAppend(&out, row[2], "\n");
  }
  return out;
}

}  // namespace tensorctl
}  // namespace tensord
