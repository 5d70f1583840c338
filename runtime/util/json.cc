#include "runtime/util/json.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace tensord {
namespace json {

// ---------------------------------------------------------------------------------------------
// Value

Value Value::Bool(bool b) {
  Value v;
  v.type_ = Type::kBool;
  v.bool_ = b;
  return v;
}

Value Value::Int(int64_t i) { return NumberText(std::to_string(i)); }

Value Value::Number(double d) {
  if (std::isnan(d)) return NumberText("NaN");
  if (std::isinf(d)) return NumberText(d > 0 ? "Infinity" : "-Infinity");
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), d);
  return NumberText(std::string(buf, result.ptr));
}

namespace {

// The shortest text that reads back as `v` in its own type, with ".0" on whole numbers.
template <typename T>
void AppendDecimal(T v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
  } else {
    char buf[64];
    const char* end = std::to_chars(buf, buf + sizeof(buf), v).ptr;
    out->append(buf, static_cast<size_t>(end - buf));
    if (std::string_view(buf, end - buf).find_first_of(".e") == std::string_view::npos) {
      out->append(".0");
    }
  }
}

}  // namespace

void AppendFloat(float v, std::string* out) { AppendDecimal(v, out); }

void AppendDouble(double v, std::string* out) { AppendDecimal(v, out); }

Value Value::Float(float f) {
  std::string text;
  AppendFloat(f, &text);
  return NumberText(std::move(text));
}

Value Value::Double(double d) {
  std::string text;
  AppendDouble(d, &text);
  return NumberText(std::move(text));
}

Value Value::NumberText(std::string text) {
  Value v;
  v.type_ = Type::kNumber;
  v.text_ = std::move(text);
  return v;
}

Value Value::String(std::string s) {
  Value v;
  v.type_ = Type::kString;
  v.text_ = std::move(s);
  return v;
}

Value Value::Array() {
  Value v;
  v.type_ = Type::kArray;
  return v;
}

Value Value::Object() {
  Value v;
  v.type_ = Type::kObject;
  return v;
}

double Value::number() const {
  if (text_ == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text_ == "Infinity") return std::numeric_limits<double>::infinity();
  if (text_ == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::strtod(text_.c_str(), nullptr);
}

namespace {

bool IsPlainInteger(const std::string& text) {
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

}  // namespace

bool Value::ToInt64(int64_t* out) const {
  if (type_ != Type::kNumber || text_.empty()) return false;
  if (IsPlainInteger(text_)) {
    errno = 0;
    long long v = std::strtoll(text_.c_str(), nullptr, 10);
    if (errno == ERANGE) return false;
    *out = v;
    return true;
  }
  // Fraction or exponent: accept only exact integers inside the range doubles represent exactly.
  double d = number();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740992.0) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

bool Value::ToUint64(uint64_t* out) const {
  if (type_ != Type::kNumber || text_.empty()) return false;
  if (IsPlainInteger(text_)) {
    if (text_[0] == '-') {
      // "-0" is zero; any other negative number is out of range.
      if (text_.find_first_not_of("-0") != std::string::npos) return false;
      *out = 0;
      return true;
    }
    errno = 0;
    unsigned long long v = std::strtoull(text_.c_str(), nullptr, 10);
    if (errno == ERANGE) return false;
    *out = v;
    return true;
  }
  double d = number();
  if (!std::isfinite(d) || d != std::floor(d) || d < 0 || d > 9007199254740992.0) return false;
  *out = static_cast<uint64_t>(d);
  return true;
}

const Value* Value::Find(std::string_view key) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return &items_[i];
  }
  return nullptr;
}

Value& Value::Append(Value v) {
  items_.push_back(std::move(v));
  return items_.back();
}

Value& Value::Set(std::string key, Value v) {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) {
      items_[i] = std::move(v);
      return items_[i];
    }
  }
  keys_.push_back(std::move(key));
  items_.push_back(std::move(v));
  return items_.back();
}

