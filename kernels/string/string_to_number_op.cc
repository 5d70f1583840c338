// StringToNumber: parses every string as out_type (float, double, int32, int64, uint32, uint64).
// Like TensorFlow, surrounding ASCII whitespace is ignored; floats accept what C's strtod accepts
// (decimal and hex forms, "inf", "infinity", "nan"; out-of-range values round to inf or 0) and
// integers are base 10 with an optional sign and must fit the type. Anything else is an error.
#include <clocale>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace string_ops {
namespace {

template <typename T>
bool ParseFloat(absl::string_view text, T* out) {
  // The "C" locale, so a process-wide setlocale cannot change the decimal point.
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  // strtod needs a terminated string; the copy also drops the surrounding whitespace.
  const std::string s(absl::StripAsciiWhitespace(text));
  if (s.empty()) return false;
  char* end = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    *out = strtof_l(s.c_str(), &end, c_locale);
  } else {
    *out = strtod_l(s.c_str(), &end, c_locale);
  }
  return end == s.c_str() + s.size();
}

template <typename T>
bool ParseNumber(absl::string_view text, T* out) {
  if constexpr (std::is_floating_point_v<T>) {
    return ParseFloat(text, out);
  } else {
    return absl::SimpleAtoi(text, out);
  }
}

template <typename T>
class StringToNumberOp : public OpKernel {
 public:
  explicit StringToNumberOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    return MapStrings<T>(c, 0, [c](const std::string& in, T* out) {
      if (ParseNumber(in, out)) return absl::OkStatus();
      return c->InvalidArgument(
          absl::StrCat("StringToNumberOp could not correctly convert string: ", in));
    });
  }
};

#define TENSORD_REGISTER_STRING_TO_NUMBER(T)                                         \
  TENSORD_REGISTER_KERNEL(KernelDef("StringToNumber")                                \
                              .Device(DeviceType::kCpu)                              \
                              .TypeConstraint("out_type", DataTypeToEnum<T>::value), \
                          StringToNumberOp<T>)
TENSORD_REGISTER_STRING_TO_NUMBER(float);
TENSORD_REGISTER_STRING_TO_NUMBER(double);
TENSORD_REGISTER_STRING_TO_NUMBER(int32_t);
TENSORD_REGISTER_STRING_TO_NUMBER(int64_t);
TENSORD_REGISTER_STRING_TO_NUMBER(uint32_t);
TENSORD_REGISTER_STRING_TO_NUMBER(uint64_t);
#undef TENSORD_REGISTER_STRING_TO_NUMBER

}  // namespace
}  // namespace string_ops
}  // namespace tensord
