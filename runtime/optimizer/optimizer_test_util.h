// Helpers for the graph pass tests: graphs from text, constants, nodes by name.
#ifndef TENSORD_RUNTIME_OPTIMIZER_OPTIMIZER_TEST_UTIL_H_
#define TENSORD_RUNTIME_OPTIMIZER_OPTIMIZER_TEST_UTIL_H_

#include <map>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "protos/tensorflow/graph.pb.h"
#include "runtime/framework/tensor_proto.h"

namespace tensord {
namespace testing {

inline ::tensorflow::GraphDef ParseGraph(const std::string& text) {
  ::tensorflow::GraphDef graph;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &graph)) << text;
  return graph;
}

// A float Const node of `dims` with `values`.
inline ::tensorflow::NodeDef FloatConst(const std::string& name, const std::vector<float>& values,
                                        const std::vector<int64_t>& dims) {
  ::tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op("Const");
  (*node.mutable_attr())["dtype"].set_type(DT_FLOAT);
  Tensor t(DT_FLOAT, TensorShape(dims));
  std::copy(values.begin(), values.end(), t.data<float>());
  TensorToProto(t, (*node.mutable_attr())["value"].mutable_tensor());
  return node;
}

inline std::map<std::string, ::tensorflow::NodeDef> NodesByName(
    const ::tensorflow::GraphDef& graph) {
  std::map<std::string, ::tensorflow::NodeDef> out;
  for (const auto& node : graph.node()) out[node.name()] = node;
  return out;
}

inline std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

}  // namespace testing
}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_OPTIMIZER_TEST_UTIL_H_
