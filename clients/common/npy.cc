#include "clients/common/npy.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tensord {
namespace npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// What a descr says about the elements.
struct ElementType {
  DataType dtype = DT_INVALID;
  size_t item_size = 0;  // bytes per element in the file
  bool big_endian = false;
  bool unicode = false;  // '<U<n>': item_size / 4 UTF-32 code units
};

absl::Status Invalid(const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("invalid .npy data: ", message));
}

// ---------------------------------------------------------------------------------------------
// The header is a Python dict literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 1), }
// This parses exactly that subset: string keys; string, True/False and int-tuple values.

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  absl::Status Parse(std::string* descr, bool* fortran_order, std::vector<int64_t>* shape) {
    bool have_descr = false, have_order = false, have_shape = false;
    SkipSpace();
    if (!Eat('{')) return Invalid("header is not a dict");
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      std::string key;
      if (!ParseString(&key)) return Invalid("header: expected a quoted key");
      SkipSpace();
      if (!Eat(':')) return Invalid("header: expected ':' after key '" + key + "'");
      SkipSpace();
      if (key == "descr") {
        if (Peek() == '[') {
          return absl::InvalidArgumentError(
              "unsupported .npy dtype: structured arrays (a field list in 'descr') are not "
              "supported");
        }
        if (!ParseString(descr)) return Invalid("header: 'descr' must be a string");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (Word("True")) {
          *fortran_order = true;
        } else if (Word("False")) {
          *fortran_order = false;
        } else {
          return Invalid("header: 'fortran_order' must be True or False");
        }
        have_order = true;
      } else if (key == "shape") {
        if (!ParseTuple(shape)) return Invalid("header: 'shape' must be a tuple of integers");
        have_shape = true;
      } else {
        return Invalid("header: unexpected key '" + key + "'");
      }
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat('}')) break;
      return Invalid("header: expected ',' or '}'");
    }
    if (!have_descr || !have_order || !have_shape) {
      return Invalid("header must have 'descr', 'fortran_order' and 'shape'");
    }
    return absl::OkStatus();
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool Word(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool ParseString(std::string* out) {
    char quote = Peek();
    if (quote != '\'' && quote != '"') return false;
    ++pos_;
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return false;
    *out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  bool ParseTuple(std::vector<int64_t>* out) {
    out->clear();
    if (!Eat('(')) return false;
    while (true) {
      SkipSpace();
      if (Eat(')')) return true;
      size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      // Python 2 era writers append 'L' to longs.
      int64_t v;
      if (start == pos_ ||
          !absl::SimpleAtoi(std::string(text_.substr(start, pos_ - start)), &v)) {
        return false;
      }
      Eat('L');
      out->push_back(v);
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat(')')) return true;
      return false;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

absl::StatusOr<ElementType> ParseDescr(const std::string& descr) {
  if (descr.size() < 2) return absl::InvalidArgumentError("unsupported .npy dtype '" + descr + "'");
  ElementType t;
  const char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    return absl::InvalidArgumentError("unsupported .npy dtype '" + descr + "'");
  }
  t.big_endian = order == '>';
  char kind = descr[1];
  int64_t size = 0;
  if (!absl::SimpleAtoi(descr.substr(2), &size) || size <= 0) {
    if (kind == 'O') {
      return absl::InvalidArgumentError(
          "unsupported .npy dtype '" + descr +
          "': object arrays are pickled Python objects; save strings as bytes (dtype 'S')");
    }
    return absl::InvalidArgumentError("unsupported .npy dtype '" + descr + "'");
  }
  if (size > (int64_t{1} << 30)) {
    return absl::InvalidArgumentError("unsupported .npy dtype '" + descr + "': element too large");
  }
  t.item_size = static_cast<size_t>(size);
  auto want = [&](std::initializer_list<std::pair<int, DataType>> options) -> bool {
    for (const auto& [bytes, dtype] : options) {
      if (size == bytes) {
        t.dtype = dtype;
        return true;
      }
    }
    return false;
  };
  bool ok = false;
  switch (kind) {
    case 'f': ok = want({{2, DT_HALF}, {4, DT_FLOAT}, {8, DT_DOUBLE}}); break;
    case 'c': ok = want({{8, DT_COMPLEX64}, {16, DT_COMPLEX128}}); break;
    case 'i': ok = want({{1, DT_INT8}, {2, DT_INT16}, {4, DT_INT32}, {8, DT_INT64}}); break;
    case 'u':
      ok = want({{1, DT_UINT8}, {2, DT_UINT16}, {4, DT_UINT32}, {8, DT_UINT64}});
      break;
    case 'b': ok = want({{1, DT_BOOL}}); break;
    case 'S':
      t.dtype = DT_STRING;
      ok = true;
      break;
    case 'U':
      t.dtype = DT_STRING;
      t.unicode = true;
      t.item_size = static_cast<size_t>(size) * 4;
      ok = true;
      break;
    default: break;
  }
  if (!ok) return absl::InvalidArgumentError("unsupported .npy dtype '" + descr + "'");
  return t;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

uint64_t ReadUint(const unsigned char* p, size_t n, bool big_endian) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    v |= static_cast<uint64_t>(big_endian ? p[n - 1 - i] : p[i]) << (8 * i);
  }
  return v;
}

}  // namespace

