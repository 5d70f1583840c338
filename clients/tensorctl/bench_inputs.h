// The input tensors of `tensorctl bench`'s Predict request: --input values where given (read as
// `tensorctl predict` reads them), random data of each other input's declared dtype and shape.
//
// Shapes: an input's --shape is used as given (it must have the signature's rank and agree with
// its known dims). Otherwise each unknown (-1) dim becomes --batch (default 1) at dim 0 and 1
// elsewhere; an input of unknown rank needs --shape.
// Values: floating point uniform in [0, 1) (complex: both parts), integers uniform in [0, 100)
// (in range for every integer dtype and small enough for typical id and index inputs), bools
// random, strings 8 random lowercase letters. Inputs that need meaningful values (serialized
// tf.Examples, vocabulary ids) take --input instead. The values come from a fixed seed, so runs
// send the same data.
#ifndef TENSORD_CLIENTS_TENSORCTL_BENCH_INPUTS_H_
#define TENSORD_CLIENTS_TENSORCTL_BENCH_INPUTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "clients/tensorctl/run_io.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace tensorctl {

struct SynthesisOptions {
  std::map<std::string, std::vector<int64_t>> shapes;  // --shape, by alias
  std::optional<int64_t> batch;                        // --batch
};

// The shape synthesised for input `alias` declared as `info` (see the file comment), or an
// INVALID_ARGUMENT naming the input.
absl::StatusOr<TensorShape> SynthesisShape(const std::string& alias,
                                           const ::tensorflow::TensorInfo& info,
                                           const SynthesisOptions& options);

// Random data of `info`'s dtype in `shape`; INVALID_ARGUMENT for dtypes that cannot be
// synthesised (resource, variant, none declared).
absl::StatusOr<Tensor> SynthesizeTensor(const std::string& alias,
                                        const ::tensorflow::TensorInfo& info,
                                        const TensorShape& shape, std::mt19937_64* rng);

// Every input of `signature`: `given` (ReadInputs' result) converted by BuildInputs, the rest
// synthesised. A --shape naming no input of the signature is an error.
absl::StatusOr<std::map<std::string, Tensor>> BenchInputs(
    const std::string& signature_key, const ::tensorflow::SignatureDef& signature,
    const std::vector<ParsedInput>& given, const SynthesisOptions& options);

// A signature whose inputs are exactly `given`'s aliases, without dtypes (so BuildInputs reads
// JSON as float and keeps .npy dtypes), for servers that do not implement GetModelMetadata.
::tensorflow::SignatureDef UntypedSignature(const std::vector<ParsedInput>& given);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_BENCH_INPUTS_H_
