#include "runtime/saved_model/loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "runtime/framework/host_allocator.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/resource.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/graph/op_registry.h"
#include "runtime/graph/tensor_name.h"
#include "runtime/saved_model/load_passes.h"
#include "runtime/saved_model/restore_pruning.h"
#include "runtime/saved_model/serving_optimizer.h"
#include "runtime/util/status_macros.h"

namespace tensord {

using ::tensorflow::MetaGraphDef;
using ::tensorflow::SavedModel;
using ::tensorflow::SignatureDef;

namespace {

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path));
  return buffer.str();
}

// Collections store op names; the init op collections hold exactly one.
absl::StatusOr<std::string> InitOpFromCollection(const MetaGraphDef& meta, const std::string& key) {
  auto it = meta.collection_def().find(key);
  if (it == meta.collection_def().end()) return std::string();
  const auto& names = it->second.node_list().value();
  if (names.size() != 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("collection '", key, "' must hold exactly one op, it has ", names.size()));
  }
  return names[0];
}

absl::StatusOr<std::string> FindInitOp(const MetaGraphDef& meta) {
  auto sig = meta.signature_def().find(kInitOpSignature);
  if (sig != meta.signature_def().end()) {
    auto out = sig->second.outputs().find(kInitOpSignature);
    if (out != sig->second.outputs().end()) return out->second.name();
  }
  TENSORD_ASSIGN_OR_RETURN(std::string main_op, InitOpFromCollection(meta, "saved_model_main_op"));
  if (!main_op.empty()) return main_op;
  return InitOpFromCollection(meta, "legacy_init_op");
}

// Feeds mapping each asset tensor to the asset's real path in this export.
absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> AssetFeeds(
    const MetaGraphDef& meta, const std::string& export_dir) {
  std::vector<::tensorflow::AssetFileDef> assets(meta.asset_file_def().begin(),
                                                 meta.asset_file_def().end());
  if (assets.empty()) {
    auto it = meta.collection_def().find("saved_model_assets");
    if (it != meta.collection_def().end()) {
      for (const auto& any : it->second.any_list().value()) {
        ::tensorflow::AssetFileDef asset;
        if (!any.UnpackTo(&asset)) {
          return absl::DataLossError(
              "collection 'saved_model_assets' holds an entry that is not an AssetFileDef");
        }
        assets.push_back(asset);
      }
    }
  }
  // Exporters may list one asset tensor more than once; it is fed once.
  std::map<std::string, std::string> paths;
  for (const auto& asset : assets) {
    paths[asset.tensor_info().name()] = export_dir + "/assets/" + asset.filename();
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [tensor, path] : paths) {
    feeds.emplace_back(tensor, Tensor::Scalar<std::string>(path));
  }
  return feeds;
}

std::string TagsString(const std::set<std::string>& tags) {
  return absl::StrCat("{", absl::StrJoin(tags, ","), "}");
}

// Removes the nodes of `graph` not in `kept`; returns how many.
int RemoveNodesOutside(::tensorflow::GraphDef* graph,
                       const absl::flat_hash_set<std::string>& kept) {
  auto* nodes = graph->mutable_node();
  const int before = nodes->size();
  nodes->erase(std::remove_if(nodes->begin(), nodes->end(),
                              [&kept](const auto& node) { return !kept.count(node.name()); }),
               nodes->end());
  return before - nodes->size();
}

// Cuts the top-level graph, before function inlining, to what the signatures and the loader's
// own runs (`loader_runs`: init and restore ops, the tensors they are fed) need: not the save
// function TF2 exports carry, nor reads nothing consumes (ResNet50: half of its 9800 nodes once
// inlined). Returns how many nodes it removed.
int RemoveTopLevelNodesNothingRuns(::tensorflow::GraphDef* graph,
                                   const std::vector<SignatureIo>& signatures,
                                   const std::vector<std::string>& loader_runs) {
  std::vector<std::string> roots;
  for (const SignatureIo& sig : signatures) {
    for (const auto& names : {sig.feeds, sig.fetches}) {
      roots.insert(roots.end(), names.begin(), names.end());
    }
  }
  for (const std::string& name : loader_runs) {
    if (!name.empty()) roots.push_back(name);
  }
  return RemoveNodesOutside(graph, SignatureClosure(*graph, {SignatureIo{{}, roots}}));
}

struct ReleasedState {
  int variables = 0;
  int nodes = 0;
};

