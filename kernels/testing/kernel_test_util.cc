#include "kernels/testing/kernel_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/device_set.h"
#include "runtime/framework/dispatch_numeric.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/framework/tensor_proto.h"

namespace tensord {
namespace testing {

using ::tensorflow::AttrValue;

NodeBuilder::NodeBuilder(const std::string& op, const std::string& name) {
  node_.set_op(op);
  node_.set_name(name);
}

NodeBuilder& NodeBuilder::Attr(const std::string& name, DataType value) {
  (*node_.mutable_attr())[name].set_type(value);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, int64_t value) {
  (*node_.mutable_attr())[name].set_i(value);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, float value) {
  (*node_.mutable_attr())[name].set_f(value);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, bool value) {
  (*node_.mutable_attr())[name].set_b(value);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, const std::string& value) {
  (*node_.mutable_attr())[name].set_s(value);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, const std::vector<int64_t>& value) {
  auto* list = (*node_.mutable_attr())[name].mutable_list();
  for (int64_t v : value) list->add_i(v);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, const std::vector<float>& value) {
  auto* list = (*node_.mutable_attr())[name].mutable_list();
  for (float v : value) list->add_f(v);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, const std::vector<DataType>& value) {
  auto* list = (*node_.mutable_attr())[name].mutable_list();
  for (DataType v : value) list->add_type(v);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, const std::vector<std::string>& value) {
  auto* list = (*node_.mutable_attr())[name].mutable_list();
  for (const auto& v : value) list->add_s(v);
  return *this;
}
NodeBuilder& NodeBuilder::Attr(const std::string& name, const Tensor& value) {
  TensorToProto(value, (*node_.mutable_attr())[name].mutable_tensor());
  return *this;
}
NodeBuilder& NodeBuilder::ShapeAttr(const std::string& name, const std::vector<int64_t>& dims) {
  auto* shape = (*node_.mutable_attr())[name].mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_size(d);
  return *this;
}

std::vector<DeviceType> TestDevices() {
  std::vector<DeviceType> devices = {DeviceType::kCpu};
  const bool gpu = !DeviceSet::ProcessDefault().gpus().empty();
  if (gpu) devices.push_back(DeviceType::kGpu);
  // Once per test binary, so that a log shows whether the GPU cases ran (tests/gpu/check.sh).
  static std::once_flag logged;
  std::call_once(logged, [gpu] {
    const DeviceSet& set = DeviceSet::ProcessDefault();
    const std::string line = gpu ? absl::StrCat("CPU, ", set.gpus()[0]->name())
                                 : absl::StrCat("CPU (", set.gpus_unavailable(), ")");
    std::fprintf(stderr, "TestDevices: %s\n", line.c_str());
  });
  return devices;
}

absl::StatusOr<std::vector<Tensor>> RunKernel(const ::tensorflow::NodeDef& node,
                                              const std::vector<Tensor>& inputs,
                                              DeviceType device, std::vector<bool> outputs_read) {
  static ResourceMgr* resources = new ResourceMgr();
  DeviceSet& devices = DeviceSet::ProcessDefault();
  // As the executor places it: an op without a kernel for the device asked for runs on the CPU.
  Device* run_on = devices.cpu();
  if (device == DeviceType::kGpu && !devices.gpus().empty() &&
      KernelRegistry::Global().Find(node, DeviceType::kGpu).ok()) {
    run_on = devices.gpus().front();
  }
  auto registration = KernelRegistry::Global().Find(node, run_on->type());
  if (!registration.ok()) return registration.status();
  auto kernel = KernelRegistry::Global().CreateKernel(node, run_on->type());
  if (!kernel.ok()) return kernel.status();
  OpKernelContext::Params params;
  params.node_name = &node.name();
  params.inputs.assign(inputs.begin(), inputs.end());
  if (run_on->type() == DeviceType::kGpu) {
    auto* gpu = static_cast<GpuDevice*>(run_on);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if ((*registration)->def.IsHostMemoryInput(static_cast<int>(i),
                                                  static_cast<int>(inputs.size()))) {
        continue;
      }
      auto on_device = CopyTensorToDevice(inputs[i], gpu);
      if (!on_device.ok()) return on_device.status();
      params.inputs[i] = *std::move(on_device);
    }
  }
  params.input_refs.resize(inputs.size());
  // Enough slots for any kernel under test; unused trailing outputs are dropped below.
  params.num_outputs = 64;
  if (!outputs_read.empty()) {
    outputs_read.resize(params.num_outputs, false);
    params.outputs_read = &outputs_read;
  }
  params.resource_mgr = resources;
  params.device = run_on;
  params.eigen_cpu_device = &devices.cpu()->eigen_device();
  OpKernelContext ctx(std::move(params));
  absl::Status status = (*kernel)->Compute(&ctx);
  if (!status.ok()) return status;
  std::vector<Tensor> outputs;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.output_ref(i) != nullptr && *ctx.output_ref(i) != nullptr) {
      auto value = (*ctx.output_ref(i))->Read(node.name());
      if (!value.ok()) return value.status();
      outputs.push_back(*value);
    } else {
      auto value = CopyTensorToHost(ctx.outputs()[i]);
      if (!value.ok()) return value.status();
      outputs.push_back(*std::move(value));
    }
  }
  while (!outputs.empty() && !outputs.back().IsInitialized()) outputs.pop_back();
  return outputs;
}

