#include "runtime/exec/executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <new>
#include <optional>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "runtime/exec/copy_insertion.h"
#include "runtime/exec/function_plan.h"
#include "runtime/framework/device_memory.h"
#include "runtime/exec/placer.h"
#include "runtime/graph/tensor_name.h"
#include "runtime/util/status_macros.h"
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace tensord {

using ::tensorflow::GraphDef;
using ::tensorflow::NodeDef;

namespace {

// Runs a kernel; an allocation that fails (shapes computed from a request can ask for any
// size) ends the run with RESOURCE_EXHAUSTED naming the node instead of ending the process.
absl::Status ComputeOrOutOfMemory(const OpKernel& kernel, const ::tensorflow::NodeDef& def,
                                  OpKernelContext* ctx) {
  try {
    return kernel.Compute(ctx);
  } catch (const DeviceAllocationFailed& failed) {
    return absl::Status(failed.status().code(),
                        absl::StrCat("node '", def.name(), "' (", def.op(), "): ",
                                     failed.status().message()));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "out of memory allocating a tensor in node '", def.name(), "' (", def.op(), ")"));
  }
}

// A slot holds a value, or a reference to a variable (TF1 ref edges).
struct Entry {
  void Clear() {
    value = Tensor();
    ref.reset();
  }

  Tensor value;
  std::shared_ptr<Var> ref;
};

}  // namespace

// A run's state. Frames are reused across runs of a plan (a loop body runs its plan once per
// step): Reset prepares one for the next run; slots are emptied when a run ends.
struct ExecutionPlan::Frame {
  explicit Frame(const ExecutionPlan& plan)
      : slots(plan.num_slots_),
        pending(new std::atomic<int>[plan.nodes_.size()]),
        slot_uses(new std::atomic<int>[plan.num_slots_]) {}

  void Reset(const ExecutionPlan& plan, const CancellationToken* run_cancellation,
             OpProfile* run_profile, bool run_in_sequence) {
    in_sequence = run_in_sequence;
    status = absl::OkStatus();
    cancellation = run_cancellation;
    profile = run_profile;
    if (in_sequence) return;  // no counters needed
    for (size_t i = 0; i < plan.nodes_.size(); ++i) {
      pending[i].store(plan.nodes_[i].num_in_edges, std::memory_order_relaxed);
    }
    for (int i = 0; i < plan.num_slots_; ++i) {
      slot_uses[i].store(plan.slot_consumers_[i], std::memory_order_relaxed);
    }
    outstanding.store(plan.num_scheduled_, std::memory_order_relaxed);
    failed.store(false, std::memory_order_relaxed);
    done.emplace();
  }

  void Fail(absl::Status s) {
    absl::MutexLock lock(&mu);
    if (status.ok()) status = std::move(s);
    failed.store(true, std::memory_order_release);
  }

  std::vector<Entry> slots;
  bool in_sequence = false;  // run by RunSequence
  // Dataflow runs only.
  std::unique_ptr<std::atomic<int>[]> pending;
  std::unique_ptr<std::atomic<int>[]> slot_uses;
  std::atomic<int> outstanding{0};
  std::atomic<bool> failed{false};
  const CancellationToken* cancellation = nullptr;
  OpProfile* profile = nullptr;
  absl::Mutex mu;
  absl::Status status;
  std::optional<absl::Notification> done;  // a fresh one per run
};

