#include "runtime/graph/builtin_op_defs.h"

#include <map>

#include "google/protobuf/text_format.h"

namespace tensord {

extern const char kBuiltinOpDefsText[];  // builtin_op_defs.pbtxt, embedded by the BUILD rule

const ::tensorflow::OpDef* FindBuiltinOpDef(const std::string& op) {
  static const auto* const kOps = [] {
    auto* ops = new std::map<std::string, ::tensorflow::OpDef>();
    ::tensorflow::OpList list;
    // The text is generated and checked by a test, so a parse failure cannot reach users;
    // it would leave the table empty rather than stop the process.
    if (google::protobuf::TextFormat::ParseFromString(kBuiltinOpDefsText, &list)) {
      for (auto& def : *list.mutable_op()) (*ops)[def.name()] = std::move(def);
    }
    return ops;
  }();
  auto it = kOps->find(op);
  return it == kOps->end() ? nullptr : &it->second;
}

}  // namespace tensord