// Drops what the optimised serving graph no longer reaches — constants the passes replaced
// (e.g. filters folded with batch norm), variables nothing reads any more (frozen ones, and
// the second copy Keras 3 exports keep of every variable), and the nodes no signature runs
// (restore and init ops, the reads behind frozen constants), which the serving session would
// otherwise keep for its whole life.
absl::StatusOr<ReleasedState> ReleaseUnreachableState(::tensorflow::GraphDef* graph,
                                                      const std::vector<SignatureIo>& signatures,
                                                      ConstantTable* constants,
                                                      Session* load_session,
                                                      ResourceMgr* resources) {
  // Constants are where serving stops: their inputs never run.
  const auto is_constant = [constants](const std::string& name) {
    return constants->count(name) > 0;
  };
  const absl::flat_hash_set<std::string> reachable =
      SignatureClosure(*graph, signatures, is_constant);
  absl::erase_if(*constants,
                 [&reachable](const auto& entry) { return !reachable.count(entry.first); });
  const std::optional<absl::flat_hash_set<std::string>> variables =
      ReachableVariables(*graph, reachable);
  std::vector<std::string> handles;
  for (const auto& node : graph->node()) {
    if (variables && node.op() == "VarHandleOp" && !variables->count(VariableResource(node))) {
      handles.push_back(node.name() + ":0");
    }
  }
  if (!handles.empty()) {
    std::vector<Tensor> values;
    TENSORD_RETURN_IF_ERROR(load_session->Run({}, handles, {}, &values));
    for (const Tensor& t : values) {
      const ResourceHandle& handle = t.scalar<ResourceHandle>();
      resources->Erase<Var>(handle.container(), handle.name());
    }
  }

  // Nodes: the fetches' closure cut only at constants (a fed tensor's producer stays, with what
  // it reads, so that every kept node's inputs exist); constants lose their inputs.
  std::vector<SignatureIo> fetches_only;
  for (const SignatureIo& sig : signatures) fetches_only.push_back(SignatureIo{{}, sig.fetches});
  const int removed =
      RemoveNodesOutside(graph, SignatureClosure(*graph, fetches_only, is_constant));
  for (auto& node : *graph->mutable_node()) {
    if (is_constant(node.name())) node.clear_input();
  }
  return ReleasedState{static_cast<int>(handles.size()), removed};
}

std::map<std::string, DataType> GraphInputDtypes(const MetaGraphDef& meta) {
  std::set<std::string> inputs;  // node names
  for (const auto& [key, sig] : meta.signature_def()) {
    for (const auto& [alias, info] : sig.inputs()) inputs.insert(ParseTensorRef(info.name()).node);
  }
  std::map<std::string, DataType> dtypes;  // by node name
  for (const auto& node : meta.graph_def().node()) {
    if (!inputs.count(node.name())) continue;
    const char* attr = node.op() == "Placeholder" || node.op() == "PlaceholderWithDefault" ? "dtype"
                       : node.op() == "Identity"                                           ? "T"
                                                 : nullptr;
    auto it = attr == nullptr ? node.attr().end() : node.attr().find(attr);
    if (it != node.attr().end()) dtypes[node.name()] = it->second.type();
  }
  return dtypes;
}

}  // namespace

absl::Status ReadSavedModel(const std::string& export_dir, SavedModel* model) {
  const std::string pb = export_dir + "/saved_model.pb";
  const std::string pbtxt = export_dir + "/saved_model.pbtxt";
  if (FileExists(pb)) {
    TENSORD_ASSIGN_OR_RETURN(std::string bytes, ReadFile(pb));
    google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(INT32_MAX);
    if (!model->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
      return absl::DataLossError(absl::StrCat("cannot parse ", pb, ": not a valid SavedModel"));
    }
    return absl::OkStatus();
  }
  if (FileExists(pbtxt)) {
    TENSORD_ASSIGN_OR_RETURN(std::string text, ReadFile(pbtxt));
    if (!google::protobuf::TextFormat::ParseFromString(text, model)) {
      return absl::DataLossError(absl::StrCat("cannot parse ", pbtxt, ": not a valid SavedModel"));
    }
    return absl::OkStatus();
  }
  return absl::NotFoundError(absl::StrCat(
      "Could not find SavedModel .pb or .pbtxt at supplied export directory path: ", export_dir));
}

