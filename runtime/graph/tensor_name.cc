#include "runtime/graph/tensor_name.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tensord {

std::string TensorRef::ToString() const {
  return is_control() ? absl::StrCat("^", node) : absl::StrCat(node, ":", index);
}

TensorRef ParseTensorRef(absl::string_view ref) {
  TensorRef out;
  if (!ref.empty() && ref[0] == '^') {
    out.node = std::string(ref.substr(1));
    out.index = -1;
    return out;
  }
  const size_t colon = ref.rfind(':');
  int index = 0;
  if (colon != absl::string_view::npos && absl::SimpleAtoi(ref.substr(colon + 1), &index) &&
      index >= 0) {
    out.node = std::string(ref.substr(0, colon));
    out.index = index;
  } else {
    out.node = std::string(ref);
  }
  return out;
}

}  // namespace tensord