namespace {

// Ops that only forward, alias or describe tensors.
bool IsCheapOp(const std::string& op) {
  static const auto* const kCheap = new std::set<std::string>{
      "Const", "Identity", "IdentityN", "NoOp", "Placeholder", "PlaceholderWithDefault",
      "Shape", "ShapeN", "Size", "Rank", "Reshape", "Squeeze", "ExpandDims", "StopGradient",
      "Snapshot", "ReadVariableOp", "VarHandleOp", "VariableV2"};
  return kCheap->count(op) > 0;
}

// The device of `devices` that runs `node`: the one its device string names when present with a
// kernel, else (soft placement) the first with a kernel. Fails with the registry's error when
// none has one.
absl::StatusOr<Device*> DeviceForNode(const NodeDef& node, const DeviceSet& devices) {
  const KernelRegistry& registry = KernelRegistry::Global();
  Device* named = devices.Find(node.device());
  if (named != nullptr && registry.Find(node, named->type()).ok()) return named;
  std::vector<DeviceType> types;
  for (const Device* device : devices.devices()) {
    if (std::find(types.begin(), types.end(), device->type()) == types.end()) {
      types.push_back(device->type());
    }
  }
  TENSORD_ASSIGN_OR_RETURN(const DeviceType type, PlaceNode(node, types));
  for (Device* device : devices.devices()) {
    if (device->type() == type) return device;
  }
  return absl::InternalError("no device of the placed type");
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExecutionPlan>> ExecutionPlan::Build(
    const GraphDef& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
    const DeviceSet& devices, const ConstantTable* constants, DeviceConstants* device_constants) {
  const FlatFunctionLibrary functions(devices);
  auto constant_of = [&](const std::string& name) -> const std::vector<Tensor>* {
    if (constants == nullptr) return nullptr;
    auto it = constants->find(name);
    return it == constants->end() ? nullptr : &it->second;
  };
  absl::flat_hash_map<absl::string_view, int> by_name;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (!by_name.emplace(graph.node(i).name(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph has two nodes named '", graph.node(i).name(), "'"));
    }
  }
  auto plan = std::unique_ptr<ExecutionPlan>(new ExecutionPlan());

  absl::flat_hash_map<std::string, int> fed;  // "node:index" -> feed position
  for (size_t i = 0; i < feeds.size(); ++i) {
    TensorRef ref = ParseTensorRef(feeds[i]);
    if (ref.is_control() || !by_name.count(ref.node)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tensor ", feeds[i], ", specified in feeds, was not found in the graph"));
    }
    if (!fed.emplace(ref.ToString(), static_cast<int>(i)).second) {
      return absl::InvalidArgumentError(absl::StrCat("tensor ", feeds[i], " is fed twice"));
    }
  }

  // Backward closure of fetches and targets, cut at fed tensors.
  std::vector<int> order;              // graph node indices in the plan
  absl::flat_hash_map<int, int> plan_index;  // graph index -> plan index
  std::deque<int> queue;
  auto visit = [&](int g) {
    if (plan_index.emplace(g, static_cast<int>(order.size())).second) {
      order.push_back(g);
      queue.push_back(g);
    }
  };
  std::vector<TensorRef> fetch_refs;
  for (const std::string& f : fetches) {
    TensorRef ref = ParseTensorRef(f);
    if (ref.is_control() || !by_name.count(ref.node)) {
      return absl::NotFoundError(
          absl::StrCat("Tensor ", f, ", specified in fetches, was not found in the graph"));
    }
    fetch_refs.push_back(ref);
    if (!fed.count(ref.ToString())) visit(by_name.at(ref.node));
  }
  for (const std::string& t : targets) {
    auto it = by_name.find(ParseTensorRef(t).node);
    if (it == by_name.end()) {
      return absl::NotFoundError(absl::StrCat("target node '", t, "' was not found in the graph"));
    }
    visit(it->second);
  }
  while (!queue.empty()) {
    const NodeDef& node = graph.node(queue.front());
    queue.pop_front();
    if (constant_of(node.name()) != nullptr) continue;
    for (const std::string& in : node.input()) {
      TensorRef ref = ParseTensorRef(in);
      auto it = by_name.find(ref.node);
      if (it == by_name.end()) {
        return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' has input '", in,
                                                       "' from an unknown node"));
      }
      if (!ref.is_control() && fed.count(ref.ToString())) continue;
      visit(it->second);
    }
  }

  // Output slots: one per output index that a consumer or fetch uses.
  const int n = static_cast<int>(order.size());
  plan->nodes_.resize(n);
  for (int p = 0; p < n; ++p) plan->nodes_[p].def = &graph.node(order[p]);
  auto note_use = [&](const TensorRef& ref) {
    auto it = plan_index.find(by_name.at(ref.node));
    if (it != plan_index.end()) {
      Node& producer = plan->nodes_[it->second];
      producer.num_outputs = std::max(producer.num_outputs, ref.index + 1);
    }
  };
  for (int p = 0; p < n; ++p) {
    if (constant_of(plan->nodes_[p].def->name()) != nullptr) continue;
    for (const std::string& in : plan->nodes_[p].def->input()) {
      TensorRef ref = ParseTensorRef(in);
      if (!ref.is_control() && !fed.count(ref.ToString())) note_use(ref);
    }
  }
  for (const TensorRef& ref : fetch_refs) {
    if (!fed.count(ref.ToString())) note_use(ref);
  }
  int slots = 0;
  for (Node& node : plan->nodes_) {
    node.first_output_slot = slots;
    slots += node.num_outputs;
  }
  for (size_t i = 0; i < feeds.size(); ++i) plan->feed_slots_.push_back(slots++);
  // A value fed in place of a GPU node's output is read from that GPU's memory by the consumers
  // copy insertion wired to it (host-memory outputs aside), so each run copies it there.
  plan->feed_devices_.assign(feeds.size(), nullptr);
  for (size_t i = 0; i < feeds.size(); ++i) {
    const TensorRef ref = ParseTensorRef(feeds[i]);
    const std::string memory = OutputMemory(graph.node(by_name.at(ref.node)), ref.index);
    Device* const device = memory.empty() ? nullptr : devices.Find(memory);
    if (device == nullptr || device->type() != DeviceType::kGpu) continue;
    plan->feed_devices_[i] = static_cast<GpuDevice*>(device);
  }
  plan->num_slots_ = slots;
  plan->slot_consumers_.assign(slots, 0);

  auto slot_of = [&](const TensorRef& ref) {
    auto f = fed.find(ref.ToString());
    if (f != fed.end()) return plan->feed_slots_[f->second];
    return plan->nodes_[plan_index[by_name.at(ref.node)]].first_output_slot + ref.index;
  };

  // Constants: folded values, and Const nodes on the CPU, evaluated here once.
  plan->constant_slot_.assign(slots, false);
  plan->constant_values_.resize(slots);
  for (int p = 0; p < n; ++p) {
    Node& node = plan->nodes_[p];
    const std::vector<Tensor>* values = constant_of(node.def->name());
    std::vector<Tensor> evaluated;
    if (values == nullptr && node.def->op() == "Const" && node.def->input_size() == 0) {
      TENSORD_ASSIGN_OR_RETURN(Device* const device, DeviceForNode(*node.def, devices));
      if (device->type() != DeviceType::kCpu) continue;
      TENSORD_ASSIGN_OR_RETURN(
          std::unique_ptr<OpKernel> kernel,
          KernelRegistry::Global().CreateKernel(*node.def, device->type(), &functions));
      OpKernelContext::Params params;
      params.node_name = &node.def->name();
      params.device = device;
      params.num_outputs = node.num_outputs;
      OpKernelContext ctx(std::move(params));
      TENSORD_RETURN_IF_ERROR(ComputeOrOutOfMemory(*kernel, *node.def, &ctx));
      evaluated.assign(ctx.outputs().begin(), ctx.outputs().end());
      values = &evaluated;
    }
    if (values == nullptr) continue;
    for (int o = 0; o < node.num_outputs; ++o) {
      if (o >= static_cast<int>(values->size()) || !(*values)[o].IsInitialized()) {
        return absl::InternalError(absl::StrCat("constant node '", node.def->name(),
                                                "' has no value for output ", o));
      }
      plan->constant_slot_[node.first_output_slot + o] = true;
      plan->constant_values_[node.first_output_slot + o] = (*values)[o];
    }
    node.constant = true;
  }

  // Copies of constants into device memory: made here once rather than on every run.
  for (int p = 0; p < n; ++p) {
    Node& node = plan->nodes_[p];
    if (node.constant || node.num_outputs < 1 || node.def->op() != kHostToDeviceOp) continue;
    std::optional<TensorRef> source;
    for (const std::string& in : node.def->input()) {
      TensorRef ref = ParseTensorRef(in);
      if (!ref.is_control()) source = std::move(ref);
    }
    if (!source) continue;
    const int slot = slot_of(*source);
    if (!plan->constant_slot_[slot]) continue;
    TENSORD_ASSIGN_OR_RETURN(Device* const device, DeviceForNode(*node.def, devices));
    if (device->type() != DeviceType::kGpu) continue;
    if (device_constants == nullptr) {
      plan->own_device_constants_ = std::make_unique<DeviceConstants>();
      device_constants = plan->own_device_constants_.get();
    }
    const Tensor& host = plan->constant_values_[slot];
    absl::StatusOr<Tensor> copy = device_constants->GetOrMake(node.def->name(), [&] {
      return CopyTensorToDevice(host, static_cast<GpuDevice*>(device));
    });
    if (!copy.ok()) {
      return absl::Status(copy.status().code(),
                          absl::StrCat("copying constant '", source->node, "' to ",
                                       device->name(), ": ", copy.status().message()));
    }
    plan->constant_slot_[node.first_output_slot] = true;
    plan->constant_values_[node.first_output_slot] = *std::move(copy);
    node.constant = true;
  }

  // Edges, kernels.
  for (int p = 0; p < n; ++p) {
    Node& node = plan->nodes_[p];
    if (node.constant) continue;  // no kernel: never scheduled
    node.expensive = !IsCheapOp(node.def->op());
    for (const std::string& in : node.def->input()) {
      TensorRef ref = ParseTensorRef(in);
      const bool is_fed = !ref.is_control() && fed.count(ref.ToString());
      if (!ref.is_control()) {
        const int slot = slot_of(ref);
        node.input_slots.push_back(slot);
        ++plan->slot_consumers_[slot];
      }
      Node& producer = plan->nodes_[plan_index[by_name.at(ref.node)]];
      if (!is_fed && !producer.constant) {
        producer.successors.push_back(p);
        ++node.num_in_edges;
      }
    }
    TENSORD_ASSIGN_OR_RETURN(node.device, DeviceForNode(*node.def, devices));
    TENSORD_ASSIGN_OR_RETURN(node.registration,
                             KernelRegistry::Global().Find(*node.def, node.device->type()));
    TENSORD_ASSIGN_OR_RETURN(
        node.kernel,
        KernelRegistry::Global().CreateKernel(*node.def, node.device->type(), &functions));
  }
  for (const TensorRef& ref : fetch_refs) {
    const int slot = slot_of(ref);
    plan->fetch_slots_.push_back(slot);
    ++plan->slot_consumers_[slot];  // held until the run returns
    plan->fetch_names_.push_back(ref.ToString());
  }
  for (Node& node : plan->nodes_) {
    for (int o = 0; o < node.num_outputs; ++o) {
      node.outputs_read.push_back(plan->slot_consumers_[node.first_output_slot + o] > 0);
    }
  }

  // Kahn's algorithm: every node must become ready, otherwise the graph has a cycle (loops
  // need control-flow support, which this executor does not provide).
  std::vector<int> remaining(n);
  std::vector<int> ready;
  int visited = 0;
  for (int p = 0; p < n; ++p) {
    remaining[p] = plan->nodes_[p].num_in_edges;
    if (plan->nodes_[p].constant) {
      ++visited;
    } else if (remaining[p] == 0) {
      ready.push_back(p);
    }
  }
  plan->initial_ready_ = ready;
  plan->num_scheduled_ = n - visited;
  while (!ready.empty()) {
    int p = ready.back();
    ready.pop_back();
    ++visited;
    plan->sequence_.push_back(p);
    for (int s : plan->nodes_[p].successors) {
      if (--remaining[s] == 0) ready.push_back(s);
    }
  }
  if (visited != n) {
    for (int p = 0; p < n; ++p) {
      if (remaining[p] > 0) {
        return absl::UnimplementedError(absl::StrCat(
            "graph contains a cycle through node '", plan->nodes_[p].def->name(), "' (",
            plan->nodes_[p].def->op(), "); loops are not supported"));
      }
    }
  }

  // Sequential runs: who reads each value last, and when each slot can be emptied.
  std::vector<int> reads_left = plan->slot_consumers_;
  for (int p : plan->sequence_) {
    Node& node = plan->nodes_[p];
    const int num_inputs = static_cast<int>(node.input_slots.size());
    node.last_read_in_sequence.assign(num_inputs, false);
    for (int i = 0; i < num_inputs; ++i) {
      const int slot = node.input_slots[i];
      const int reads_here =
          static_cast<int>(std::count(node.input_slots.begin(), node.input_slots.end(), slot));
      node.last_read_in_sequence[i] = reads_here == 1 && reads_left[slot] == 1;
    }
    for (int slot : node.input_slots) {
      if (--reads_left[slot] == 0 && !plan->constant_slot_[slot]) {
        node.release_in_sequence.push_back(slot);
      }
    }
    for (int o = 0; o < node.num_outputs; ++o) {  // outputs nothing reads
      if (reads_left[node.first_output_slot + o] == 0) {
        node.release_in_sequence.push_back(node.first_output_slot + o);
      }
    }
  }
  return plan;
}

ExecutionPlan::~ExecutionPlan() = default;

absl::Status ExecutionPlan::Compute(const Node& node, Frame* frame,
                                    const ExecutionEnv& env) const {
  OpKernelContext::Params params;
  params.node_name = &node.def->name();
  const int num_inputs = static_cast<int>(node.input_slots.size());
  params.inputs.resize(num_inputs);
  params.lent_inputs.resize(num_inputs);
  params.num_outputs = node.num_outputs;
  params.outputs_read = &node.outputs_read;
  params.resource_mgr = env.resource_mgr;
  params.device = node.device;
  params.eigen_cpu_device = &env.devices->cpu()->eigen_device();
  params.execution_env = &env;
  params.cancellation = frame->cancellation;
  for (int i = 0; i < num_inputs; ++i) {
    const int slot = node.input_slots[i];
    if (constant_slot_[slot]) {
      params.lent_inputs[i] = &constant_values_[slot];
      continue;
    }
    Entry& entry = frame->slots[slot];
    if (entry.ref != nullptr) {
      if (node.registration->def.ref_inputs().count(i)) {
        params.input_refs.resize(num_inputs);
        params.input_refs[i] = entry.ref;
      } else {
        TENSORD_ASSIGN_OR_RETURN(params.inputs[i],
                                 entry.ref->Read(ParseTensorRef(node.def->input(i)).node));
      }
    } else if (frame->in_sequence
                   ? node.last_read_in_sequence[i]
                   : frame->slot_uses[slot].load(std::memory_order_acquire) == 1) {
      // The last read of this value in the run: hand the kernel the reference, so that it may
      // reuse the buffer for its output (OpKernelContext::forward_input_or_allocate_output).
      params.inputs[i] = std::move(entry.value);
    } else {
      params.lent_inputs[i] = &entry.value;  // stays in its slot until its readers are done
    }
  }
  OpKernelContext ctx(std::move(params));
  if (frame->profile == nullptr) {
    TENSORD_RETURN_IF_ERROR(ComputeOrOutOfMemory(*node.kernel, *node.def, &ctx));
  } else {
    const auto start = std::chrono::steady_clock::now();
    TENSORD_RETURN_IF_ERROR(ComputeOrOutOfMemory(*node.kernel, *node.def, &ctx));
    frame->profile->Add(node.def->op(), std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            std::chrono::steady_clock::now() - start)
                                            .count());
  }
  for (int o = 0; o < node.num_outputs; ++o) {
    Entry& out = frame->slots[node.first_output_slot + o];
    std::shared_ptr<Var>* ref = ctx.output_ref(o);
    if (ref != nullptr && *ref != nullptr) {
      out.ref = std::move(*ref);
    } else if (o < ctx.num_outputs() && ctx.outputs()[o].IsInitialized()) {
      out.value = std::move(ctx.outputs()[o]);
    } else if (node.outputs_read[o]) {
      return absl::InternalError(absl::StrCat("node '", node.def->name(), "' (", node.def->op(),
                                              ") did not produce output ", o));
    }
  }
  return absl::OkStatus();
}