const char* Value::TypeName() const {
  switch (type_) {
    case Type::kNull: return "null";
    case Type::kBool: return "a boolean";
    case Type::kNumber: return "a number";
    case Type::kString: return "a string";
    case Type::kArray: return "a list";
    case Type::kObject: return "an object";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Parser

namespace {

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : text_(text), options_(options) {}

  absl::StatusOr<Value> ParseDocument() {
    Value v;
    SkipSpace();
    if (!ParseValue(&v, 0)) return Error();
    SkipSpace();
    if (pos_ != text_.size()) {
      Fail("unexpected text after the JSON value");
      return Error();
    }
    return v;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  void SkipSpace() {
    while (!AtEnd()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool Fail(std::string message) {
    if (error_.empty()) {
      error_ = std::move(message);
      error_pos_ = pos_;
    }
    return false;
  }

  absl::Status Error() const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < error_pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    const std::string message =
        absl::StrFormat("invalid JSON at line %d column %d: %s", line, column, error_);
    return too_deep_ ? absl::ResourceExhaustedError(message)
                     : absl::InvalidArgumentError(message);
  }

  bool TooDeep() {
    if (error_.empty()) too_deep_ = true;
    return Fail(absl::StrFormat("nesting deeper than %d levels", options_.max_depth));
  }

  bool Consume(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool ParseValue(Value* out, int depth) {
    if (AtEnd()) return Fail("unexpected end of input, expected a value");
    char c = Peek();
    switch (c) {
      case '{': return ParseObject(out, depth);
      case '[': return ParseArray(out, depth);
      case '"': {
        std::string s;
        if (!ParseString(&s)) return false;
        *out = Value::String(std::move(s));
        return true;
      }
      case 't':
        if (Consume("true")) return (*out = Value::Bool(true), true);
        break;
      case 'f':
        if (Consume("false")) return (*out = Value::Bool(false), true);
        break;
      case 'n':
        if (Consume("null")) return (*out = Value(), true);
        break;
      case 'N':
        if (options_.allow_nan_inf && Consume("NaN")) {
          return (*out = Value::NumberText("NaN"), true);
        }
        break;
      case 'I':
        if (options_.allow_nan_inf && Consume("Infinity")) {
          return (*out = Value::NumberText("Infinity"), true);
        }
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
        break;
    }
    return Fail(absl::StrFormat("unexpected character '%s'", std::string(1, c)));
  }

  bool ParseNumber(Value* out) {
    if (options_.allow_nan_inf && Consume("-Infinity")) {
      *out = Value::NumberText("-Infinity");
      return true;
    }
    const NumberScan scan = ScanNumber(text_.substr(pos_));
    const size_t start = pos_;
    pos_ += scan.length;
    if (scan.error != nullptr) return Fail(scan.error);
    *out = Value::NumberText(std::string(text_.substr(start, scan.length)));
    return true;
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
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

  bool ParseHex4(uint32_t* out) {
    if (pos_ + 4 > text_.size()) return Fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        v |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        v |= c - 'A' + 10;
      } else {
        --pos_;
        return Fail("invalid hex digit in \\u escape");
      }
    }
    *out = v;
    return true;
  }

  bool ParseString(std::string* out) {
    ++pos_;  // opening quote
    while (true) {
      if (AtEnd()) return Fail("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return Fail("control character in string (escape it)");
      }
      if (c != '\\') {
        out->push_back(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (AtEnd()) return Fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp;
          if (!ParseHex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low;
            if (!Consume("\\u") || !ParseHex4(&low) || low < 0xDC00 || low > 0xDFFF) {
              return Fail("unpaired UTF-16 surrogate in \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Fail("unpaired UTF-16 surrogate in \\u escape");
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          --pos_;
          return Fail(absl::StrFormat("invalid escape '\\%s'", std::string(1, e)));
      }
    }
  }

  bool ParseArray(Value* out, int depth) {
    if (depth >= options_.max_depth) return TooDeep();
    ++pos_;  // [
    *out = Value::Array();
    SkipSpace();
    if (Peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      Value item;
      if (!ParseValue(&item, depth + 1)) return false;
      out->Append(std::move(item));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == ']') {
        ++pos_;
        return true;
      }
      return Fail(AtEnd() ? "unexpected end of input in a list" : "expected ',' or ']' in a list");
    }
  }

  bool ParseObject(Value* out, int depth) {
    if (depth >= options_.max_depth) return TooDeep();
    ++pos_;  // {
    *out = Value::Object();
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (Peek() != '"') return Fail("expected a string key in an object");
      std::string key;
      if (!ParseString(&key)) return false;
      SkipSpace();
      if (Peek() != ':') return Fail("expected ':' after an object key");
      ++pos_;
      SkipSpace();
      Value item;
      if (!ParseValue(&item, depth + 1)) return false;
      out->Set(std::move(key), std::move(item));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        return true;
      }
      return Fail(AtEnd() ? "unexpected end of input in an object"
                          : "expected ',' or '}' in an object");
    }
  }

  std::string_view text_;
  ParseOptions options_;
  size_t pos_ = 0;
  std::string error_;
  size_t error_pos_ = 0;
  bool too_deep_ = false;  // the first error was the nesting limit
};

}  // namespace

absl::StatusOr<Value> Parse(std::string_view text, const ParseOptions& options) {
  return Parser(text, options).ParseDocument();
}

// ---------------------------------------------------------------------------------------------
// Writer

void AppendQuoted(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      default:
        if (u < 0x20 || u == 0x7F) {
          out->append("\\u00");
          out->push_back(kHex[u >> 4]);
          out->push_back(kHex[u & 0xF]);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

namespace {

void Newline(int indent, int level, std::string* out) {
  out->push_back('\n');
  out->append(static_cast<size_t>(indent) * level, ' ');
}

void WriteValue(const Value& v, int indent, int level, std::string* out) {
  switch (v.type()) {
    case Value::Type::kNull: out->append("null"); return;
    case Value::Type::kBool: out->append(v.bool_value() ? "true" : "false"); return;
    case Value::Type::kNumber: out->append(v.number_text()); return;
    case Value::Type::kString: AppendQuoted(v.string_value(), out); return;
    case Value::Type::kArray:
    case Value::Type::kObject: {
      const bool object = v.is_object();
      out->push_back(object ? '{' : '[');
      if (v.size() == 0) {
        out->push_back(object ? '}' : ']');
        return;
      }
      // Indented output still keeps a list of plain values ([-1, 16]) on one line.
      bool flat = indent < 0 || !object;
      for (size_t i = 0; flat && i < v.size(); ++i) {
        flat = !v.items()[i].is_array() && !v.items()[i].is_object();
      }
      const int inner_indent = flat ? -1 : indent;
      for (size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out->push_back(',');
        if (inner_indent >= 0) {
          Newline(indent, level + 1, out);
        } else if (i > 0) {
          out->push_back(' ');
        }
        if (object) {
          AppendQuoted(v.keys()[i], out);
          out->append(": ");
        }
        WriteValue(v.items()[i], indent, level + 1, out);
      }
      if (inner_indent >= 0) Newline(indent, level, out);
      out->push_back(object ? '}' : ']');
      return;
    }
  }
}

}  // namespace

std::string Write(const Value& value, int indent) {
  std::string out;
  WriteValue(value, indent, 0, &out);
  return out;
}

NumberScan ScanNumber(std::string_view text) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  auto fail = [&](const char* error) { return NumberScan{i, error}; };
  if (i < text.size() && text[i] == '-') ++i;
  if (i < text.size() && text[i] == '0') {
    ++i;
    if (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      return fail("leading zeros are not allowed in numbers");
    }
  } else if (digits() == 0) {
    return fail("invalid number");
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (digits() == 0) return fail("invalid number: expected digits after '.'");
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return fail("invalid number: expected digits in the exponent");
  }
  return NumberScan{i, nullptr};
}

bool IsNumber(std::string_view token) {
  const NumberScan scan = ScanNumber(token);
  return scan.error == nullptr && scan.length == token.size();
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int extra;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong encodings, surrogates and code points past U+10FFFF are invalid.
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace json
}  // namespace tensord
