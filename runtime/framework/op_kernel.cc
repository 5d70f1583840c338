#include "runtime/framework/op_kernel.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/device_set.h"
#include "runtime/framework/tensor_proto.h"

namespace tensord {

using ::tensorflow::AttrValue;

bool OpKernelConstruction::HasAttr(absl::string_view name) const {
  return node_.attr().count(std::string(name)) > 0;
}

absl::StatusOr<std::vector<std::unique_ptr<Function>>> OpKernelConstruction::InstantiateFunctions(
    const std::string& attr) {
  if (functions_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "node '", name(), "' (", op(), ") runs functions, which needs an executor"));
  }
  return functions_->Instantiate(this, attr);
}

void OpKernelConstruction::SetError(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
}

const AttrValue* OpKernelConstruction::Find(absl::string_view name, const char* expected_type) {
  auto it = node_.attr().find(std::string(name));
  if (it == node_.attr().end()) {
    SetError(absl::InvalidArgumentError(
        absl::StrCat("node '", node_.name(), "' (", node_.op(), ") has no attr '", name, "'")));
    return nullptr;
  }
  (void)expected_type;
  return &it->second;
}

namespace {
absl::Status WrongType(const ::tensorflow::NodeDef& node, absl::string_view name,
                       const char* expected) {
  return absl::InvalidArgumentError(absl::StrCat("attr '", name, "' of node '", node.name(),
                                                 "' (", node.op(), ") is not of type ", expected));
}
}  // namespace

#define TENSORD_SCALAR_ATTR(CPP, CASE, GETTER, TYPENAME)                 \
  bool OpKernelConstruction::GetAttr(absl::string_view name, CPP* value) { \
    const AttrValue* a = Find(name, TYPENAME);                           \
    if (a == nullptr) return false;                                      \
    if (a->value_case() != AttrValue::CASE) {                            \
      SetError(WrongType(node_, name, TYPENAME));                        \
      return false;                                                      \
    }                                                                    \
    *value = static_cast<CPP>(a->GETTER());                              \
    return true;                                                         \
  }

TENSORD_SCALAR_ATTR(int64_t, kI, i, "int")
TENSORD_SCALAR_ATTR(int32_t, kI, i, "int")
TENSORD_SCALAR_ATTR(float, kF, f, "float")
TENSORD_SCALAR_ATTR(bool, kB, b, "bool")
TENSORD_SCALAR_ATTR(std::string, kS, s, "string")
TENSORD_SCALAR_ATTR(DataType, kType, type, "type")
#undef TENSORD_SCALAR_ATTR

// A list attr with no elements is stored as an empty ListValue, or sometimes with no value
// set at all; both read as an empty vector.
#define TENSORD_LIST_ATTR(CPP, FIELD, TYPENAME)                                     \
  bool OpKernelConstruction::GetAttr(absl::string_view name, std::vector<CPP>* value) { \
    const AttrValue* a = Find(name, TYPENAME);                                      \
    if (a == nullptr) return false;                                                 \
    if (a->value_case() != AttrValue::kList &&                                      \
        a->value_case() != AttrValue::VALUE_NOT_SET) {                              \
      SetError(WrongType(node_, name, TYPENAME));                                   \
      return false;                                                                 \
    }                                                                               \
    value->clear();                                                                 \
    for (const auto& v : a->list().FIELD()) value->push_back(static_cast<CPP>(v));  \
    return true;                                                                    \
  }

TENSORD_LIST_ATTR(int64_t, i, "list(int)")
TENSORD_LIST_ATTR(int32_t, i, "list(int)")
TENSORD_LIST_ATTR(float, f, "list(float)")
TENSORD_LIST_ATTR(std::string, s, "list(string)")
TENSORD_LIST_ATTR(DataType, type, "list(type)")
#undef TENSORD_LIST_ATTR

bool OpKernelConstruction::GetAttr(absl::string_view name, PartialShape* value) {
  const AttrValue* a = Find(name, "shape");
  if (a == nullptr) return false;
  if (a->value_case() != AttrValue::kShape) {
    SetError(WrongType(node_, name, "shape"));
    return false;
  }
  *value = PartialShape::FromProto(a->shape());
  return true;
}

bool OpKernelConstruction::GetAttr(absl::string_view name, std::vector<PartialShape>* value) {
  const AttrValue* a = Find(name, "list(shape)");
  if (a == nullptr) return false;
  value->clear();
  for (const auto& s : a->list().shape()) value->push_back(PartialShape::FromProto(s));
  return true;
}

