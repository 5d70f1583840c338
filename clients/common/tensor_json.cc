#include "clients/common/tensor_json.h"

#include <charconv>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/dispatch_numeric.h"

namespace tensord {
namespace {

// "[1][0]" for flat element `flat` of a tensor with `dims`; "value" for a scalar.
std::string ElementName(int64_t flat, const std::vector<int64_t>& dims) {
  if (dims.empty()) return "value";
  std::vector<int64_t> index(dims.size());
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    index[i] = dims[i] == 0 ? 0 : flat % dims[i];
    flat = dims[i] == 0 ? 0 : flat / dims[i];
  }
  std::string s = "element ";
  for (int64_t i : index) absl::StrAppend(&s, "[", i, "]");
  return s;
}

std::string PathName(const std::vector<int64_t>& path) {
  if (path.empty()) return "the top-level value";
  std::string s = "element ";
  for (int64_t i : path) absl::StrAppend(&s, "[", i, "]");
  return s;
}

// Checks that `value` is a rectangular nesting of lists with `dims` and collects its leaves in
// row-major order.
absl::Status Flatten(const json::Value& value, const std::vector<int64_t>& dims, size_t depth,
                     std::vector<int64_t>* path, std::vector<const json::Value*>* leaves) {
  if (depth == dims.size()) {
    if (value.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ragged input: ", PathName(*path), " is a list where a value was expected (lists "
          "must be rectangular, e.g. [[1, 2], [3, 4]])"));
    }
    leaves->push_back(&value);
    return absl::OkStatus();
  }
  if (!value.is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ragged input: ", PathName(*path), " is ", value.TypeName(), " where a list of ",
        dims[depth], " was expected (lists must be rectangular)"));
  }
  if (static_cast<int64_t>(value.size()) != dims[depth]) {
    return absl::InvalidArgumentError(
        absl::StrCat("ragged input: ", PathName(*path), " has ", value.size(),
                     " elements but the first list at that depth has ", dims[depth],
                     " (lists must be rectangular)"));
  }
  for (size_t i = 0; i < value.size(); ++i) {
    path->push_back(static_cast<int64_t>(i));
    absl::Status s = Flatten(value.items()[i], dims, depth + 1, path, leaves);
    path->pop_back();
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Mismatch(int64_t flat, const std::vector<int64_t>& dims, const char* want,
                      DataType dtype, const json::Value& got) {
  return absl::InvalidArgumentError(absl::StrCat(ElementName(flat, dims), ": expected ", want,
                                                 " for dtype ", DataTypeString(dtype), ", got ",
                                                 got.TypeName()));
}

bool IsSpecialNumber(const std::string& text) {
  return text == "NaN" || text == "Infinity" || text == "-Infinity";
}

template <typename T>
absl::Status FillFloating(const std::vector<const json::Value*>& leaves,
                          const std::vector<int64_t>& dims, DataType dtype, T* out) {
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json::Value& v = *leaves[i];
    if (!v.is_number()) return Mismatch(i, dims, "a number", dtype, v);
    if (IsSpecialNumber(v.number_text())) {
      out[i] = static_cast<T>(static_cast<float>(v.number()));
    } else if constexpr (std::is_same_v<T, double>) {
      out[i] = std::strtod(v.number_text().c_str(), nullptr);
    } else {
      // float directly from the text (no double rounding); half/bfloat16 from that float.
      out[i] = static_cast<T>(std::strtof(v.number_text().c_str(), nullptr));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status FillInteger(const std::vector<const json::Value*>& leaves,
                         const std::vector<int64_t>& dims, DataType dtype, T* out) {
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json::Value& v = *leaves[i];
    if (!v.is_number()) return Mismatch(i, dims, "an integer", dtype, v);
    bool ok;
    if constexpr (std::is_signed_v<T>) {
      int64_t x = 0;
      ok = v.ToInt64(&x) && x >= std::numeric_limits<T>::min() &&
           x <= std::numeric_limits<T>::max();
      out[i] = static_cast<T>(x);
    } else {
      uint64_t x = 0;
      ok = v.ToUint64(&x) && x <= std::numeric_limits<T>::max();
      out[i] = static_cast<T>(x);
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat(ElementName(i, dims), ": ", v.number_text(),
                       " is not an integer in the range of dtype ", DataTypeString(dtype)));
    }
  }
  return absl::OkStatus();
}

absl::Status FillString(const std::vector<const json::Value*>& leaves,
                        const std::vector<int64_t>& dims, std::string* out) {
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json::Value& v = *leaves[i];
    if (v.is_string()) {
      out[i] = v.string_value();
      continue;
    }
    const json::Value* b64 = v.is_object() && v.size() == 1 ? v.Find("b64") : nullptr;
    if (b64 == nullptr || !b64->is_string()) {
      return Mismatch(i, dims, "a string or {\"b64\": ...}", DT_STRING, v);
    }
    if (!absl::Base64Unescape(b64->string_value(), &out[i]) &&
        !absl::WebSafeBase64Unescape(b64->string_value(), &out[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat(ElementName(i, dims), ": \"b64\" is not valid base64"));
    }
  }
  return absl::OkStatus();
}

// Writes nested lists for `dims`, calling `element(i, out)` for flat element i.
void AppendNested(absl::Span<const int64_t> dims,
                  const std::function<void(int64_t, std::string*)>& element, std::string* out) {
  int64_t next = 0;
  std::function<void(size_t)> level = [&](size_t depth) {
    if (depth == dims.size()) {
      element(next++, out);
      return;
    }
    out->push_back('[');
    for (int64_t i = 0; i < dims[depth]; ++i) {
      if (i > 0) out->append(", ");
      level(depth + 1);
    }
    out->push_back(']');
  };
  level(0);
}

void AppendDouble(double d, std::string* out) {
  if (std::isnan(d) || std::isinf(d)) {
    out->append(std::isnan(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity"));
    return;
  }
  char buf[40];
  char* end = std::to_chars(buf, buf + sizeof(buf), d).ptr;
  out->append(buf, end);
  if (std::string_view(buf, end - buf).find_first_of(".e") == std::string_view::npos) {
    out->append(".0");
  }
}

// The form the REST server writes floats in, too.
void AppendFloatJson(float f, std::string* out) {
  out->append(json::Value::Float(f).number_text());
}

void AppendStringJson(const std::string& s, std::string* out) {
  if (json::IsValidUtf8(s)) {
    json::AppendQuoted(s, out);
  } else {
    out->append("{\"b64\": \"");
    out->append(absl::Base64Escape(s));
    out->append("\"}");
  }
}

}  // namespace

absl::StatusOr<Tensor> TensorFromJson(const json::Value& value, DataType dtype) {
  // The shape comes from the first element at every depth; Flatten checks the rest.
  std::vector<int64_t> dims;
  for (const json::Value* v = &value; v->is_array(); v = &v->items()[0]) {
    dims.push_back(static_cast<int64_t>(v->size()));
    if (v->size() == 0) break;
  }
  std::vector<const json::Value*> leaves;
  std::vector<int64_t> path;
  absl::Status s = Flatten(value, dims, 0, &path, &leaves);
  if (!s.ok()) return s;

  Tensor t;
  auto make = [&]() { t = Tensor(dtype, TensorShape(dims)); };
  switch (dtype) {
    case DT_FLOAT: make(); s = FillFloating(leaves, dims, dtype, t.data<float>()); break;
    case DT_DOUBLE: make(); s = FillFloating(leaves, dims, dtype, t.data<double>()); break;
    case DT_HALF: make(); s = FillFloating(leaves, dims, dtype, t.data<Eigen::half>()); break;
    case DT_BFLOAT16:
      make();
      s = FillFloating(leaves, dims, dtype, t.data<Eigen::bfloat16>());
      break;
    case DT_INT8: make(); s = FillInteger(leaves, dims, dtype, t.data<int8_t>()); break;
    case DT_INT16: make(); s = FillInteger(leaves, dims, dtype, t.data<int16_t>()); break;
    case DT_INT32: make(); s = FillInteger(leaves, dims, dtype, t.data<int32_t>()); break;
    case DT_INT64: make(); s = FillInteger(leaves, dims, dtype, t.data<int64_t>()); break;
    case DT_UINT8: make(); s = FillInteger(leaves, dims, dtype, t.data<uint8_t>()); break;
    case DT_UINT16: make(); s = FillInteger(leaves, dims, dtype, t.data<uint16_t>()); break;
    case DT_UINT32: make(); s = FillInteger(leaves, dims, dtype, t.data<uint32_t>()); break;
    case DT_UINT64: make(); s = FillInteger(leaves, dims, dtype, t.data<uint64_t>()); break;
    case DT_BOOL: {
      make();
      bool* out = t.data<bool>();
      for (size_t i = 0; i < leaves.size() && s.ok(); ++i) {
        if (!leaves[i]->is_bool()) {
          s = Mismatch(i, dims, "true or false", dtype, *leaves[i]);
        } else {
          out[i] = leaves[i]->bool_value();
        }
      }
      break;
    }
    case DT_STRING: make(); s = FillString(leaves, dims, t.data<std::string>()); break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dtype ", DataTypeString(dtype), " cannot be given as JSON"));
  }
  if (!s.ok()) return s;
  return t;
}

absl::Status AppendTensorJson(const Tensor& tensor, std::string* out) {
  if (!tensor.IsInitialized()) return absl::InvalidArgumentError("tensor is empty");
  if (tensor.memory_space() != MemorySpace::kHost) {
    return absl::InvalidArgumentError("tensor is in device memory");
  }
  const absl::Span<const int64_t> dims = tensor.shape().dim_sizes();
  std::function<void(int64_t, std::string*)> element;
  switch (tensor.dtype()) {
    case DT_FLOAT: {
      const float* p = tensor.data<float>();
      element = [p](int64_t i, std::string* o) { AppendFloatJson(p[i], o); };
      break;
    }
    case DT_DOUBLE: {
      const double* p = tensor.data<double>();
      element = [p](int64_t i, std::string* o) { AppendDouble(p[i], o); };
      break;
    }
    case DT_HALF: {
      const Eigen::half* p = tensor.data<Eigen::half>();
      element = [p](int64_t i, std::string* o) { AppendFloatJson(static_cast<float>(p[i]), o); };
      break;
    }
    case DT_BFLOAT16: {
      const Eigen::bfloat16* p = tensor.data<Eigen::bfloat16>();
      element = [p](int64_t i, std::string* o) { AppendFloatJson(static_cast<float>(p[i]), o); };
      break;
    }
    case DT_COMPLEX64: {
      const std::complex<float>* p = tensor.data<std::complex<float>>();
      element = [p](int64_t i, std::string* o) {
        o->push_back('[');
        AppendFloatJson(p[i].real(), o);
        o->append(", ");
        AppendFloatJson(p[i].imag(), o);
        o->push_back(']');
      };
      break;
    }
    case DT_COMPLEX128: {
      const std::complex<double>* p = tensor.data<std::complex<double>>();
      element = [p](int64_t i, std::string* o) {
        o->push_back('[');
        AppendDouble(p[i].real(), o);
        o->append(", ");
        AppendDouble(p[i].imag(), o);
        o->push_back(']');
      };
      break;
    }
    case DT_BOOL: {
      const bool* p = tensor.data<bool>();
      element = [p](int64_t i, std::string* o) { o->append(p[i] ? "true" : "false"); };
      break;
    }
    case DT_STRING: {
      const std::string* p = tensor.data<std::string>();
      element = [p](int64_t i, std::string* o) { AppendStringJson(p[i], o); };
      break;
    }
    default: {
      bool ok = DispatchNumeric(tensor.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>) {
          const T* p = tensor.data<T>();
          using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
          element = [p](int64_t i, std::string* o) { absl::StrAppend(o, static_cast<Wide>(p[i])); };
        }
      });
      if (!ok || !element) {
        return absl::InvalidArgumentError(absl::StrCat(
            "a tensor of dtype ", DataTypeString(tensor.dtype()), " cannot be written as JSON"));
      }
    }
  }
  AppendNested(dims, element, out);
  return absl::OkStatus();
}

}  // namespace tensord