absl::StatusOr<const MetaGraphDef*> FindMetaGraph(const SavedModel& saved_model,
                                                  const std::set<std::string>& tags) {
  std::vector<std::string> available;
  for (const MetaGraphDef& meta : saved_model.meta_graphs()) {
    std::set<std::string> meta_tags(meta.meta_info_def().tags().begin(),
                                    meta.meta_info_def().tags().end());
    if (meta_tags == tags) return &meta;
    available.push_back(TagsString(meta_tags));
  }
  return absl::NotFoundError(absl::StrCat(
      "Could not find meta graph def matching supplied tags: ", TagsString(tags),
      ". Available tag sets: ", available.empty() ? "none" : absl::StrJoin(available, " ")));
}

namespace {

// Ops of `graph` and of the function bodies its control-flow nodes run that have no
// registered kernel, each as "Op (node N)" with the first node using it, sorted by op.
std::vector<std::string> OpsWithoutKernels(::tensorflow::GraphDef* graph) {
  std::map<std::string, std::string> missing;  // op -> first node
  const auto collect = [&missing](const ::tensorflow::GraphDef& g) {
    for (const ::tensorflow::NodeDef& node : g.node()) {
      if (!KernelRegistry::Global().HasOp(node.op())) missing.emplace(node.op(), node.name());
    }
  };
  collect(*graph);
  RewriteFlatFunctions(graph, [&collect](::tensorflow::GraphDef* body) { collect(*body); });
  std::vector<std::string> out;
  for (const auto& [op, node] : missing) out.push_back(absl::StrCat(op, " (node ", node, ")"));
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SavedModelBundle>> SavedModelBundle::Load(
    const std::string& export_dir, const LoadOptions& options) {
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle = LoadAndOptimize(export_dir, options);
  // What loading allocated and freed (the load session, checkpoint reads, filters replaced by
  // folded ones, the graphs before inlining and optimisation) goes back to the system.
  HostAllocator::Global().ReleaseCached();
  return bundle;
}

absl::StatusOr<std::unique_ptr<SavedModelBundle>> SavedModelBundle::LoadAndOptimize(
    const std::string& export_dir, const LoadOptions& options) {
  // What only loading reads and rewrites (the parsed SavedModel, the inlined graph) lives on an
  // arena of large blocks, freed whole at the end. Allocated one by one, its many small objects
  // would share allocator pages with the few that outlive the load, and those pages could not
  // go back to the system (ResNet50: 5 MB of such pages).
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = 1 << 20;
  arena_options.max_block_size = 8 << 20;
  google::protobuf::Arena arena(arena_options);
  auto* saved_model = google::protobuf::Arena::CreateMessage<SavedModel>(&arena);
  TENSORD_RETURN_IF_ERROR(ReadSavedModel(export_dir, saved_model));
  TENSORD_ASSIGN_OR_RETURN(const MetaGraphDef* found, FindMetaGraph(*saved_model, options.tags));
  MetaGraphDef* meta = nullptr;
  for (MetaGraphDef& candidate : *saved_model->mutable_meta_graphs()) {
    if (&candidate == found) meta = &candidate;
  }
  const MetaGraphDef& mg = *meta;

  auto bundle = std::unique_ptr<SavedModelBundle>(new SavedModelBundle());
  bundle->export_dir_ = export_dir;
  std::vector<SignatureIo> io;
  for (const auto& [key, sig] : mg.signature_def()) {
    if (key == kInitOpSignature) continue;
    SignatureIo one;
    for (const auto& [alias, info] : sig.inputs()) one.feeds.push_back(info.name());
    for (const auto& [alias, info] : sig.outputs()) one.fetches.push_back(info.name());
    io.push_back(std::move(one));
  }
  TENSORD_ASSIGN_OR_RETURN(const std::string init_op, FindInitOp(mg));
  const auto& saver = mg.saver_def();
  TENSORD_ASSIGN_OR_RETURN(auto asset_feeds, AssetFeeds(mg, export_dir));
  if (options.optimize) {
    std::vector<std::string> loader_runs = {init_op, saver.restore_op_name(),
                                            saver.filename_tensor_name()};
    for (const auto& [name, value] : asset_feeds) loader_runs.push_back(name);
    bundle->skipped_top_level_nodes_ =
        RemoveTopLevelNodesNothingRuns(meta->mutable_graph_def(), io, loader_runs);
  }
  OpRegistry ops(mg.meta_info_def().stripped_op_list(), mg.graph_def().library());
  auto& graph = *google::protobuf::Arena::CreateMessage<::tensorflow::GraphDef>(&arena);
  TENSORD_RETURN_IF_ERROR(InlineFunctions(mg.graph_def(), ops, &graph));
  if (options.optimize && !saver.restore_op_name().empty()) {
    std::vector<SignatureIo> runs = io;
    if (!init_op.empty()) runs.push_back(SignatureIo{{}, {init_op}});
    bundle->skipped_restores_ =
        PruneRestore(&graph, saver.restore_op_name(), SignatureClosure(graph, runs));
  }
  // Restore and init run in a load session; serving uses a second session over the same
  // variables with the load-time optimisations applied.
  auto resources = std::make_shared<ResourceMgr>();
  DeviceSet& devices = DeviceSet::OrProcessDefault(options.session.devices);
  // Placed once, over the graph serving runs: this one unless the optimised one replaces it
  // (the load session places its nodes as it builds its plans).
  bundle->precision_ = EffectivePrecision(options.precision);
  const GraphPassPipeline device_passes =
      DevicePasses(devices, options.placement, bundle->precision_, &bundle->placement_);
  if (!options.optimize) {
    TENSORD_RETURN_IF_ERROR(
        device_passes.Run(GraphPassContext{&graph, nullptr, {}}, &bundle->pass_rewrites_));
  }
  TENSORD_ASSIGN_OR_RETURN(bundle->session_, NewSession(graph, options.session, resources));

  std::vector<Tensor> unused;
  const std::string prefix = export_dir + "/variables/variables";
  if (!saver.restore_op_name().empty() && FileExists(prefix + ".index")) {
    auto feeds = asset_feeds;
    feeds.emplace_back(saver.filename_tensor_name(), Tensor::Scalar<std::string>(prefix));
    absl::Status s = bundle->session_->Run(feeds, {}, {saver.restore_op_name()}, &unused);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("restoring variables of ", export_dir, ": ", s.message()));
    }
  }
  if (!init_op.empty()) {
    absl::Status s = bundle->session_->Run(asset_feeds, {}, {init_op}, &unused);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("running init op '", init_op, "' of ", export_dir,
                                                 ": ", s.message()));
    }
  }
  if (options.optimize) {
    TENSORD_RETURN_IF_ERROR(
        LoopPasses(ops).Run(GraphPassContext{&graph, nullptr, {}}, &bundle->pass_rewrites_));
    ServingOptimizerOptions optimizer_options;
    optimizer_options.devices = options.session.devices;
    TENSORD_ASSIGN_OR_RETURN(
        ServingOptimization optimized,
        OptimizeForServing(graph, io, ops, bundle->session_.get(), optimizer_options));
    bundle->frozen_variables_ = optimized.frozen_variables;
    bundle->folded_nodes_ = optimized.folded_nodes;
    bundle->has_mutable_state_ = optimized.written_variables > 0;
    GraphPassContext passes{&graph, optimized.constants.get(), {}};
    for (const SignatureIo& sig : io) {
      for (const auto& names : {sig.feeds, sig.fetches}) {
        for (const std::string& name : names) passes.keep.insert(ParseTensorRef(name).node);
      }
    }
    FoldAffineIntoConvPass* fold_affine = nullptr;  // owned by `optimization`
    const GraphPassPipeline optimization = OptimizationPasses(&fold_affine);
    TENSORD_RETURN_IF_ERROR(optimization.Run(passes, &bundle->pass_rewrites_));
    TENSORD_ASSIGN_OR_RETURN(const ReleasedState released,
                             ReleaseUnreachableState(&graph, io, optimized.constants.get(),
                                                     bundle->session_.get(), resources.get()));
    bundle->released_variables_ = released.variables;
    bundle->pruned_nodes_ = released.nodes;
    // Now that the frozen variables serving no longer reads are gone, most filters are held by
    // nothing else and are scaled in their own buffers.
    ScaleFoldedFilters(fold_affine->TakeFilterScales(), optimized.constants.get());
    TENSORD_RETURN_IF_ERROR(device_passes.Run(passes, &bundle->pass_rewrites_));
    TENSORD_ASSIGN_OR_RETURN(
        bundle->session_, NewSession(::tensorflow::GraphDef(graph) /* a copy off the arena */,
                                     options.session, resources, std::move(optimized.constants)));
  }
  // A missing kernel would otherwise surface only when a request reaches the node. Only the
  // optimised graph is cut to what the signatures run; the plain one keeps the save ops.
  const std::vector<std::string> missing =
      options.optimize ? OpsWithoutKernels(&graph) : std::vector<std::string>();
  if (!missing.empty()) {
    return absl::UnimplementedError(
        absl::StrCat("model ", export_dir, " uses ops that tensord has no kernel for: ",
                     absl::StrJoin(missing, ", ")));
  }
  // A version placed on a GPU gets its weights there now, so that a GPU without the memory
  // fails the load rather than the first requests, and the memory shows from the start.
  if (bundle->placement_.PrimaryDevice() != kCpuDeviceName) {
    for (const auto& [key, sig] : mg.signature_def()) {
      if (key == kInitOpSignature) continue;
      std::vector<std::string> feeds, fetches;
      for (const auto& [alias, info] : sig.inputs()) feeds.push_back(info.name());
      for (const auto& [alias, info] : sig.outputs()) fetches.push_back(info.name());
      absl::Status s = bundle->session_->Prepare(feeds, fetches, {});
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("preparing signature '", key, "' of ",
                                                   export_dir, ": ", s.message()));
      }
    }
  }
  // Serving needs the signatures and their inputs' dtypes; the graph now lives on, optimised,
  // in the session.
  bundle->graph_input_dtypes_ = GraphInputDtypes(mg);
  meta->clear_graph_def();
  bundle->meta_graph_ = *meta;  // a copy off the arena
  return bundle;
}

