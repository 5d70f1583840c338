#include "server/rest/json_tensor.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <type_traits>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_proto.h"
#include "runtime/util/json.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;

constexpr int kIndent = 4;  // json::Write(value, 4), as every REST response is written

bool IsBinaryAlias(const std::string& alias) { return absl::EndsWith(alias, "_bytes"); }

// Writes one response into `out`, level by level of the equivalent json::Value tree.
class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}

  void Newline(int level) {
    out_->push_back('\n');
    out_->append(static_cast<size_t>(kIndent) * level, ' ');
  }
  // An object member's start: `first` is the object's first member.
  void Key(const std::string& key, bool first, int level) {
    if (!first) out_->push_back(',');
    Newline(level);
    json::AppendQuoted(key, out_);
    out_->append(": ");
  }

  // Dims [from, rank) of `t` starting at flat element `offset`, as a value at `level`.
  absl::Status Value(const Tensor& t, size_t from, int64_t offset, int level, bool binary) {
    dims_.clear();
    for (int i = 0; i < t.dims(); ++i) dims_.push_back(t.dim_size(i));
    strides_.assign(dims_.size(), 1);
    for (size_t i = dims_.size(); i-- > 1;) strides_[i - 1] = strides_[i] * dims_[i];
    binary_ = binary;
    switch (t.dtype()) {
#define TENSORD_CASE(DT, T)                        \
  case tf::DT:                                     \
    Nest(t.data<T>(), from, offset, level);        \
    return absl::OkStatus();
      TENSORD_CASE(DT_FLOAT, float)
      TENSORD_CASE(DT_DOUBLE, double)
      TENSORD_CASE(DT_INT8, int8_t)
      TENSORD_CASE(DT_UINT8, uint8_t)
      TENSORD_CASE(DT_INT16, int16_t)
      TENSORD_CASE(DT_UINT16, uint16_t)
      TENSORD_CASE(DT_INT32, int32_t)
      TENSORD_CASE(DT_UINT32, uint32_t)
      TENSORD_CASE(DT_INT64, int64_t)
      TENSORD_CASE(DT_UINT64, uint64_t)
      TENSORD_CASE(DT_BOOL, bool)
      TENSORD_CASE(DT_STRING, std::string)
#undef TENSORD_CASE
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "Conversion of ", tf::DataType_Name(t.dtype()), " tensors to JSON is not supported"));
    }
  }

 private:
  // Whether a leaf is written as an object ({"b64": ...}) rather than a plain value.
  template <typename T>
  bool IsObject(const T& v) const {
    if constexpr (std::is_same_v<T, std::string>) {
      return binary_ || !json::IsValidUtf8(v);
    } else {
      return false;
    }
  }

  template <typename T>
  void Leaf(const T& v, int level) {
    if constexpr (std::is_same_v<T, float>) {
      json::AppendFloat(v, out_);
    } else if constexpr (std::is_same_v<T, double>) {
      json::AppendDouble(v, out_);
    } else if constexpr (std::is_same_v<T, bool>) {
      out_->append(v ? "true" : "false");
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (IsObject(v)) {
        out_->push_back('{');
        Key("b64", /*first=*/true, level + 1);
        json::AppendQuoted(absl::Base64Escape(v), out_);
        Newline(level);
        out_->push_back('}');
      } else {
        json::AppendQuoted(v, out_);
      }
    } else {
      char buf[24];
      using Wide = std::conditional_t<std::is_same_v<T, uint64_t>, uint64_t, int64_t>;
      out_->append(buf, std::to_chars(buf, buf + sizeof(buf), static_cast<Wide>(v)).ptr);
    }
  }

  template <typename T>
  void Nest(const T* data, size_t k, int64_t offset, int level) {
    if (k == dims_.size()) {
      Leaf(data[offset], level);
      return;
    }
    const int64_t n = dims_[k], stride = strides_[k];
    // A list stays on one line when nothing inside it is a list or an object.
    bool flat = k + 1 == dims_.size();
    for (int64_t i = 0; flat && i < n; ++i) flat = !IsObject(data[offset + i]);
    out_->push_back('[');
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0) out_->push_back(',');
      if (!flat) {
        Newline(level + 1);
      } else if (i > 0) {
        out_->push_back(' ');
      }
      Nest(data, k + 1, offset + i * stride, level + 1);
    }
    if (!flat && n > 0) Newline(level);
    out_->push_back(']');
  }

  std::string* out_;
  std::vector<int64_t> dims_, strides_;
  bool binary_ = false;
};

}  // namespace

