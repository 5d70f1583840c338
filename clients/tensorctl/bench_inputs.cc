#include "clients/tensorctl/bench_inputs.h"

#include <complex>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/dispatch_numeric.h"

namespace tensord {
namespace tensorctl {
namespace {

// Any fixed seed; it only has to be the same from run to run.
constexpr uint64_t kSeed = 20240601;

std::string DimsText(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

template <typename T>
T RandomValue(std::mt19937_64* rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  if constexpr (std::is_same_v<T, bool>) {
    return (*rng)() & 1;
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>>) {
    using Part = typename T::value_type;
    const Part re = static_cast<Part>(unit(*rng));
    return T(re, static_cast<Part>(unit(*rng)));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::uniform_int_distribution<int>(0, 99)(*rng));
  } else {  // float, double, Eigen::half, Eigen::bfloat16
    return T(static_cast<float>(unit(*rng)));
  }
}

}  // namespace

absl::StatusOr<TensorShape> SynthesisShape(const std::string& alias,
                                           const ::tensorflow::TensorInfo& info,
                                           const SynthesisOptions& options) {
  const ::tensorflow::TensorShapeProto& declared = info.tensor_shape();
  std::vector<int64_t> declared_dims;
  for (const auto& dim : declared.dim()) declared_dims.push_back(dim.size());
  auto given = options.shapes.find(alias);
  if (given != options.shapes.end()) {
    const std::vector<int64_t>& dims = given->second;
    bool agrees = declared.unknown_rank() || dims.size() == declared_dims.size();
    for (size_t i = 0; agrees && !declared.unknown_rank() && i < dims.size(); ++i) {
      agrees = declared_dims[i] < 0 || declared_dims[i] == dims[i];
    }
    if (!agrees) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shape ", alias, "=", absl::StrJoin(dims, ","),
                       " does not fit the signature's shape ", DimsText(declared_dims)));
    }
    return TensorShape::FromDims(dims);
  }
  if (declared.unknown_rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input '", alias, "' has an unknown rank; give its shape with --shape ", alias,
        "=D0,D1,... or its value with --input"));
  }
  std::vector<int64_t> dims = declared_dims;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) dims[i] = i == 0 ? options.batch.value_or(1) : 1;
  }
  return TensorShape::FromDims(dims);
}

absl::StatusOr<Tensor> SynthesizeTensor(const std::string& alias,
                                        const ::tensorflow::TensorInfo& info,
                                        const TensorShape& shape, std::mt19937_64* rng) {
  const DataType dtype = BaseType(info.dtype());
  Tensor tensor;
  if (dtype == DT_STRING) {
    tensor = Tensor(DT_STRING, shape);
    std::uniform_int_distribution<int> letter('a', 'z');
    std::string* strings = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      for (int c = 0; c < 8; ++c) strings[i].push_back(static_cast<char>(letter(*rng)));
    }
    return tensor;
  }
  const bool numeric = DispatchNumeric(dtype, [&](auto tag) {
    using T = decltype(tag);
    tensor = Tensor(dtype, shape);
    T* values = tensor.data<T>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) values[i] = RandomValue<T>(rng);
  });
  if (!numeric) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", alias, "' has dtype ", DataTypeString(dtype),
                     ", which bench cannot make up; give its value with --input"));
  }
  return tensor;
}

absl::StatusOr<std::map<std::string, Tensor>> BenchInputs(
    const std::string& signature_key, const ::tensorflow::SignatureDef& signature,
    const std::vector<ParsedInput>& given, const SynthesisOptions& options) {
  for (const auto& [alias, unused] : options.shapes) {
    if (signature.inputs().count(alias) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--shape names '", alias, "', which is not an input of signature '", signature_key,
          "'"));
    }
  }
  absl::StatusOr<std::map<std::string, Tensor>> tensors =
      BuildInputs(signature_key, signature, given);
  if (!tensors.ok()) return tensors.status();
  // Sorted aliases, so that the random data does not depend on the map's iteration order.
  const std::map<std::string, ::tensorflow::TensorInfo> inputs(signature.inputs().begin(),
                                                               signature.inputs().end());
  std::mt19937_64 rng(kSeed);
  for (const auto& [alias, info] : inputs) {
    if (tensors->count(alias) > 0) continue;
    absl::StatusOr<TensorShape> shape = SynthesisShape(alias, info, options);
    if (!shape.ok()) return shape.status();
    absl::StatusOr<Tensor> tensor = SynthesizeTensor(alias, info, *shape, &rng);
    if (!tensor.ok()) return tensor.status();
    (*tensors)[alias] = *std::move(tensor);
  }
  return tensors;
}

::tensorflow::SignatureDef UntypedSignature(const std::vector<ParsedInput>& given) {
  ::tensorflow::SignatureDef signature;
  for (const ParsedInput& input : given) (*signature.mutable_inputs())[input.alias];
  return signature;
}

}  // namespace tensorctl
}  // namespace tensord
