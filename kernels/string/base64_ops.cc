// EncodeBase64 / DecodeBase64 with the web-safe alphabet ("-" and "_" for 62 and 63), as
// TensorFlow. Encoding pads with "=" only when `pad` is set; decoding accepts input with or
// without padding and rejects anything else with TensorFlow's messages.
#include <cstdint>
#include <string>

#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace string_ops {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode(const std::string& in, bool pad) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = static_cast<uint8_t>(in[i]) << 16 | static_cast<uint8_t>(in[i + 1]) << 8 |
                       static_cast<uint8_t>(in[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63];
  }
  const size_t rest = in.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    // rest bytes give rest + 1 characters.
    for (size_t k = 0; k <= rest; ++k) out += kAlphabet[(v >> (18 - 6 * k)) & 63];
    if (pad) out.append(3 - rest, '=');
  }
  return out;
}

// Sextet value of a web-safe base64 character, or -1 (which includes "=").
int Sextet(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '-') return 62;
  if (ch == '_') return 63;
  return -1;
}

absl::Status Decode(absl::string_view in, std::string* out) {
  out->clear();
  if (in.empty()) return absl::OkStatus();
  // Only the final group of four may be padded ("xx==" or "xxx=").
  if (in.size() % 4 == 0) {
    if (in[in.size() - 2] == '=' && in[in.size() - 1] == '=') {
      in.remove_suffix(2);
    } else if (in[in.size() - 1] == '=') {
      in.remove_suffix(1);
    }
  }
  if (in.size() % 4 == 1) {
    return absl::InvalidArgumentError("Base64 string length cannot be 1 modulo 4.");
  }
  out->reserve(in.size() / 4 * 3 + 2);
  for (size_t i = 0; i < in.size(); i += 4) {
    const size_t n = std::min<size_t>(4, in.size() - i);  // 2, 3 or 4 characters
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      const int s = k < n ? Sextet(in[i + k]) : 0;
      if (s < 0) return absl::InvalidArgumentError("Invalid character found in base64.");
      v = v << 6 | static_cast<uint32_t>(s);
    }
    for (size_t k = 0; k + 1 < n; ++k)
      out->push_back(static_cast<char>((v >> (16 - 8 * k)) & 0xff));
  }
  return absl::OkStatus();
}

class EncodeBase64Op : public OpKernel {
 public:
  explicit EncodeBase64Op(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("pad", &pad_); }

  absl::Status Compute(OpKernelContext* c) const override {
    return MapStrings<std::string>(c, 0, [this](const std::string& in, std::string* out) {
      *out = Encode(in, pad_);
      return absl::OkStatus();
    });
  }

 private:
  bool pad_ = false;
};

class DecodeBase64Op : public OpKernel {
 public:
  explicit DecodeBase64Op(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    return MapStrings<std::string>(c, 0, [c](const std::string& in, std::string* out) {
      absl::Status status = Decode(in, out);
      return status.ok() ? status : c->InvalidArgument(status.message());
    });
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("EncodeBase64").Device(DeviceType::kCpu), EncodeBase64Op);
TENSORD_REGISTER_KERNEL(KernelDef("DecodeBase64").Device(DeviceType::kCpu), DecodeBase64Op);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
