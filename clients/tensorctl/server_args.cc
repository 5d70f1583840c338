#include "clients/tensorctl/server_args.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"

namespace tensord {
namespace tensorctl {

bool IsServerCommand(const std::string& command) {
  return command == "predict" || command == "metadata" || command == "status";
}

absl::StatusOr<ServerArgs> ParseServerArgs(const std::vector<std::string>& argv) {
  ServerArgs args;
  if (argv.empty() || !IsServerCommand(argv[0])) {
    return absl::InvalidArgumentError("expected predict, metadata or status");
  }
  const std::string& command = argv[0];
  if (command == "predict") {
    args.command = ServerArgs::Command::kPredict;
  } else if (command == "metadata") {
    args.command = ServerArgs::Command::kMetadata;
  } else {
    args.command = ServerArgs::Command::kStatus;
  }
  const bool predict = args.command == ServerArgs::Command::kPredict;

  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      args.command = ServerArgs::Command::kHelp;
      return args;
    }
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument '", arg, "' for 'tensorctl ", command, "' (flags only)"));
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const bool known =
        name == "server" || name == "model" || name == "version" || name == "timeout_ms" ||
        (predict && (name == "signature_def" || name == "input" || name == "output_filter"));
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, " for 'tensorctl ", command, "'"));
    }
    if (!value) {
      if (i + 1 >= argv.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
      value = argv[++i];
    }
    if (name == "server") {
      if (value->empty()) return absl::InvalidArgumentError("--server is empty");
      args.server = *value;
    } else if (name == "model") {
      if (value->empty()) return absl::InvalidArgumentError("--model is empty");
      args.model = *value;
    } else if (name == "version") {
      int64_t version;
      if (!absl::SimpleAtoi(*value, &version) || version < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--version '", *value, "' is not a non-negative integer"));
      }
      args.version = version;
    } else if (name == "timeout_ms") {
      int64_t ms;
      if (!absl::SimpleAtoi(*value, &ms) || ms <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--timeout_ms '", *value, "' is not a positive integer"));
      }
      args.timeout_ms = ms;
    } else if (name == "signature_def") {
      if (value->empty()) return absl::InvalidArgumentError("--signature_def is empty");
      args.signature_def = *value;
    } else if (name == "output_filter") {
      for (absl::string_view alias : absl::StrSplit(*value, ',', absl::SkipWhitespace())) {
        args.output_filter.emplace_back(absl::StripAsciiWhitespace(alias));
      }
    } else {  // input
      size_t eq = value->find('=');
      if (eq == std::string::npos || eq == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input '", *value, "' must be ALIAS=VALUE (VALUE: JSON or @file.npy)"));
      }
      InputSpec spec{value->substr(0, eq), value->substr(eq + 1)};
      for (const InputSpec& other : args.inputs) {
        if (other.alias == spec.alias) {
          return absl::InvalidArgumentError(
              absl::StrCat("input '", spec.alias, "' is given more than once"));
        }
      }
      args.inputs.push_back(std::move(spec));
    }
  }
  if (args.server.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'tensorctl ", command, "' needs --server HOST:PORT"));
  }
  if (args.model.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("'tensorctl ", command, "' needs --model"));
  }
  return args;
}

}  // namespace tensorctl
}  // namespace tensord
