#include "clients/tensorctl/args.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tensord {
namespace tensorctl {

const char kUsage[] = R"(usage: tensorctl <command> [flags]

Commands:
  inspect DIR [--tag_set TAGS] [--json]
      Show the tag sets and signatures of the SavedModel in DIR (every meta graph unless
      --tag_set is given), like `saved_model_cli show --all`; --json prints them as JSON.
  run DIR [--tag_set TAGS] [--signature_def KEY] [--input ALIAS=VALUE ...] [--output_dir D]
      Load the SavedModel in DIR and run one signature. VALUE is a JSON nested list such as
      '[[1.0], [2.0]]', converted to the input's declared dtype (strings for DT_STRING, also
      {"b64": "..."}), or @FILE.npy. Prints {"outputs": {ALIAS: VALUE, ...}}; with
      --output_dir, writes D/ALIAS.npy for each output instead.
  predict --server HOST:PORT --model NAME [--version N | --label L] [--signature_def KEY]
          [--input ALIAS=VALUE ...] [--output_filter A,B]
      Call PredictionService.Predict on a TF Serving-compatible gRPC server. The inputs' dtypes
      come from GetModelMetadata; VALUE is as for run. Prints
      {"model_spec": {"name", "version", "signature_name"}, "outputs": {ALIAS: VALUE, ...}}.
  classify --server HOST:PORT --model NAME [--version N | --label L] [--signature_def KEY]
           --examples EXAMPLES [--context EXAMPLE]
  regress ... (the same flags)
      Call PredictionService.Classify / Regress with tf.Examples written as in TF Serving's
      REST API: EXAMPLES is a JSON list of objects, EXAMPLE one object, or @FILE.json holding
      it, e.g. '[{"x": 1.0, "n": [1, 2], "s": "a", "b": {"b64": "AP8="}}]'. Integers become
      int64_list, decimals (1.0, not 1) float_list, strings and {"b64": ...} bytes_list; a
      feature holds one value or a flat list. Prints {"results": [[["LABEL", SCORE], ...],
      ...]} (classify) or {"results": [VALUE, ...]} (regress), one entry per example.
  metadata --server HOST:PORT --model NAME [--version N | --label L]
      Print the model's SignatureDefMap (GetModelMetadata) as JSON.
  status --server HOST:PORT --model NAME [--version N]
      Print ModelService.GetModelStatus as JSON.
  list --server HOST:PORT [--json]
      List the server's models with each version's state (tensord's ModelRepository.ListModels;
      not part of TF Serving): a MODEL / VERSION / STATE table, or JSON with --json.
  reload --server HOST:PORT --config FILE
      Send the text-format ModelServerConfig in FILE to ModelService.HandleReloadConfigRequest
      and print the returned status as JSON.

Flags:
  --tag_set TAGS        comma-separated tags of the meta graph (run default: serve)
  --signature_def KEY   signature to run (default: serving_default)
  --input ALIAS=VALUE   one input; repeat for several
  --output_dir D        directory for the outputs' .npy files (created if missing)
  --json                inspect, list: machine-readable JSON
  --server HOST:PORT    gRPC server of the server commands
  --model NAME          model name on the server
  --version N           model version (default: the server's latest)
  --label L             model version by its label (version_labels of the server's config)
  --output_filter A,B   predict: only these outputs
  --examples EXAMPLES   classify, regress: the tf.Examples (JSON or @FILE)
  --context EXAMPLE     classify, regress: features shared by all examples (JSON or @FILE)
  --config FILE         reload: text-format ModelServerConfig
  --timeout_ms MS       gRPC deadline per call (default: 30000)
  -h, --help            show this help

Exit status: 0 on success, 1 on errors (server errors print "tensorctl: <gRPC code>: <message>"),
2 on usage errors.
)";

std::set<std::string> ParseTagSet(const std::string& text) {
  std::set<std::string> tags;
  for (absl::string_view tag : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    tags.insert(std::string(absl::StripAsciiWhitespace(tag)));
  }
  return tags;
}

absl::StatusOr<Args> ParseArgs(const std::vector<std::string>& argv) {
  Args args;
  if (argv.empty()) return absl::InvalidArgumentError("missing command (inspect or run)");
  const std::string& command = argv[0];
  if (command == "-h" || command == "--help" || command == "help") {
    args.command = Args::Command::kHelp;
    return args;
  }
  if (command == "inspect") {
    args.command = Args::Command::kInspect;
  } else if (command == "run") {
    args.command = Args::Command::kRun;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown command '", command,
                     "' (expected inspect, run, predict, classify, regress, metadata, status, "
                     "list or reload)"));
  }
  const bool run = args.command == Args::Command::kRun;

  std::vector<std::string> positional;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      args.command = Args::Command::kHelp;
      return args;
    }
    if (arg == "--") {
      positional.insert(positional.end(), argv.begin() + i + 1, argv.end());
      break;
    }
    if (!absl::StartsWith(arg, "--")) {
      positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "json" && !run) {
      if (value) return absl::InvalidArgumentError("--json takes no value");
      args.json = true;
      continue;
    }
    const bool known =
        name == "tag_set" ||
        (run && (name == "signature_def" || name == "input" || name == "output_dir"));
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
    if (name == "tag_set") {
      args.tag_set = ParseTagSet(*value);
    } else if (name == "signature_def") {
      if (value->empty()) return absl::InvalidArgumentError("--signature_def is empty");
      args.signature_def = *value;
    } else if (name == "output_dir") {
      if (value->empty()) return absl::InvalidArgumentError("--output_dir is empty");
      args.output_dir = *value;
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
  if (positional.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("'tensorctl ", command,
                                                   "' needs the SavedModel directory"));
  }
  if (positional.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", positional[1], "' (only one directory)"));
  }
  args.dir = positional[0];
  return args;
}

}  // namespace tensorctl
}  // namespace tensord