namespace {

template <typename T>
void CompareValues(const Tensor& got, const Tensor& want, double rtol, double atol) {
  const int64_t n = want.NumElements();
  int reported = 0;
  for (int64_t i = 0; i < n && reported < 10; ++i) {
    const T g = got.data<T>()[i];
    const T w = want.data<T>()[i];
    bool ok;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
                  std::is_same_v<T, Eigen::bfloat16>) {
      const double gd = static_cast<double>(static_cast<float>(g));
      const double wd = static_cast<double>(static_cast<float>(w));
      ok = (std::isnan(gd) && std::isnan(wd)) || (gd == wd) ||
           std::fabs(gd - wd) <= atol + rtol * std::fabs(wd);
    } else {
      ok = g == w;
    }
    if (!ok) {
      ++reported;
      ADD_FAILURE() << "element " << i << " differs: got "
                    << ::testing::PrintToString(g) << ", want " << ::testing::PrintToString(w);
    }
  }
}

void Compare(const Tensor& got, const Tensor& want, double rtol, double atol) {
  ASSERT_EQ(DataTypeString(got.dtype()), DataTypeString(want.dtype()));
  ASSERT_EQ(got.shape().DebugString(), want.shape().DebugString());
  if (want.dtype() == DT_STRING) {
    CompareValues<std::string>(got, want, 0, 0);
    return;
  }
  bool handled = DispatchNumeric(want.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::complex<float>> ||
                  std::is_same_v<T, std::complex<double>>) {
      const int64_t n = want.NumElements();
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_NEAR(std::abs(got.data<T>()[i] - want.data<T>()[i]), 0.0,
                    atol + rtol * std::abs(want.data<T>()[i]))
            << "element " << i;
      }
    } else {
      CompareValues<T>(got, want, rtol, atol);
    }
  });
  ASSERT_TRUE(handled) << "cannot compare dtype " << DataTypeString(want.dtype());
}

}  // namespace

void ExpectTensorNear(const Tensor& got, const Tensor& want, double rtol, double atol) {
  Compare(got, want, rtol, atol);
}

void ExpectTensorEqual(const Tensor& got, const Tensor& want) { Compare(got, want, 0, 0); }

Tensor RoundedToBfloat16(const Tensor& t) {
  Tensor rounded = t.DeepCopy();
  for (int64_t i = 0; i < rounded.NumElements(); ++i) {
    float& v = rounded.data<float>()[i];
    v = static_cast<float>(Eigen::bfloat16(v));
  }
  return rounded;
}

double MaxAbsDifference(const Tensor& a, const Tensor& b) {
  double most = 0;
  for (int64_t i = 0; i < a.NumElements() && i < b.NumElements(); ++i) {
    most = std::max(most, std::fabs(static_cast<double>(a.data<float>()[i]) - b.data<float>()[i]));
  }
  return most;
}

}  // namespace testing
}  // namespace tensord