bool OpKernelConstruction::GetAttr(absl::string_view name, Tensor* value) {
  const AttrValue* a = Find(name, "tensor");
  if (a == nullptr) return false;
  if (a->value_case() != AttrValue::kTensor) {
    SetError(WrongType(node_, name, "tensor"));
    return false;
  }
  auto t = TensorFromProto(a->tensor());
  if (!t.ok()) {
    SetError(absl::InvalidArgumentError(absl::StrCat("attr '", name, "' of node '", node_.name(),
                                                     "': ", t.status().message())));
    return false;
  }
  *value = *std::move(t);
  return true;
}

OpKernelContext::OpKernelContext(Params&& params)
    : params_(std::move(params)), outputs_(params_.num_outputs) {
  const size_t n = params_.inputs.size();
  inputs_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const bool lent = i < params_.lent_inputs.size() && params_.lent_inputs[i] != nullptr;
    inputs_[i] = lent ? params_.lent_inputs[i] : &params_.inputs[i];
  }
}

const std::shared_ptr<Var>& OpKernelContext::input_ref(int i) const {
  static const auto* const kNone = new std::shared_ptr<Var>();
  return i < static_cast<int>(params_.input_refs.size()) ? params_.input_refs[i] : *kNone;
}

Tensor* OpKernelContext::OutputSlot(int i) {
  if (i < static_cast<int>(outputs_.size())) return &outputs_[i];
  if (extra_outputs_ == nullptr) extra_outputs_ = std::make_unique<std::deque<Tensor>>();
  const size_t index = i - outputs_.size();
  if (index >= extra_outputs_->size()) extra_outputs_->resize(index + 1);
  return &(*extra_outputs_)[index];
}

Device* OpKernelContext::device() const {
  return params_.device != nullptr ? params_.device : DeviceSet::ProcessDefault().cpu();
}

namespace {

// A tensor in `device`'s memory; host memory for the CPU.
Tensor AllocateOn(Device* device, DataType dtype, const TensorShape& shape, bool zero) {
  if (device == nullptr || device->type() == DeviceType::kCpu) {
    return zero ? Tensor(dtype, shape) : Tensor::ForOverwrite(dtype, shape);
  }
  auto* gpu = static_cast<GpuDevice*>(device);
  absl::StatusOr<Tensor> tensor = AllocateDeviceTensor(gpu, dtype, shape);
  if (!tensor.ok()) throw DeviceAllocationFailed(tensor.status());
  if (zero) {
    absl::Status zeroed = gpu->Zero(tensor->raw_data(), tensor->TotalBytes());
    if (!zeroed.ok()) throw DeviceAllocationFailed(zeroed);
  }
  return *std::move(tensor);
}

// The GPU whose memory a kernel on `device` writes; null for the CPU (host memory).
const GpuDevice* OwnGpu(const Device* device) {
  return device != nullptr && device->type() == DeviceType::kGpu
             ? static_cast<const GpuDevice*>(device)
             : nullptr;
}

}  // namespace

Tensor* OpKernelContext::allocate_output(int i, DataType dtype, const TensorShape& shape) {
  Tensor* out = OutputSlot(i);
  *out = AllocateOn(params_.device, dtype, shape, /*zero=*/true);
  return out;
}

Tensor* OpKernelContext::forward_input_or_allocate_output(std::initializer_list<int> inputs,
                                                          int i, DataType dtype,
                                                          const TensorShape& shape) {
  for (int input : inputs) {
    if (inputs_[input] != &params_.inputs[input]) continue;  // lent: others read it
    const Tensor& in = params_.inputs[input];
    if (in.IsInitialized() && in.dtype() == dtype && DataTypeSize(dtype) > 0 &&
        in.shape() == shape && DeviceOf(in) == OwnGpu(params_.device) &&
        in.RefCountIsOne()) {
      Tensor* out = OutputSlot(i);
      *out = in;
      return out;
    }
  }
  return allocate_output_for_overwrite(i, dtype, shape);
}

Tensor* OpKernelContext::allocate_output_for_overwrite(int i, DataType dtype,
                                                       const TensorShape& shape) {
  Tensor* out = OutputSlot(i);
  *out = AllocateOn(params_.device, dtype, shape, /*zero=*/false);
  return out;
}

void OpKernelContext::set_output(int i, Tensor value) { *OutputSlot(i) = std::move(value); }

void OpKernelContext::set_output_ref(int i, std::shared_ptr<Var> var) {
  if (i >= params_.num_outputs) return;  // nothing reads it
  if (output_refs_.empty()) output_refs_.resize(params_.num_outputs);
  output_refs_[i] = std::move(var);
}

absl::Status OpKernelContext::InvalidArgument(absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(node_name(), ": ", message));
}

}  // namespace tensord
