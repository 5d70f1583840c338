// AsString: formats every element with a printf format built from the attrs, as TensorFlow does:
// "%" [fill] [width] ["." precision] conversion, where the conversion is "f" for floating point
// ("e" with scientific, "g" with shortest), "lld"/"llu" for integers and "s" for strings.
// Complex numbers print as "(re,im)"; bools as "true"/"false" (width and fill are ignored).
#include <complex>
#include <cstdio>
#include <string>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace string_ops {
namespace {

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
                          std::is_same_v<T, Eigen::bfloat16>;
template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template <typename... Args>
std::string Format(const std::string& format, Args... args) {
  // Formats are built only from validated attrs: flags, widths and one conversion per argument.
  const int n = std::snprintf(nullptr, 0, format.c_str(), args...);
  std::string out(n > 0 ? n : 0, '\0');
  if (n > 0) std::snprintf(out.data(), out.size() + 1, format.c_str(), args...);
  return out;
}

// The printf format for T from the attrs, or TensorFlow's error for an invalid combination.
template <typename T>
absl::StatusOr<std::string> BuildFormat(int64_t precision, bool scientific, bool shortest,
                                        int64_t width, const std::string& fill) {
  const std::string type_name = DataTypeString(DataTypeToEnum<T>::value);
  if constexpr (!kIsFloat<T> && !kIsComplex<T>) {
    if (scientific || shortest) {
      return absl::InvalidArgumentError(
          absl::StrCat("scientific and shortest format not supported for datatype ", type_name));
    }
    if (precision > -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("precision not supported for datatype ", type_name));
    }
  }
  if (fill.size() > 1) {
    return absl::InvalidArgumentError("Fill string must be one or fewer characters");
  }
  if (scientific && shortest) {
    return absl::InvalidArgumentError("Cannot select both scientific and shortest notation");
  }
  std::string format = "%";
  if (!fill.empty()) {
    if (fill != " " && fill != "+" && fill != "-" && fill != "0" && fill != "#") {
      return absl::InvalidArgumentError(
          absl::StrCat("Fill argument not supported: \"", fill, "\""));
    }
    format += fill;
  }
  if (width > -1) absl::StrAppend(&format, width);
  if (precision > -1) absl::StrAppend(&format, ".", precision);
  if constexpr (kIsFloat<T> || kIsComplex<T>) {
    format += shortest ? "g" : scientific ? "e" : "f";
    if constexpr (kIsComplex<T>) format = absl::StrCat("(", format, ",", format, ")");
  } else if constexpr (std::is_same_v<T, std::string>) {
    format += "s";
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    format += "lld";
  } else {
    format += "llu";
  }
  return format;
}

template <typename T>
class AsStringOp : public OpKernel {
 public:
  explicit AsStringOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t precision = -1;
    int64_t width = -1;
    bool scientific = false;
    bool shortest = false;
    std::string fill;
    if (!c->GetAttr("precision", &precision) || !c->GetAttr("scientific", &scientific) ||
        !c->GetAttr("shortest", &shortest) || !c->GetAttr("width", &width) ||
        !c->GetAttr("fill", &fill)) {
      return;
    }
    auto format = BuildFormat<T>(precision, scientific, shortest, width, fill);
    if (format.ok()) {
      format_ = *std::move(format);
    } else {
      SetAttrError(c, format.status().message());
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& input = c->input(0);
    if (input.dtype() != DataTypeToEnum<T>::value) {
      return c->InvalidArgument(absl::StrCat("input must be ",
                                             DataTypeString(DataTypeToEnum<T>::value), ", got ",
                                             DataTypeString(input.dtype())));
    }
    Tensor* output = c->allocate_output(0, DT_STRING, input.shape());
    const T* in = input.data<T>();
    std::string* out = output->data<std::string>();
    return ParallelForWithStatus(*c, input.NumElements(), 200, [&](int64_t i) {
      out[i] = FormatOne(in[i]);
      return absl::OkStatus();
    });
  }

 private:
  std::string FormatOne(const T& v) const {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "true" : "false";
    } else if constexpr (kIsComplex<T>) {
      return Format(format_, static_cast<double>(v.real()), static_cast<double>(v.imag()));
    } else if constexpr (std::is_same_v<T, double>) {
      return Format(format_, v);
    } else if constexpr (kIsFloat<T>) {  // float, half, bfloat16 print via float, as TF
      return Format(format_, static_cast<double>(static_cast<float>(v)));
    } else if constexpr (std::is_same_v<T, std::string>) {
      return Format(format_, v.c_str());
    } else if constexpr (std::is_signed_v<T>) {
      return Format(format_, static_cast<long long>(v));  // NOLINT(runtime/int): printf's type
    } else {
      return Format(format_, static_cast<unsigned long long>(v));  // NOLINT(runtime/int)
    }
  }

  std::string format_;
};

#define TENSORD_REGISTER_AS_STRING(T)                                         \
  TENSORD_REGISTER_KERNEL(KernelDef("AsString")                               \
                              .Device(DeviceType::kCpu)                       \
                              .TypeConstraint("T", DataTypeToEnum<T>::value), \
                          AsStringOp<T>)
TENSORD_REGISTER_AS_STRING(float);
TENSORD_REGISTER_AS_STRING(double);
TENSORD_REGISTER_AS_STRING(Eigen::half);
TENSORD_REGISTER_AS_STRING(Eigen::bfloat16);
TENSORD_REGISTER_AS_STRING(int8_t);
TENSORD_REGISTER_AS_STRING(int16_t);
TENSORD_REGISTER_AS_STRING(int32_t);
TENSORD_REGISTER_AS_STRING(int64_t);
TENSORD_REGISTER_AS_STRING(uint8_t);
TENSORD_REGISTER_AS_STRING(uint16_t);
TENSORD_REGISTER_AS_STRING(uint32_t);
TENSORD_REGISTER_AS_STRING(uint64_t);
TENSORD_REGISTER_AS_STRING(bool);
TENSORD_REGISTER_AS_STRING(std::complex<float>);
TENSORD_REGISTER_AS_STRING(std::complex<double>);
TENSORD_REGISTER_AS_STRING(std::string);
#undef TENSORD_REGISTER_AS_STRING

}  // namespace
}  // namespace string_ops
}  // namespace tensord
