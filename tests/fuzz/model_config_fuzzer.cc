// --model_config_file: a text ModelServerConfig -> the model manager's ModelConfig list, with
// TF Serving's validation. Invariants: accepted configs name every model once, with a
// non-empty name and an absolute base path.
#include <set>

#include "server/model/model_config_proto.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tensord::fuzz::ScratchFile(
      "models.config", std::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<std::vector<tensord::ModelConfig>> configs = tensord::ReadModelConfigFile(path);
  if (!configs.ok()) return 0;
  std::set<std::string> names;
  for (const tensord::ModelConfig& config : *configs) {
    FUZZ_CHECK(!config.name.empty());
    FUZZ_CHECK(names.insert(config.name).second);
    FUZZ_CHECK(!config.base_path.empty() && config.base_path[0] == '/');
  }
  return 0;
}