void ExecutionPlan::Process(std::vector<int> ready, Frame* frame,
                            const ExecutionEnv& env) const {
  while (!ready.empty()) {
    const int p = ready.back();
    ready.pop_back();
    const Node& node = nodes_[p];
    if (!frame->failed.load(std::memory_order_acquire)) {
      absl::Status s = frame->cancellation != nullptr ? frame->cancellation->Check()
                                                      : absl::OkStatus();
      if (s.ok()) s = Compute(node, frame, env);
      if (!s.ok()) frame->Fail(std::move(s));
    }
    for (int slot : node.input_slots) {
      if (frame->slot_uses[slot].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        frame->slots[slot].Clear();
      }
    }
    for (int s : node.successors) {
      if (frame->pending[s].fetch_sub(1, std::memory_order_acq_rel) == 1) ready.push_back(s);
    }
    // Keep the cheap ready nodes and one expensive one for this thread; hand the other
    // expensive ones to the inter-op pool.
    if (env.inter_op_pool != nullptr && ready.size() > 1) {
      bool kept_expensive = false;
      for (size_t i = ready.size(); i-- > 0;) {
        if (!nodes_[ready[i]].expensive) continue;
        if (!kept_expensive) {
          kept_expensive = true;
          continue;
        }
        const int extra = ready[i];
        ready.erase(ready.begin() + i);
        env.inter_op_pool->Schedule([this, extra, frame, &env] { Process({extra}, frame, env); });
      }
    }
    if (frame->outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) frame->done->Notify();
  }
}

