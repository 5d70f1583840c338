// Serialized tf.Example protos through the ParseExampleV2 kernel, as Classify, Regress and
// parsing models feed them: sparse (int64 and string), dense (fixed and variable length, with
// defaults) and ragged features. The input is up to 8 examples, each framed by FuzzInput::Sized.
// Invariant: every input is parsed or refused with a status, never a crash.
#include "kernels/testing/kernel_test_util.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using tensord::DataType;
using tensord::Tensor;
using tensord::testing::AsTensor;

Tensor Strings(const std::vector<std::string>& values) {
  return AsTensor<std::string>(values, {static_cast<int64_t>(values.size())});
}

::tensorflow::NodeDef ParseExampleV2() {
  auto node =
      tensord::testing::NodeBuilder("ParseExampleV2")
          .Attr("num_sparse", int64_t{2})
          .Attr("sparse_types", std::vector<DataType>{tensord::DT_INT64, tensord::DT_STRING})
          .Attr("Tdense", std::vector<DataType>{tensord::DT_FLOAT, tensord::DT_FLOAT})
          .Attr("ragged_value_types", std::vector<DataType>{tensord::DT_STRING})
          .Attr("ragged_split_types", std::vector<DataType>{tensord::DT_INT64})
          .Build();
  auto* shapes = (*node.mutable_attr())["dense_shapes"].mutable_list();
  shapes->add_shape()->add_dim()->set_size(1);  // x: [1]
  auto* v = shapes->add_shape();                // v: [-1, 2], padded with the default
  v->add_dim()->set_size(-1);
  v->add_dim()->set_size(2);
  return node;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ::tensorflow::NodeDef node = ParseExampleV2();
  tensord::fuzz::FuzzInput input(data, size);
  std::vector<std::string> examples;
  for (int i = 0; i < 8; ++i) {
    std::string_view part = input.Sized();
    if (part.empty() && i > 0) break;
    examples.emplace_back(part);
  }
  const std::vector<Tensor> inputs = {Strings(examples),       Strings({}),
                                      Strings({"ids", "w"}),   Strings({"x", "v"}),
                                      Strings({"r"}),          AsTensor<float>({-1}, {1}),
                                      AsTensor<float>({0}, {})};
  (void)tensord::testing::RunKernel(node, inputs);
  return 0;
}
