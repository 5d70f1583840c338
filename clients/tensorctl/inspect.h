// `tensorctl inspect`: the tag sets and signatures of a SavedModel, as text in the style of
// `saved_model_cli show --all`, or as JSON:
//   {"meta_graphs": [{"tags": ["serve"],
//                     "signatures": {"serving_default": {
//                         "method_name": "tensorflow/serving/predict",
//                         "inputs": {"x": {"name": "x:0", "dtype": "DT_FLOAT", "shape": [-1, 1]}},
//                         "outputs": {...}}}}]}
// A shape of unknown rank is null in JSON and "unknown rank" in text. Signatures and aliases
// are sorted by key.
#ifndef TENSORD_CLIENTS_TENSORCTL_INSPECT_H_
#define TENSORD_CLIENTS_TENSORCTL_INSPECT_H_

#include <string>
#include <vector>

#include "runtime/util/json.h"
#include "protos/tensorflow/meta_graph.pb.h"

namespace tensord {
namespace tensorctl {

// "(-1, 1)", "(3,)", "()" or "unknown rank" (Python tuple style, as saved_model_cli prints).
std::string ShapeText(const ::tensorflow::TensorShapeProto& shape);

std::string InspectText(const std::vector<const ::tensorflow::MetaGraphDef*>& meta_graphs);
json::Value InspectJson(const std::vector<const ::tensorflow::MetaGraphDef*>& meta_graphs);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_INSPECT_H_
