#include "runtime/optimizer/graph_pass.h"

#include "absl/strings/str_cat.h"

namespace tensord {

absl::Status GraphPassPipeline::Run(const GraphPassContext& context,
                                    std::map<std::string, int>* rewrites) const {
  for (const std::unique_ptr<GraphPass>& pass : passes_) {
    absl::StatusOr<int> count = pass->Run(context);
    if (!count.ok()) {
      return absl::Status(count.status().code(),
                          absl::StrCat(pass->name(), ": ", count.status().message()));
    }
    if (rewrites != nullptr) (*rewrites)[pass->name()] += *count;
  }
  return absl::OkStatus();
}

std::vector<std::string> GraphPassPipeline::Names() const {
  std::vector<std::string> names;
  for (const std::unique_ptr<GraphPass>& pass : passes_) names.push_back(pass->name());
  return names;
}

}  // namespace tensord
