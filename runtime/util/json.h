// A small JSON (RFC 8259) value type with a parser and a writer, for the command-line clients.
//
//   TENSORD_ASSIGN_OR_RETURN(json::Value v, json::Parse(R"({"x": [[1, 2]]})"));
//   const json::Value* x = v.Find("x");
//   std::string text = json::Write(v, /*indent=*/2);
//
// Numbers keep their source text, so integers of any width convert exactly (ToInt64/ToUint64)
// and floats parse once with the precision the caller needs. Objects keep member order; a
// repeated key replaces the earlier value in place. As an extension (TensorFlow Serving's REST
// API accepts and prints them) the bare literals NaN, Infinity and -Infinity are numbers.
#ifndef TENSORD_CLIENTS_COMMON_JSON_H_
#define TENSORD_CLIENTS_COMMON_JSON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tensord {
namespace json {

class Value {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Value() = default;  // null
  static Value Bool(bool b);
  static Value Int(int64_t v);
  // Writes the shortest text that reads back as the same double.
  static Value Number(double v);
  // Writes the shortest text that reads back as the same float, with ".0" added to whole
  // numbers (3.0, not 3) as TensorFlow Serving's REST API adds it, so that readers that infer
  // types from tokens see a float. (Where TF Serving needs more than 6 digits it prints 9,
  // 0.333333343; this prints the shortest exact text, 0.33333334.)
  static Value Float(float v);
  // The same for a double: shortest text that reads back as the same double, "1.0" not "1".
  static Value Double(double v);
  // `text` must be a JSON number (or NaN, Infinity, -Infinity); it is not re-validated.
  static Value NumberText(std::string text);
  static Value String(std::string s);
  static Value Array();
  static Value Object();

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool bool_value() const { return bool_; }
  // The number's text exactly as parsed or given.
  const std::string& number_text() const { return text_; }
  double number() const;
  // False when the number is not an integer or does not fit. "2.0" and "1e3" are integers.
  bool ToInt64(int64_t* out) const;
  bool ToUint64(uint64_t* out) const;
  const std::string& string_value() const { return text_; }

  // Arrays: the elements. Objects: the member values, in the order of keys().
  const std::vector<Value>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  const std::vector<std::string>& keys() const { return keys_; }

  // Member lookup (objects only); nullptr when absent.
  const Value* Find(std::string_view key) const;
  // Appends to an array.
  Value& Append(Value v);
  // Sets an object member, replacing an existing one with the same key.
  Value& Set(std::string key, Value v);

  // Human-readable kind for error messages: "null", "a boolean", "a number", ...
  const char* TypeName() const;

 private:
  Type type_ = Type::kNull;
  bool bool_ = false;
  std::string text_;               // number text or string bytes
  std::vector<Value> items_;       // array elements / object values
  std::vector<std::string> keys_;  // object keys, parallel to items_
};

struct ParseOptions {
  bool allow_nan_inf = true;  // NaN, Infinity, -Infinity
  int max_depth = 512;        // nesting limit (guards the recursive parser)
};

// Parses one JSON text (surrounding whitespace allowed). Errors name the line and column; they
// are INVALID_ARGUMENT, except RESOURCE_EXHAUSTED for nesting deeper than max_depth.
absl::StatusOr<Value> Parse(std::string_view text, const ParseOptions& options = {});

// Serialises `value`. indent < 0: one line ({"a": [1, 2]}); indent >= 0: one object member or
// list element per line, nested levels indented by `indent` spaces, except that a list of plain
// values (no lists or objects inside) stays on one line.
std::string Write(const Value& value, int indent = -1);

// Appends `s` as a quoted JSON string (escaping quotes, backslashes and control characters;
// other bytes are copied, so callers pass valid UTF-8).
void AppendQuoted(std::string_view s, std::string* out);

bool IsValidUtf8(std::string_view s);

// RFC 8259's number grammar, read from the start of `text` (no NaN or Infinity): the one
// definition the parser and the REST readers share.
struct NumberScan {
  // Bytes of the number; on an error, the offset of the byte at fault.
  size_t length = 0;
  // Null for a number, else what is wrong ("leading zeros are not allowed in numbers", ...).
  const char* error = nullptr;
};
NumberScan ScanNumber(std::string_view text);

// Whether all of `token` is one JSON number.
bool IsNumber(std::string_view token);

// Appends the text Value::Float / Value::Double hold, for writers that make no Value.
void AppendFloat(float v, std::string* out);
void AppendDouble(double v, std::string* out);

}  // namespace json
}  // namespace tensord

#endif  // TENSORD_CLIENTS_COMMON_JSON_H_