absl::StatusOr<std::string> DescrForDataType(DataType dtype) {
  switch (dtype) {
    case DT_HALF: return std::string("<f2");
    case DT_FLOAT: return std::string("<f4");
    case DT_DOUBLE: return std::string("<f8");
    case DT_COMPLEX64: return std::string("<c8");
    case DT_COMPLEX128: return std::string("<c16");
    case DT_INT8: return std::string("|i1");
    case DT_INT16: return std::string("<i2");
    case DT_INT32: return std::string("<i4");
    case DT_INT64: return std::string("<i8");
    case DT_UINT8: return std::string("|u1");
    case DT_UINT16: return std::string("<u2");
    case DT_UINT32: return std::string("<u4");
    case DT_UINT64: return std::string("<u8");
    case DT_BOOL: return std::string("|b1");
    case DT_STRING: return std::string("|S");
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("dtype ", DataTypeString(dtype), " cannot be stored in an .npy file"));
  }
}

absl::StatusOr<Tensor> Parse(std::string_view bytes) {
  if (bytes.size() < kMagicLen + 4 ||
      bytes.substr(0, kMagicLen) != std::string_view(kMagic, kMagicLen)) {
    return Invalid("not an .npy file (missing \\x93NUMPY magic)");
  }
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  int major = u[6];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = ReadUint(u + 8, 2, false);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Invalid("truncated header");
    header_len = ReadUint(u + 8, 4, false);
    header_start = 12;
  } else {
    return Invalid(absl::StrCat("unsupported format version ", major, ".", u[7]));
  }
  if (header_start + header_len > bytes.size()) return Invalid("truncated header");
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> dims;
  absl::Status s = HeaderParser(bytes.substr(header_start, header_len))
                       .Parse(&descr, &fortran_order, &dims);
  if (!s.ok()) return s;
  if (fortran_order) {
    return absl::InvalidArgumentError(
        "unsupported .npy layout: Fortran order (fortran_order: True); save a C-ordered array, "
        "e.g. np.save(path, np.ascontiguousarray(a))");
  }
  absl::StatusOr<ElementType> type = ParseDescr(descr);
  if (!type.ok()) return type.status();
  absl::StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
  if (!shape.ok()) return Invalid(std::string(shape.status().message()));

  std::string_view data = bytes.substr(header_start + header_len);
  const uint64_t n = static_cast<uint64_t>(shape->num_elements());
  // The first test keeps n * item_size from overflowing.
  if (n > data.size() / type->item_size + 1 || n * type->item_size != data.size()) {
    return Invalid(absl::StrCat("data holds ", data.size(), " bytes but shape ",
                                shape->DebugString(), " of '", descr, "' needs ",
                                n, " x ", type->item_size));
  }

  Tensor t(type->dtype, *shape);
  const auto* src = reinterpret_cast<const unsigned char*>(data.data());
  const size_t item = type->item_size;
  if (type->dtype == DT_STRING) {
    std::string* out = t.data<std::string>();
    for (uint64_t i = 0; i < n; ++i) {
      const unsigned char* p = src + i * item;
      if (type->unicode) {
        std::string s;
        for (size_t k = 0; k < item / 4; ++k) {
          uint32_t cp = static_cast<uint32_t>(ReadUint(p + 4 * k, 4, type->big_endian));
          if (cp == 0) break;  // padding
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return Invalid(absl::StrCat("element ", i, " holds an invalid code point"));
          }
          AppendUtf8(cp, &s);
        }
        out[i] = std::move(s);
      } else {
        size_t len = item;
        while (len > 0 && p[len - 1] == 0) --len;  // numpy strips trailing NULs
        out[i].assign(reinterpret_cast<const char*>(p), len);
      }
    }
  } else if (type->dtype == DT_BOOL) {
    bool* out = t.data<bool>();
    for (uint64_t i = 0; i < n; ++i) out[i] = src[i] != 0;
  } else {
    auto* out = static_cast<unsigned char*>(t.raw_data());
    if (!type->big_endian || item == 1) {
      if (n > 0) std::memcpy(out, src, n * item);
    } else {
      // Complex numbers swap each of their two halves.
      size_t word = (type->dtype == DT_COMPLEX64 || type->dtype == DT_COMPLEX128) ? item / 2 : item;
      for (uint64_t i = 0; i < n * item; i += word) {
        for (size_t k = 0; k < word; ++k) out[i + k] = src[i + word - 1 - k];
      }
    }
  }
  return t;
}

