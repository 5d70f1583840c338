#include "clients/tensorctl/run_io.h"

#include <algorithm>
#include <cctype>
#include <complex>
#include <filesystem>
#include <limits>
#include <set>
#include <system_error>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/dispatch_numeric.h"
#include "runtime/util/json.h"
#include "clients/common/npy.h"
#include "clients/common/tensor_json.h"

namespace tensord {
namespace tensorctl {
namespace {

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>> ||
                            std::is_same_v<T, std::complex<double>>;

template <typename T>
constexpr bool kIsFloating = std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
                             std::is_same_v<T, Eigen::bfloat16>;

template <typename T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

// Conversions a TensorFlow feed makes without losing more than rounding: floating <->
// floating, integer -> floating, integer -> integer (checked per value). Not bool or complex.
template <typename To, typename From>
constexpr bool kConvertible =
    !(kIsComplex<From> || kIsComplex<To> || std::is_same_v<From, bool> ||
      std::is_same_v<To, bool> || (kIsFloating<From> && !kIsFloating<To>));

// Converts one element of a kConvertible pair; false when an integer does not fit.
template <typename To, typename From>
bool ConvertElement(From v, To* out) {
  if constexpr (kIsFloating<To>) {
    if constexpr (std::is_same_v<To, Eigen::half> || std::is_same_v<To, Eigen::bfloat16>) {
      *out = To(static_cast<float>(ToDouble(v)));
    } else {
      *out = static_cast<To>(ToDouble(v));
    }
    return true;
  } else {
    if constexpr (std::is_signed_v<From>) {
      if (v < 0 && !std::is_signed_v<To>) return false;
      if constexpr (std::is_signed_v<To>) {
        if (static_cast<int64_t>(v) < static_cast<int64_t>(std::numeric_limits<To>::min())) {
          return false;
        }
      }
    }
    if (v > 0 &&
        static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<To>::max())) {
      return false;
    }
    *out = static_cast<To>(v);
    return true;
  }
}

absl::StatusOr<Tensor> ConvertDtype(const Tensor& in, DataType to, const std::string& what) {
  absl::Status status = absl::InvalidArgumentError(
      absl::StrCat(what, " holds ", DataTypeString(in.dtype()),
                   " data but the signature declares ", DataTypeString(to)));
  Tensor out;
  DispatchNumeric(in.dtype(), [&](auto from_tag) {
    using From = decltype(from_tag);
    DispatchNumeric(to, [&](auto to_tag) {
      using To = decltype(to_tag);
      if constexpr (kConvertible<To, From>) {
        out = Tensor(to, in.shape());
        const From* src = in.data<From>();
        To* dst = out.data<To>();
        for (int64_t i = 0; i < in.NumElements(); ++i) {
          if (!ConvertElement<To, From>(src[i], &dst[i])) {
            status = absl::InvalidArgumentError(absl::StrCat(
                what, ": element ", i, " does not fit in ", DataTypeString(to)));
            return;
          }
        }
        status = absl::OkStatus();
      }
    });
  });
  if (!status.ok()) return status;
  return out;
}

}  // namespace

absl::StatusOr<const ::tensorflow::SignatureDef*> FindSignature(
    const std::map<std::string, ::tensorflow::SignatureDef>& signatures, const std::string& key) {
  auto it = signatures.find(key);
  if (it != signatures.end()) return &it->second;
  std::vector<std::string> keys;
  for (const auto& [k, unused] : signatures) keys.push_back(absl::StrCat("'", k, "'"));
  return absl::NotFoundError(absl::StrCat(
      "signature '", key, "' not found; the model has ",
      keys.empty() ? std::string("no signatures") : absl::StrJoin(keys, ", ")));
}

absl::StatusOr<std::vector<ParsedInput>> ReadInputs(const std::vector<InputSpec>& inputs) {
  std::vector<ParsedInput> parsed;
  for (const InputSpec& spec : inputs) {
    ParsedInput input;
    input.alias = spec.alias;
    const std::string what = absl::StrCat("input '", spec.alias, "'");
    if (!spec.value.empty() && spec.value[0] == '@') {
      input.npy_path = spec.value.substr(1);
      absl::StatusOr<Tensor> t = npy::ReadFile(input.npy_path);
      if (!t.ok()) {
        return absl::Status(t.status().code(), absl::StrCat(what, ": ", t.status().message()));
      }
      input.npy = *std::move(t);
    } else {
      absl::StatusOr<json::Value> value = json::Parse(spec.value);
      if (!value.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": ", value.status().message(),
            " (give a JSON nested list like [[1.0, 2.0]], or @file.npy)"));
      }
      input.json = *std::move(value);
    }
    parsed.push_back(std::move(input));
  }
  return parsed;
}