int SavedModelBundle::rewrites(const std::string& pass) const {
  auto it = pass_rewrites_.find(pass);
  return it == pass_rewrites_.end() ? 0 : it->second;
}

DataType SavedModelBundle::GraphInputDtype(const std::string& tensor_name) const {
  auto it = graph_input_dtypes_.find(ParseTensorRef(tensor_name).node);
  return it == graph_input_dtypes_.end() ? DT_INVALID : it->second;
}

std::map<std::string, SignatureDef> SavedModelBundle::signatures() const {
  std::map<std::string, SignatureDef> out;
  for (const auto& [key, sig] : meta_graph_.signature_def()) {
    if (key != kInitOpSignature) out[key] = sig;
  }
  return out;
}

absl::StatusOr<std::map<std::string, Tensor>> SavedModelBundle::RunSignature(
    const std::string& signature_key, const std::map<std::string, Tensor>& inputs,
    const std::vector<std::string>& output_filter, const RunOptions& run_options) const {
  auto sig_it = meta_graph_.signature_def().find(signature_key);
  if (sig_it == meta_graph_.signature_def().end() || signature_key == kInitOpSignature) {
    return absl::FailedPreconditionError(
        absl::StrCat("Serving signature key \"", signature_key, "\" not found."));
  }
  const SignatureDef& sig = sig_it->second;

  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [alias, tensor] : inputs) {
    auto info = sig.inputs().find(alias);
    if (info == sig.inputs().end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : sig.inputs()) known.push_back(k);
      return absl::InvalidArgumentError(
          absl::StrCat("input '", alias, "' is not an input of signature '", signature_key,
                       "' (inputs: ", known.empty() ? "none" : absl::StrJoin(known, ", "), ")"));
    }
    if (info->second.encoding_case() != ::tensorflow::TensorInfo::kName) {
      return absl::UnimplementedError(
          absl::StrCat("input '", alias, "' is a sparse or composite tensor"));
    }
    const DataType expected = BaseType(info->second.dtype());
    if (expected != DT_INVALID && tensor.dtype() != expected) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", alias, "' of signature '", signature_key, "' expects ",
                       DataTypeString(expected), " but got ", DataTypeString(tensor.dtype())));
    }
    feeds.emplace_back(info->second.name(), tensor);
  }

  std::vector<std::string> aliases;
  std::vector<std::string> fetches;
  if (output_filter.empty()) {
    for (const auto& [alias, info] : sig.outputs()) aliases.push_back(alias);
  } else {
    aliases = output_filter;
  }
  for (const std::string& alias : aliases) {
    auto info = sig.outputs().find(alias);
    if (info == sig.outputs().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", alias, "' is not an output of signature '", signature_key, "'"));
    }
    if (info->second.encoding_case() != ::tensorflow::TensorInfo::kName) {
      return absl::UnimplementedError(
          absl::StrCat("output '", alias, "' is a sparse or composite tensor"));
    }
    fetches.push_back(info->second.name());
  }
  std::vector<Tensor> values;
  TENSORD_RETURN_IF_ERROR(session_->Run(feeds, fetches, {}, run_options, &values));
  std::map<std::string, Tensor> out;
  for (size_t i = 0; i < aliases.size(); ++i) out[aliases[i]] = std::move(values[i]);
  return out;
}

}  // namespace tensord
