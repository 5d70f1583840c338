// Checkpoint ops. RestoreV2 reads V2 checkpoints (tensor bundles) with TensorBundleReader; it is
// how both TF1 (saver_def.restore_op_name) and TF2 (the traced restore function) SavedModels load
// their variables. A server never writes checkpoints: the save ops are registered so that graphs
// containing them load (they are pruned from every run) and fail clearly if run. V1 checkpoints
// (Restore/RestoreSlice, TF 0.x SessionBundle exports) are not supported.
#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/saved_model/tensor_bundle.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

// `status` with the node's name in front of its message, keeping the code.
absl::Status NodeStatus(const OpKernelContext& c, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(c.node_name(), ": ", status.message()));
}

absl::Status CheckStrings(const OpKernelContext& c, int i, const char* name, int rank,
                          int64_t num_elements) {
  const Tensor& t = c.input(i);
  if (t.dtype() != DT_STRING || t.dims() != rank || t.NumElements() != num_elements) {
    return c.InvalidArgument(absl::StrCat(
        name, " must be a string ", rank == 0 ? "scalar" : "vector", " of ", num_elements,
        " elements, got ", DataTypeString(t.dtype()), " ", t.shape().DebugString()));
  }
  return absl::OkStatus();
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("dtypes", &dtypes_); }

  absl::Status Compute(OpKernelContext* c) const override {
    const int64_t n = static_cast<int64_t>(dtypes_.size());
    TENSORD_RETURN_IF_ERROR(CheckStrings(*c, 0, "prefix", 0, 1));
    TENSORD_RETURN_IF_ERROR(CheckStrings(*c, 1, "tensor_names", 1, n));
    TENSORD_RETURN_IF_ERROR(CheckStrings(*c, 2, "shape_and_slices", 1, n));
    const std::string& prefix = c->input(0).scalar<std::string>();
    const std::string* names = c->input(1).data<std::string>();
    const std::string* slices = c->input(2).data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      if (!slices[i].empty()) {
        return absl::UnimplementedError(
            absl::StrCat(c->node_name(), ": sliced restore is not supported: tensor '", names[i],
                         "' with shape_and_slices '", slices[i], "'"));
      }
    }

    auto reader = TensorBundleReader::Open(prefix);
    if (absl::IsNotFound(reader.status()) && IsRegularFile(prefix)) {
      return absl::UnimplementedError(absl::StrCat(
          c->node_name(), ": ", prefix,
          " looks like a TF1 V1 checkpoint (no .index file); only V2 checkpoints are supported"));
    }
    if (!reader.ok()) return NodeStatus(*c, reader.status());

    std::vector<int64_t> to_read;
    for (int64_t i = 0; i < n; ++i) {
      auto entry = (*reader)->Entry(names[i]);
      if (!entry.ok()) return NodeStatus(*c, entry.status());
      if (entry->dtype() != dtypes_[i]) {
        return c->InvalidArgument(absl::StrCat("tensor_names[", i, "] = '", names[i],
                                               "': expected dtype ", DataTypeString(dtypes_[i]),
                                               " does not equal the checkpoint's dtype ",
                                               DataTypeString(entry->dtype()), " in ", prefix));
      }
      // Entries nothing reads are checked but not read (PruneRestore leaves unreachable
      // variables unread).
      if (c->output_required(static_cast<int>(i))) to_read.push_back(i);
    }
    // Reading is copying from the page cache, checksumming and faulting in fresh pages: it
    // scales with threads. Share k takes every shares-th entry from k on, so that large and
    // small ones spread evenly.
    std::vector<absl::StatusOr<Tensor>> tensors(to_read.size(), absl::UnknownError("not read"));
    const int shares =
        static_cast<int>(std::min<size_t>(c->eigen_cpu_device().numThreads(), to_read.size()));
    RunShares(c->eigen_cpu_device(), shares, [&](int share) {
      for (size_t k = share; k < to_read.size(); k += shares) {
        tensors[k] = (*reader)->Lookup(names[to_read[k]]);
      }
    });
    for (size_t k = 0; k < to_read.size(); ++k) {
      if (!tensors[k].ok()) return NodeStatus(*c, tensors[k].status());
      c->set_output(static_cast<int>(to_read[k]), *std::move(tensors[k]));
    }
    return absl::OkStatus();
  }

 private:
  std::vector<DataType> dtypes_;
};