absl::StatusOr<Tensor> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path));
  absl::StatusOr<Tensor> t = Parse(buf.str());
  if (!t.ok()) {
    return absl::Status(t.status().code(), absl::StrCat(path, ": ", t.status().message()));
  }
  return t;
}

absl::StatusOr<std::string> Serialize(const Tensor& tensor) {
  if (!tensor.IsInitialized()) return absl::InvalidArgumentError("cannot save an empty tensor");
  if (tensor.memory_space() != MemorySpace::kHost) {
    return absl::InvalidArgumentError("cannot save a tensor in device memory");
  }
  absl::StatusOr<std::string> descr = DescrForDataType(tensor.dtype());
  if (!descr.ok()) return descr.status();
  const int64_t n = tensor.NumElements();
  size_t item = DataTypeSize(tensor.dtype());
  if (tensor.dtype() == DT_STRING) {
    item = 1;
    const std::string* s = tensor.data<std::string>();
    for (int64_t i = 0; i < n; ++i) item = std::max(item, s[i].size());
    *descr = absl::StrCat(*descr, item);
  }

  std::vector<std::string> dims;
  for (int i = 0; i < tensor.dims(); ++i) dims.push_back(absl::StrCat(tensor.dim_size(i)));
  std::string shape = absl::StrJoin(dims, ", ");
  if (dims.size() == 1) shape += ",";
  std::string header =
      absl::StrCat("{'descr': '", *descr, "', 'fortran_order': False, 'shape': (", shape, "), }");

  // Pad with spaces so that the data starts at a multiple of 64 bytes; end with '\n'. Version
  // 1.0 stores the header length in 2 bytes, 2.0 in 4.
  int major = 1;
  size_t prefix = kMagicLen + 2 + 2;
  auto padded = [&](size_t prefix_len) {
    size_t total = prefix_len + header.size() + 1;
    return header.size() + 1 + (64 - total % 64) % 64;
  };
  if (padded(prefix) > 65535) {
    major = 2;
    prefix = kMagicLen + 2 + 4;
  }
  header.append(padded(prefix) - header.size() - 1, ' ');
  header.push_back('\n');

  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const size_t len = header.size();
  out.push_back(static_cast<char>(len & 0xFF));
  out.push_back(static_cast<char>((len >> 8) & 0xFF));
  if (major == 2) {
    out.push_back(static_cast<char>((len >> 16) & 0xFF));
    out.push_back(static_cast<char>((len >> 24) & 0xFF));
  }
  out += header;

  if (tensor.dtype() == DT_STRING) {
    const std::string* s = tensor.data<std::string>();
    out.reserve(out.size() + n * item);
    for (int64_t i = 0; i < n; ++i) {
      out += s[i];
      out.append(item - s[i].size(), '\0');
    }
  } else if (tensor.dtype() == DT_BOOL) {
    const bool* b = tensor.data<bool>();
    for (int64_t i = 0; i < n; ++i) out.push_back(b[i] ? 1 : 0);
  } else {
    // x86-64 and aarch64 hosts are little-endian: the bytes are written as they are.
    out.append(static_cast<const char*>(tensor.raw_data()), n * item);
  }
  return out;
}

absl::Status WriteFile(const std::string& path, const Tensor& tensor) {
  absl::StatusOr<std::string> bytes = Serialize(tensor);
  if (!bytes.ok()) return bytes.status();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("error writing ", path));
  return absl::OkStatus();
}

}  // namespace npy
}  // namespace tensord