absl::Status ExecutionPlan::RunSequence(Frame* frame, const ExecutionEnv& env) const {
  for (int p : sequence_) {
    const Node& node = nodes_[p];
    if (frame->cancellation != nullptr) TENSORD_RETURN_IF_ERROR(frame->cancellation->Check());
    TENSORD_RETURN_IF_ERROR(Compute(node, frame, env));
    for (int slot : node.release_in_sequence) frame->slots[slot].Clear();
  }
  return absl::OkStatus();
}

absl::Status ExecutionPlan::Run(const ExecutionEnv& env, std::vector<Tensor> feeds,
                                std::vector<Tensor>* outputs,
                                const CancellationToken* cancellation,
                                OpProfile* profile) const {
  if (feeds.size() != feed_slots_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", feed_slots_.size(),
                                                   " feeds, got ", feeds.size()));
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (feed_devices_[i] == nullptr || DeviceOf(feeds[i]) != nullptr) continue;
    absl::StatusOr<Tensor> on_device = CopyTensorToDevice(feeds[i], feed_devices_[i]);
    if (!on_device.ok()) {
      return absl::Status(on_device.status().code(),
                          absl::StrCat("feed ", i, ": ", on_device.status().message()));
    }
    feeds[i] = *std::move(on_device);
  }
  std::unique_ptr<Frame> owned;
  {
    absl::MutexLock lock(&spare_frames_mu_);
    if (!spare_frames_.empty()) {
      owned = std::move(spare_frames_.back());
      spare_frames_.pop_back();
    }
  }
  if (owned == nullptr) owned = std::make_unique<Frame>(*this);
  Frame& frame = *owned;
  frame.Reset(*this, cancellation, profile, /*run_in_sequence=*/env.inter_op_pool == nullptr);
  for (size_t i = 0; i < feeds.size(); ++i) {
    frame.slots[feed_slots_[i]].value = std::move(feeds[i]);
  }
  if (frame.in_sequence) {
    frame.status = RunSequence(&frame, env);
  } else if (num_scheduled_ > 0) {
    Process(initial_ready_, &frame, env);
    frame.done->WaitForNotification();
  }
  absl::Status status = CollectOutputs(frame, outputs);
  if (frame.in_sequence && frame.status.ok()) {
    // Every other slot was emptied after its last reader.
    for (int slot : fetch_slots_) frame.slots[slot].Clear();
    for (int slot : feed_slots_) frame.slots[slot].Clear();
  } else {
    for (Entry& entry : frame.slots) entry.Clear();
  }
  absl::MutexLock lock(&spare_frames_mu_);
  if (spare_frames_.size() < kMaxSpareFrames) spare_frames_.push_back(std::move(owned));
  return status;
}

absl::Status ExecutionPlan::CollectOutputs(const Frame& frame,
                                           std::vector<Tensor>* outputs) const {
  TENSORD_RETURN_IF_ERROR(frame.status);
  outputs->clear();
  for (size_t i = 0; i < fetch_slots_.size(); ++i) {
    const Entry& entry = frame.slots[fetch_slots_[i]];
    Tensor value;
    if (constant_slot_[fetch_slots_[i]]) {
      value = constant_values_[fetch_slots_[i]];
    } else if (entry.ref != nullptr) {
      TENSORD_ASSIGN_OR_RETURN(value, entry.ref->Read(fetch_names_[i]));
    } else {
      value = entry.value;
    }
    if (value.memory_space() == MemorySpace::kDevice) {
      TENSORD_ASSIGN_OR_RETURN(value, CopyTensorToHost(value));
    }
    outputs->push_back(std::move(value));
  }
  return absl::OkStatus();
}

}  // namespace tensord