// Registered so graphs holding these ops load; computing one is an error.
class UnsupportedCheckpointOp : public OpKernel {
 public:
  explicit UnsupportedCheckpointOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const bool v1_restore = op() == "Restore" || op() == "RestoreSlice";
    return absl::UnimplementedError(absl::StrCat(
        c->node_name(), ": ", op(), " is not supported: ",
        v1_restore ? "TF1 V1 checkpoints cannot be read; re-export the model with V2 checkpoints"
                   : "this server never writes checkpoints"));
  }
};

absl::StatusOr<int32_t> Int32Scalar(const OpKernelContext& c, int i, const char* name) {
  const Tensor& t = c.input(i);
  if (t.dtype() != DT_INT32 || t.dims() != 0) {
    return c.InvalidArgument(absl::StrCat(name, " must be an int32 scalar, got ",
                                          DataTypeString(t.dtype()), " ", t.shape().DebugString()));
  }
  return t.scalar<int32_t>();
}

// "<basename>-00003-of-00008"
class ShardedFilenameOp : public OpKernel {
 public:
  explicit ShardedFilenameOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckStrings(*c, 0, "basename", 0, 1));
    TENSORD_ASSIGN_OR_RETURN(const int32_t shard, Int32Scalar(*c, 1, "shard"));
    TENSORD_ASSIGN_OR_RETURN(const int32_t num_shards, Int32Scalar(*c, 2, "num_shards"));
    c->set_output(0, Tensor::Scalar<std::string>(absl::StrFormat(
                         "%s-%05d-of-%05d", c->input(0).scalar<std::string>(), shard, num_shards)));
    return absl::OkStatus();
  }
};

// "<basename>-?????-of-00008"
class ShardedFilespecOp : public OpKernel {
 public:
  explicit ShardedFilespecOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckStrings(*c, 0, "basename", 0, 1));
    TENSORD_ASSIGN_OR_RETURN(const int32_t num_shards, Int32Scalar(*c, 1, "num_shards"));
    c->set_output(0, Tensor::Scalar<std::string>(
                         absl::StrFormat("%s-?????"
                                         "-of-%05d",  // split: "??-" is a trigraph
                                         c->input(0).scalar<std::string>(), num_shards)));
    return absl::OkStatus();
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("RestoreV2").Device(DeviceType::kCpu), RestoreV2Op);
TENSORD_REGISTER_KERNEL(KernelDef("ShardedFilename").Device(DeviceType::kCpu), ShardedFilenameOp);
TENSORD_REGISTER_KERNEL(KernelDef("ShardedFilespec").Device(DeviceType::kCpu), ShardedFilespecOp);
TENSORD_REGISTER_KERNEL(KernelDef("Restore").Device(DeviceType::kCpu), UnsupportedCheckpointOp);
TENSORD_REGISTER_KERNEL(KernelDef("RestoreSlice").Device(DeviceType::kCpu),
                        UnsupportedCheckpointOp);
TENSORD_REGISTER_KERNEL(KernelDef("SaveV2").Device(DeviceType::kCpu), UnsupportedCheckpointOp);
TENSORD_REGISTER_KERNEL(KernelDef("Save").Device(DeviceType::kCpu), UnsupportedCheckpointOp);
TENSORD_REGISTER_KERNEL(KernelDef("SaveSlices").Device(DeviceType::kCpu), UnsupportedCheckpointOp);
TENSORD_REGISTER_KERNEL(KernelDef("MergeV2Checkpoints").Device(DeviceType::kCpu),
                        UnsupportedCheckpointOp);

}  // namespace
}  // namespace tensord
