// Parsing graph input references: "node" (output 0), "node:3", "^node" (control).
#ifndef TENSORD_RUNTIME_GRAPH_TENSOR_NAME_H_
#define TENSORD_RUNTIME_GRAPH_TENSOR_NAME_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tensord {

struct TensorRef {
  std::string node;
  int index = 0;        // output index; -1 for a control reference
  bool is_control() const { return index < 0; }
  std::string ToString() const;  // "node:3" or "^node"
};

// Splits a top-level graph reference. A trailing ":<digits>" is the output index.
TensorRef ParseTensorRef(absl::string_view ref);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_GRAPH_TENSOR_NAME_H_
