#include "clients/tensorctl/server_args.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tensord {
namespace tensorctl {
namespace {

// Each command's flags besides --server and --timeout_ms, which all of them take.
struct CommandSpec {
  const char* name;
  ServerArgs::Command command;
  std::vector<std::string> flags;
};

const std::vector<CommandSpec>& CommandSpecs() {
  static const auto* specs = new std::vector<CommandSpec>{
      {"predict", ServerArgs::Command::kPredict,
       {"model", "version", "label", "signature_def", "input", "output_filter"}},
      {"metadata", ServerArgs::Command::kMetadata, {"model", "version", "label"}},
      // GetModelStatus has no use for a label: TF Serving ignores it.
      {"status", ServerArgs::Command::kStatus, {"model", "version"}},
      {"classify", ServerArgs::Command::kClassify,
       {"model", "version", "label", "signature_def", "examples", "context"}},
      {"regress", ServerArgs::Command::kRegress,
       {"model", "version", "label", "signature_def", "examples", "context"}},
      {"list", ServerArgs::Command::kList, {"json"}},
      {"reload", ServerArgs::Command::kReload, {"config"}},
  };
  return *specs;
}

const CommandSpec* FindCommand(const std::string& name) {
  for (const CommandSpec& spec : CommandSpecs()) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

absl::Status NonEmpty(const std::string& name, const std::string& value) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat("--", name, " is empty"));
  return absl::OkStatus();
}

}  // namespace

absl::Status SetServerFlag(const std::string& name, const std::string& value, ServerArgs* args) {
  if (name == "version") {
    int64_t version;
    if (!absl::SimpleAtoi(value, &version) || version < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--version '", value, "' is not a non-negative integer"));
    }
    args->version = version;
    return absl::OkStatus();
  }
  if (name == "timeout_ms") {
    int64_t ms;
    if (!absl::SimpleAtoi(value, &ms) || ms <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--timeout_ms '", value, "' is not a positive integer"));
    }
    args->timeout_ms = ms;
    return absl::OkStatus();
  }
  if (name == "output_filter") {
    for (absl::string_view alias : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      args->output_filter.emplace_back(absl::StripAsciiWhitespace(alias));
    }
    return absl::OkStatus();
  }
  if (name == "input") {
    size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input '", value, "' must be ALIAS=VALUE (VALUE: JSON or @file.npy)"));
    }
    InputSpec spec{value.substr(0, eq), value.substr(eq + 1)};
    for (const InputSpec& other : args->inputs) {
      if (other.alias == spec.alias) {
        return absl::InvalidArgumentError(
            absl::StrCat("input '", spec.alias, "' is given more than once"));
      }
    }
    args->inputs.push_back(std::move(spec));
    return absl::OkStatus();
  }
  // The rest are non-empty strings.
  if (absl::Status s = NonEmpty(name, value); !s.ok()) return s;
  if (name == "server") {
    args->server = value;
  } else if (name == "model") {
    args->model = value;
  } else if (name == "label") {
    args->version_label = value;
  } else if (name == "signature_def") {
    args->signature_def = value;
  } else if (name == "examples") {
    args->examples = value;
  } else if (name == "context") {
    args->context = value;
  } else if (name == "config") {
    args->config = value;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
  }
  return absl::OkStatus();
}

bool IsServerCommand(const std::string& command) { return FindCommand(command) != nullptr; }

absl::StatusOr<ServerArgs> ParseServerArgs(const std::vector<std::string>& argv) {
  const CommandSpec* spec = argv.empty() ? nullptr : FindCommand(argv[0]);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(
        "expected predict, metadata, status, classify, regress, list or reload");
  }
  const std::string command = spec->name;
  auto takes = [spec](const std::string& name) {
    return name == "server" || name == "timeout_ms" ||
           std::find(spec->flags.begin(), spec->flags.end(), name) != spec->flags.end();
  };
  ServerArgs args;
  args.command = spec->command;

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
    if (!takes(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, " for 'tensorctl ", command, "'"));
    }
    if (name == "json") {
      if (value) return absl::InvalidArgumentError("--json takes no value");
      args.json = true;
      continue;
    }
    if (!value) {
      if (i + 1 >= argv.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
      value = argv[++i];
    }
    if (absl::Status s = SetServerFlag(name, *value, &args); !s.ok()) return s;
  }

  auto missing = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("'tensorctl ", command, "' needs ", what));
  };
  if (args.server.empty()) return missing("--server HOST:PORT");
  if (takes("model") && args.model.empty()) return missing("--model");
  if (takes("examples") && args.examples.empty()) return missing("--examples JSON");
  if (takes("config") && args.config.empty()) return missing("--config FILE");
  if (args.version && !args.version_label.empty()) {
    return absl::InvalidArgumentError("--version and --label exclude each other");
  }
  return args;
}

}  // namespace tensorctl
}  // namespace tensord
