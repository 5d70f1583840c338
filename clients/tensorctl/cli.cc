#include "clients/tensorctl/cli.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/util/json.h"
#include "clients/tensorctl/args.h"
#include "clients/tensorctl/bench.h"
#include "clients/tensorctl/bench_args.h"
#include "clients/tensorctl/inspect.h"
#include "clients/tensorctl/placement_report.h"
#include "clients/tensorctl/remote.h"
#include "clients/tensorctl/run_io.h"
#include "runtime/exec/op_profile.h"
#include "runtime/saved_model/loader.h"

namespace tensord {
namespace tensorctl {
namespace {

int Fail(std::ostream& err, const absl::Status& status, const std::string& context = "") {
  err << "tensorctl: " << context << status.message() << "\n";
  return 1;
}

LoadOptions LoadOptionsFor(const Args& args) {
  LoadOptions options;
  options.tags = args.tag_set.value_or(std::set<std::string>{"serve"});
  if (args.device.has_value()) options.placement.policy = *args.device;
  options.precision = args.precision;
  return options;
}

int InspectPlacement(const Args& args, std::ostream& out, std::ostream& err) {
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle =
      SavedModelBundle::Load(args.dir, LoadOptionsFor(args));
  if (!bundle.ok()) return Fail(err, bundle.status(), "loading the SavedModel failed: ");
  if (args.json) {
    out << json::Write(PlacementJson((*bundle)->placement()), 2) << "\n";
  } else {
    out << PlacementText((*bundle)->placement());
  }
  return 0;
}

int Inspect(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.placement) return InspectPlacement(args, out, err);
  ::tensorflow::SavedModel saved_model;
  if (absl::Status read = ReadSavedModel(args.dir, &saved_model); !read.ok()) {
    return Fail(err, read);
  }
  std::vector<const ::tensorflow::MetaGraphDef*> meta_graphs;
  if (args.tag_set) {
    absl::StatusOr<const ::tensorflow::MetaGraphDef*> meta =
        FindMetaGraph(saved_model, *args.tag_set);
    if (!meta.ok()) return Fail(err, meta.status());
    meta_graphs.push_back(*meta);
  } else {
    for (const auto& meta : saved_model.meta_graphs()) meta_graphs.push_back(&meta);
  }
  if (args.json) {
    out << json::Write(InspectJson(meta_graphs), 2) << "\n";
  } else {
    out << InspectText(meta_graphs);
  }
  return 0;
}

int Run(const Args& args, std::ostream& out, std::ostream& err) {
  // Bad JSON or .npy input fails before the model is loaded.
  absl::StatusOr<std::vector<ParsedInput>> parsed = ReadInputs(args.inputs);
  if (!parsed.ok()) return Fail(err, parsed.status());

  absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle =
      SavedModelBundle::Load(args.dir, LoadOptionsFor(args));
  if (!bundle.ok()) return Fail(err, bundle.status(), "loading the SavedModel failed: ");
  if ((*bundle)->precision() != args.precision) {
    err << "tensorctl: " << PrecisionName(args.precision)
        << " is not available on this CPU (no AVX512_BF16): running "
        << PrecisionName((*bundle)->precision()) << "\n";
  }

  const std::map<std::string, ::tensorflow::SignatureDef> signatures = (*bundle)->signatures();
  absl::StatusOr<const ::tensorflow::SignatureDef*> signature =
      FindSignature(signatures, args.signature_def);
  if (!signature.ok()) return Fail(err, signature.status());

  absl::StatusOr<std::map<std::string, Tensor>> inputs =
      BuildInputs(args.signature_def, **signature, *parsed);
  if (!inputs.ok()) return Fail(err, inputs.status());

  absl::StatusOr<std::map<std::string, Tensor>> outputs =
      (*bundle)->RunSignature(args.signature_def, *inputs);
  if (!outputs.ok()) {
    return Fail(err, outputs.status(),
                absl::StrCat("running signature '", args.signature_def, "' failed: "));
  }

  absl::StatusOr<std::string> text = args.output_dir.empty()
                                         ? OutputsJson(*outputs)
                                         : WriteOutputs(*outputs, args.output_dir);
  if (!text.ok()) return Fail(err, text.status());
  out << *text << "\n";
  if (args.profile_runs == 0) return 0;

  // The run above built the plan and kernels: the profiled runs time only steady-state work.
  OpProfile profile;
  RunOptions options;
  options.profile = &profile;
  const auto start = std::chrono::steady_clock::now();
  for (int run = 0; run < args.profile_runs; ++run) {
    absl::StatusOr<std::map<std::string, Tensor>> again =
        (*bundle)->RunSignature(args.signature_def, *inputs, {}, options);
    if (!again.ok()) {
      return Fail(err, again.status(),
                  absl::StrCat("running signature '", args.signature_def, "' failed: "));
    }
  }
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
  char summary[160];
  std::snprintf(summary, sizeof(summary), "\nprofile: %d runs, %.3f ms per run (wall)\n",
                args.profile_runs, wall_ms / args.profile_runs);
  out << summary << profile.Table(args.profile_runs);
  return 0;
}

}  // namespace

int RunCli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (!argv.empty() && argv[0] == "bench") {
    absl::StatusOr<BenchArgs> bench_args = ParseBenchArgs(argv);
    if (!bench_args.ok()) {
      err << "tensorctl: " << bench_args.status().message() << "\n"
          << "Run 'tensorctl --help' for usage.\n";
      return 2;
    }
    // Rewriting the progress line only makes sense on a terminal; `err` is the terminal only
    // when it is the process's stderr.
    const bool tty = &err == &std::cerr && isatty(STDERR_FILENO);
    return RunBench(*bench_args, out, err, tty);
  }
  if (!argv.empty() && IsServerCommand(argv[0])) {
    absl::StatusOr<ServerArgs> server_args = ParseServerArgs(argv);
    if (!server_args.ok()) {
      err << "tensorctl: " << server_args.status().message() << "\n"
          << "Run 'tensorctl --help' for usage.\n";
      return 2;
    }
    return RunServerCommand(*server_args, out, err);
  }
  absl::StatusOr<Args> args = ParseArgs(argv);
  if (!args.ok()) {
    err << "tensorctl: " << args.status().message() << "\n"
        << "Run 'tensorctl --help' for usage.\n";
    return 2;
  }
  switch (args->command) {
    case Args::Command::kHelp: out << kUsage; return 0;
    case Args::Command::kInspect: return Inspect(*args, out, err);
    case Args::Command::kRun: return Run(*args, out, err);
  }
  return 2;
}

}  // namespace tensorctl
}  // namespace tensord
