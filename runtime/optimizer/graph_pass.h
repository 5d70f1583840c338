// GraphPass and GraphPassPipeline: the load-time rewrites of a model's graph, as one interface
// run from ordered lists.
//
// Each pass (folding, fusion, identity elimination, placement, copy insertion) rewrites the
// graph of a GraphPassContext in place and says how many rewrites it made. A pipeline runs its
// passes in the order they were added and records each one's count under its name, so the
// loader's steps are one list that a test can read (runtime/saved_model/load_passes.h) instead
// of calls spread through the loader. The first failing pass stops the pipeline; its error
// names the pass.
//
// Not thread-safe: a pipeline runs once, for one model load.
#ifndef TENSORD_RUNTIME_OPTIMIZER_GRAPH_PASS_H_
#define TENSORD_RUNTIME_OPTIMIZER_GRAPH_PASS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/optimizer/graph_view.h"

namespace tensord {

class GraphPass {
 public:
  virtual ~GraphPass() = default;
  // A snake_case name ("fold_pad_into_conv"): the key of its count, and what errors name.
  virtual const std::string& name() const = 0;
  // Rewrites context.graph (and the constant table, where the pass folds); returns the number
  // of rewrites made, which a pass defines (nodes removed, ops fused, copies inserted).
  virtual absl::StatusOr<int> Run(const GraphPassContext& context) = 0;
};

// A pass made of a name and a function: for passes that keep no state between loads.
class FunctionGraphPass : public GraphPass {
 public:
  using Fn = std::function<absl::StatusOr<int>(const GraphPassContext&)>;
  FunctionGraphPass(std::string name, Fn fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  const std::string& name() const override { return name_; }
  absl::StatusOr<int> Run(const GraphPassContext& context) override { return fn_(context); }

 private:
  const std::string name_;
  const Fn fn_;
};

class GraphPassPipeline {
 public:
  // Appends `pass` and returns it (the pipeline owns it), for callers that read a pass's
  // state after the run.
  template <typename Pass>
  Pass* Add(std::unique_ptr<Pass> pass) {
    Pass* raw = pass.get();
    passes_.push_back(std::move(pass));
    return raw;
  }
  void Add(std::string name, FunctionGraphPass::Fn fn) {
    passes_.push_back(std::make_unique<FunctionGraphPass>(std::move(name), std::move(fn)));
  }

  // Runs every pass in order over `context`, adding each one's count to `rewrites` (by name;
  // may be null). A failing pass stops the run: "<pass>: <its message>", with its code.
  absl::Status Run(const GraphPassContext& context, std::map<std::string, int>* rewrites) const;

  // The passes' names in run order.
  std::vector<std::string> Names() const;

 private:
  std::vector<std::unique_ptr<GraphPass>> passes_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_GRAPH_PASS_H_
