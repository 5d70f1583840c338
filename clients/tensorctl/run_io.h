// `tensorctl run`: turning --input flags into tensors for a signature, and outputs into JSON or
// .npy files. Independent of the loader, so it is unit-tested on hand-made SignatureDefs.
#ifndef TENSORD_CLIENTS_TENSORCTL_RUN_IO_H_
#define TENSORD_CLIENTS_TENSORCTL_RUN_IO_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/util/json.h"
#include "clients/tensorctl/args.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace tensorctl {

// The signature `key`, or NOT_FOUND naming the available ones.
absl::StatusOr<const ::tensorflow::SignatureDef*> FindSignature(
    const std::map<std::string, ::tensorflow::SignatureDef>& signatures, const std::string& key);

// An --input flag after reading: its JSON value, or the tensor of its .npy file.
struct ParsedInput {
  std::string alias;
  std::string npy_path;  // empty for JSON
  json::Value json;      // JSON inputs
  Tensor npy;            // .npy inputs
};

// Parses the JSON values and reads the .npy files, so that bad input is reported before a
// (possibly slow) model load. Errors are INVALID_ARGUMENT / NOT_FOUND naming the input.
absl::StatusOr<std::vector<ParsedInput>> ReadInputs(const std::vector<InputSpec>& inputs);

// Builds the input tensors keyed by alias. JSON values are converted to the dtype the signature
// declares for the alias (float when it declares none); .npy data keeps its dtype, except that
// numbers are converted between numeric dtypes the way a TensorFlow feed would (floating <->
// floating, integer -> floating, integer -> integer when in range). Unknown aliases and
// string/number mismatches are INVALID_ARGUMENT errors naming the input.
absl::StatusOr<std::map<std::string, Tensor>> BuildInputs(
    const std::string& signature_key, const ::tensorflow::SignatureDef& signature,
    const std::vector<ParsedInput>& inputs);

// {"outputs": {"alias": nested lists, ...}} (one line, aliases sorted).
absl::StatusOr<std::string> OutputsJson(const std::map<std::string, Tensor>& outputs);

// Writes DIR/ALIAS.npy per output (creating DIR; characters other than [A-Za-z0-9._-] in an
// alias become '_') and returns {"outputs": {"alias": "DIR/ALIAS.npy", ...}}.
absl::StatusOr<std::string> WriteOutputs(const std::map<std::string, Tensor>& outputs,
                                         const std::string& dir);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_RUN_IO_H_