absl::StatusOr<std::map<std::string, Tensor>> BuildInputs(
    const std::string& signature_key, const ::tensorflow::SignatureDef& signature,
    const std::vector<ParsedInput>& inputs) {
  std::map<std::string, Tensor> tensors;
  for (const ParsedInput& input : inputs) {
    auto info = signature.inputs().find(input.alias);
    if (info == signature.inputs().end()) {
      std::vector<std::string> aliases;
      for (const auto& [alias, unused] : signature.inputs()) {
        aliases.push_back(absl::StrCat("'", alias, "'"));
      }
      std::sort(aliases.begin(), aliases.end());
      return absl::InvalidArgumentError(absl::StrCat(
          "signature '", signature_key, "' has no input '", input.alias, "'; its inputs are ",
          aliases.empty() ? std::string("(none)") : absl::StrJoin(aliases, ", ")));
    }
    const DataType dtype = BaseType(info->second.dtype());
    const std::string what = absl::StrCat("input '", input.alias, "'");
    Tensor tensor;
    if (!input.npy_path.empty()) {
      tensor = input.npy;
      if (dtype != DT_INVALID && tensor.dtype() != dtype) {
        absl::StatusOr<Tensor> converted =
            ConvertDtype(tensor, dtype, absl::StrCat(what, " (", input.npy_path, ")"));
        if (!converted.ok()) return converted.status();
        tensor = *std::move(converted);
      }
    } else {
      absl::StatusOr<Tensor> t = TensorFromJson(input.json, dtype == DT_INVALID ? DT_FLOAT : dtype);
      if (!t.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(what, ": ", t.status().message()));
      }
      tensor = *std::move(t);
    }
    tensors[input.alias] = std::move(tensor);
  }
  return tensors;
}

absl::StatusOr<std::string> OutputsJson(const std::map<std::string, Tensor>& outputs) {
  std::string out = "{\"outputs\": {";
  bool first = true;
  for (const auto& [alias, tensor] : outputs) {
    if (!first) out.append(", ");
    first = false;
    json::AppendQuoted(alias, &out);
    out.append(": ");
    absl::Status s = AppendTensorJson(tensor, &out);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("output '", alias, "': ", s.message()));
  }
  out.append("}}");
  return out;
}

absl::StatusOr<std::string> WriteOutputs(const std::map<std::string, Tensor>& outputs,
                                         const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  }
  json::Value files = json::Value::Object();
  std::set<std::string> used;
  for (const auto& [alias, tensor] : outputs) {
    std::string name = alias;
    for (char& c : name) {
      const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                        c == '-';
      if (!safe) c = '_';
    }
    if (name.empty() || name == "." || name == "..") name = absl::StrCat("_", name);
    // Two aliases that sanitise to the same name must not overwrite each other.
    std::string base = name;
    for (int n = 2; !used.insert(name).second; ++n) name = absl::StrCat(base, "_", n);
    const std::string path = (std::filesystem::path(dir) / (name + ".npy")).string();
    absl::Status s = npy::WriteFile(path, tensor);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("output '", alias, "': ", s.message()));
    files.Set(alias, json::Value::String(path));
  }
  json::Value root = json::Value::Object();
  root.Set("outputs", std::move(files));
  return json::Write(root);
}

}  // namespace tensorctl
}  // namespace tensord
