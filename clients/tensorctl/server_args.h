// Command-line parsing for tensorctl's server commands (predict, metadata, status), which talk
// to a TF Serving-compatible gRPC server. Flags take "--name value" or "--name=value".
#ifndef TENSORD_CLIENTS_TENSORCTL_SERVER_ARGS_H_
#define TENSORD_CLIENTS_TENSORCTL_SERVER_ARGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "clients/tensorctl/args.h"

namespace tensord {
namespace tensorctl {

struct ServerArgs {
  enum class Command { kHelp, kPredict, kMetadata, kStatus };
  Command command = Command::kHelp;
  std::string server;                             // host:port
  std::string model;
  std::optional<int64_t> version;
  std::string signature_def = "serving_default";  // predict
  std::vector<InputSpec> inputs;                  // predict
  std::vector<std::string> output_filter;         // predict
  int64_t timeout_ms = 30000;
};

// True for the commands ParseServerArgs handles.
bool IsServerCommand(const std::string& command);

// Parses argv[1:] whose first element is a server command. Errors are usage errors.
absl::StatusOr<ServerArgs> ParseServerArgs(const std::vector<std::string>& args);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_SERVER_ARGS_H_
