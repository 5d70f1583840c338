// Command-line parsing for tensorctl's server commands, which talk to a TF Serving-compatible
// gRPC server: predict, metadata, status, classify, regress (TF Serving's API) and list
// (tensord's ModelRepository), reload (ModelService.HandleReloadConfigRequest). Flags take
// "--name value" or "--name=value"; each command accepts only its own flags.
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
  enum class Command {
    kHelp, kPredict, kMetadata, kStatus, kClassify, kRegress, kList, kReload
  };
  Command command = Command::kHelp;
  std::string server;                             // host:port
  std::string model;                              // all but list and reload
  std::optional<int64_t> version;                 // all but list and reload
  std::string version_label;                      // --label: predict, metadata, classify, regress
  std::string signature_def = "serving_default";  // predict, classify, regress
  std::vector<InputSpec> inputs;                  // predict
  std::vector<std::string> output_filter;         // predict
  std::string examples;                           // classify, regress: JSON or @FILE
  std::optional<std::string> context;             // classify, regress: JSON or @FILE
  std::string config;                             // reload: path of a ModelServerConfig
  bool json = false;                              // list
  int64_t timeout_ms = 30000;
};

// True for the commands ParseServerArgs handles.
bool IsServerCommand(const std::string& command);

// Parses argv[1:] whose first element is a server command. Errors are usage errors.
absl::StatusOr<ServerArgs> ParseServerArgs(const std::vector<std::string>& args);

// Validates and stores the value of one ServerArgs flag (`name` without the dashes: server,
// model, version, label, signature_def, input, output_filter, examples, context, config,
// timeout_ms) into `args`, for commands that take these flags among their own (bench). Errors
// are usage errors naming the flag; --json, which takes no value, is not handled here.
absl::Status SetServerFlag(const std::string& name, const std::string& value, ServerArgs* args);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_SERVER_ARGS_H_