absl::StatusOr<std::string> PredictResponseJson(const serving::PredictResponse& response,
                                                JsonFormat format) {
  std::map<std::string, Tensor> outputs;  // sorted, for a stable order
  int64_t elements = 0;
  for (const auto& [alias, proto] : response.outputs()) {
    absl::StatusOr<Tensor> t = TensorFromProto(proto);
    if (!t.ok()) return t.status();
    elements += t->NumElements();
    outputs.emplace(alias, *std::move(t));
  }
  std::string out;
  out.reserve(64 + 16 * static_cast<size_t>(elements));  // about a number's text and comma
  Writer w(&out);
  out.push_back('{');
  if (format == JsonFormat::kColumnar) {
    w.Key("outputs", /*first=*/true, 1);
    if (outputs.size() == 1) {
      const auto& [alias, t] = *outputs.begin();
      if (absl::Status s = w.Value(t, 0, 0, 1, IsBinaryAlias(alias)); !s.ok()) return s;
    } else {
      out.push_back('{');
      bool first = true;
      for (const auto& [alias, t] : outputs) {
        w.Key(alias, first, 2);
        first = false;
        if (absl::Status s = w.Value(t, 0, 0, 2, IsBinaryAlias(alias)); !s.ok()) return s;
      }
      if (!outputs.empty()) w.Newline(1);
      out.push_back('}');
    }
    w.Newline(0);
    out.push_back('}');
    return out;
  }
  int64_t batch = -1;
  for (const auto& [alias, t] : outputs) {
    if (t.dims() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Output \"", alias, "\" is a scalar; row format needs a batch dimension"));
    }
    if (batch >= 0 && t.dim_size(0) != batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Output tensors must have the same size in dimension 0 for row format: \"", alias,
          "\" has ", t.dim_size(0), ", expected ", batch));
    }
    batch = t.dim_size(0);
  }
  w.Key("predictions", /*first=*/true, 1);
  out.push_back('[');
  // One row per line unless every row is a plain value (a single output of rank 1, numbers or
  // text strings): the list is then flat, as json::Write keeps it.
  bool flat = outputs.size() == 1 && outputs.begin()->second.dims() == 1;
  if (flat) {
    const auto& [alias, t] = *outputs.begin();
    if (t.dtype() == tf::DT_STRING) {
      const std::string* s = t.data<std::string>();
      for (int64_t r = 0; flat && r < batch; ++r) {
        flat = !IsBinaryAlias(alias) && json::IsValidUtf8(s[r]);
      }
    }
  }
  for (int64_t r = 0; r < std::max<int64_t>(batch, 0); ++r) {
    if (r > 0) out.append(flat ? ", " : ",");
    if (!flat) w.Newline(2);
    if (outputs.size() == 1) {
      const auto& [alias, t] = *outputs.begin();
      const int64_t stride = t.NumElements() / t.dim_size(0);
      if (absl::Status s = w.Value(t, 1, r * stride, 2, IsBinaryAlias(alias)); !s.ok()) return s;
      continue;
    }
    out.push_back('{');
    bool first = true;
    for (const auto& [alias, t] : outputs) {
      w.Key(alias, first, 3);
      first = false;
      const int64_t stride = t.NumElements() / t.dim_size(0);
      if (absl::Status s = w.Value(t, 1, r * stride, 3, IsBinaryAlias(alias)); !s.ok()) return s;
    }
    if (!outputs.empty()) w.Newline(2);
    out.push_back('}');
  }
  if (!flat && batch > 0) w.Newline(1);
  out.push_back(']');
  w.Newline(0);
  out.push_back('}');
  return out;
}

}  // namespace tensord
