// Helpers for kernel unit tests: build a NodeDef, run its registered kernel on a device, and
// compare tensors with a reference.
//
//   NodeDef node = NodeBuilder("Add").Attr("T", DT_FLOAT).Build();
//   for (DeviceType device : TestDevices()) {
//     auto out = RunKernel(node, {AsTensor<float>({1, 2}, {2}), AsTensor<float>({3}, {})}, device);
//     ASSERT_TRUE(out.ok()) << out.status();
//     ExpectTensorNear((*out)[0], AsTensor<float>({4, 5}, {2}));
//   }
#ifndef TENSORD_KERNELS_TESTING_KERNEL_TEST_UTIL_H_
#define TENSORD_KERNELS_TESTING_KERNEL_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/tensorflow/node_def.pb.h"
#include "runtime/framework/device.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace testing {

class NodeBuilder {
 public:
  explicit NodeBuilder(const std::string& op, const std::string& name = "test_node");
  NodeBuilder& Attr(const std::string& name, DataType value);
  NodeBuilder& Attr(const std::string& name, int64_t value);
  NodeBuilder& Attr(const std::string& name, int value) { return Attr(name, int64_t{value}); }
  NodeBuilder& Attr(const std::string& name, float value);
  NodeBuilder& Attr(const std::string& name, bool value);
  NodeBuilder& Attr(const std::string& name, const std::string& value);
  NodeBuilder& Attr(const std::string& name, const char* value) {
    return Attr(name, std::string(value));
  }
  NodeBuilder& Attr(const std::string& name, const std::vector<int64_t>& value);
  NodeBuilder& Attr(const std::string& name, const std::vector<float>& value);
  NodeBuilder& Attr(const std::string& name, const std::vector<DataType>& value);
  NodeBuilder& Attr(const std::string& name, const std::vector<std::string>& value);
  NodeBuilder& Attr(const std::string& name, const Tensor& value);
  // A shape attr; dims of -1 are unknown.
  NodeBuilder& ShapeAttr(const std::string& name, const std::vector<int64_t>& dims);
  ::tensorflow::NodeDef Build() const { return node_; }

 private:
  ::tensorflow::NodeDef node_;
};

// Devices the tests run on: CPU, plus GPU when built with CUDA and a GPU is visible.
std::vector<DeviceType> TestDevices();

// Creates the node's kernel for `device` and computes it once with `inputs`. On the GPU the
// inputs are copied to device memory first (host-memory inputs stay) and the outputs are
// copied back; an op without a GPU kernel runs on the CPU, as soft placement runs it.
// Ref outputs are read back as values. A non-empty `outputs_read` says which outputs the run
// reads (OpKernelContext::output_required; those past its end are not read); empty: all.
absl::StatusOr<std::vector<Tensor>> RunKernel(const ::tensorflow::NodeDef& node,
                                              const std::vector<Tensor>& inputs,
                                              DeviceType device = DeviceType::kCpu,
                                              std::vector<bool> outputs_read = {});

template <typename T>
Tensor AsTensor(const std::vector<T>& values, const std::vector<int64_t>& dims) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape(dims));
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.NumElements()); ++i) {
    t.data<T>()[i] = values[i];
  }
  return t;
}

// Float tensor `t` with every value rounded to the nearest bfloat16 (ties to even, by
// Eigen::bfloat16) and widened back: the operands a bf16 kernel multiplies.
Tensor RoundedToBfloat16(const Tensor& t);

// The largest |a - b| over two float tensors of one shape.
double MaxAbsDifference(const Tensor& a, const Tensor& b);

// gtest expectations: same dtype and shape, and values within |got-want| <= atol + rtol*|want|
// (exact for integers, bool and strings). Defaults follow the project's float32 rule.
void ExpectTensorNear(const Tensor& got, const Tensor& want, double rtol = 1e-5,
                      double atol = 1e-6);
void ExpectTensorEqual(const Tensor& got, const Tensor& want);

}  // namespace testing
}  // namespace tensord

#endif  // TENSORD_KERNELS_TESTING_KERNEL_TEST_UTIL_H_
