#include "server/rest/predict_json.h"

#include <algorithm>
#include <memory>

#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string_view>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/util/json.h"
#include "server/rest/number_list.h"
#include "server/status/request_too_large.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;
namespace od = ::simdjson::ondemand;

enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kNumber: return "a number";
    case Kind::kString: return "a string";
    case Kind::kArray: return "a list";
    case Kind::kObject: return "an object";
  }
  return "?";
}

// simdjson's string views as Abseil's (a distinct type in Debian's Abseil).
absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' ||
                        s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// The literals TF Serving accepts as numbers besides RFC 8259's; simdjson does not.
bool IsNonFiniteLiteral(std::string_view token) {
  return token == "NaN" || token == "Infinity" || token == "-Infinity";
}

bool IsPlainInteger(std::string_view t) {
  size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
  if (i == t.size()) return false;
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  return true;
}

// Number lists from this size on (an image of 64x64x3 floats and up) are converted by two
// threads: the conversion is then most of the request's time, and a thread costs ~50 us.
constexpr size_t kParallelScanChars = size_t{1} << 18;
// A body that large starts a lookahead at this percentage of its text: the parser's thread
// first finds the structure (~17% of the time the numbers' conversion takes), then converts the
// numbers up to there while the lookahead converts the rest.
constexpr size_t kLookaheadFrom = 42;

// Doubles hold every integer up to 2^53 exactly; "2.0" and "1e3" are integers below that.
constexpr double kMaxExactInteger = 9007199254740992.0;

struct IntRange {
  int64_t lo, hi;
};

IntRange RangeOf(tf::DataType dtype) {
  switch (dtype) {
    case tf::DT_INT8: return {INT8_MIN, INT8_MAX};
    case tf::DT_UINT8: return {0, UINT8_MAX};
    case tf::DT_INT16: return {INT16_MIN, INT16_MAX};
    case tf::DT_UINT16: return {0, UINT16_MAX};
    case tf::DT_INT32: return {INT32_MIN, INT32_MAX};
    case tf::DT_UINT32: return {0, UINT32_MAX};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

// A list or object's text in json::Write's one-line layout, for error messages; a long one (only
// ever a client's mistake) is cut short rather than copied into the message whole.
std::string ContainerText(std::string_view raw) {
  constexpr size_t kMaxText = 1024;
  raw = TrimRight(raw);
  if (raw.size() > kMaxText) return absl::StrCat(Absl(raw.substr(0, kMaxText)), "...");
  absl::StatusOr<json::Value> parsed = json::Parse(raw);
  return parsed.ok() ? json::Write(*parsed) : std::string(raw);
}

std::string ShapeText(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;  // bounded: every counted element was read from the body
  return n;
}

// Shape of one value as it is read: dims along the first path of first elements, as they
// become known. A later list must match the dim at its depth; the rank is known once the first
// path reaches a scalar or an empty list.
struct ValueShape {
  std::vector<int64_t> dims;
  bool rank_known = false;
};

// One named input being built.
struct Input {
  std::string alias;
  tf::DataType dtype = tf::DT_INVALID;
  tf::TensorProto proto;        // values only; dtype and shape are set at the end
  std::vector<int64_t> shape;   // columnar: the value's; row format: row 0's
  int64_t rows = 0;
  absl::Status stack_error;     // first row whose shape differs from row 0's (reported last)
};

class Reader {
 public:
  Reader(const PredictJsonOptions& options, const simdjson::padded_string_view& text)
      : options_(options), text_(text) {}

  absl::Status Run(PredictSignatureResolver resolve, serving::PredictRequest* request,
                   JsonFormat* format);

 private:
  // Starts reading the body from its beginning (simdjson's stage 1: its structure index).
  simdjson::error_code Start() {
    const simdjson::error_code e = parser_.iterate(text_).get(doc_);
    started_ = e == simdjson::SUCCESS;
    return e;
  }

  // --- errors -------------------------------------------------------------------------------
  absl::Status JsonError(simdjson::error_code code, const char* what = nullptr);
  absl::Status TooDeep();
  // `status`, unless the body is malformed somewhere: malformed JSON is reported first.
  absl::Status Fail(absl::Status status);

  // --- generic reading ------------------------------------------------------------------------
  // The kind of `v`; bare NaN and Infinity are numbers. Error: not a JSON value.
  absl::Status KindOf(od::value& v, Kind* kind);
  // A number's value: simdjson's, else (1e400, NaN, ...) from its text.
  absl::Status NumberOf(od::value& v, double* d, std::string_view* token);
  // Reads and checks `v` and everything inside it.
  absl::Status Validate(od::value& v, int depth);
  absl::Status ValidateDocument();
  // `v` as json::Write writes it on one line, for error messages; consumes `v`.
  std::string Text(od::value& v);
  // Whether `obj` is {"b64": ...}; leaves it rewound.
  absl::Status IsB64(od::object& obj, bool* b64);
  bool KeyIsB64(od::field& field) const;

  // --- body structure -------------------------------------------------------------------------
  absl::Status ReadTopLevel();
  absl::StatusOr<tf::DataType> DtypeOf(const std::string& alias) const;
  absl::StatusOr<std::string> SingleAlias() const;
  absl::StatusOr<Input*> AddInput(const std::string& alias);
  absl::Status ReadColumnar(od::value& inputs);
  absl::Status ReadRows(od::value& instances);

  // --- values -------------------------------------------------------------------------------
  // Reads a whole value `v` at JSON nesting `depth` through number_list.h's fast path where it
  // can; *scanned: it did, and `shape` is the value's.
  absl::Status ScanNumbers(od::value& v, int depth, ValueShape* shape, Input* in, bool* scanned);
  // Reads `v` at list depth `d` of its value and JSON nesting `depth` into `in`.
  absl::Status Walk(od::value& v, size_t d, int depth, ValueShape* shape, Input* in);
  // A scalar (or {"b64": ...}) expected at list depth `d`.
  absl::Status Leaf(od::value& v, size_t d, Input* in);
  // An object where a scalar is expected; `b64` from IsB64.
  absl::Status ObjectLeaf(od::object& object, bool b64, Input* in);
  template <typename T>
  absl::Status Append(T v, Input* in);  // one element, counted against the limits
  absl::Status AppendDouble(double d, Input* in);
  absl::Status AppendInteger(od::value& v, Kind kind, Input* in);
  absl::Status AppendInt64(int64_t i, od::value& v, std::string_view token, Input* in);
  absl::Status AppendBytes(std::string_view bytes, Input* in);
  absl::Status StringTooLong(int64_t size, const Input& in) const;
  absl::Status TypeError(const std::string& text, Kind kind, const Input& in);
  // Counts one more element of `bytes` decoded bytes against the request limits.
  absl::Status Use(int64_t bytes, const Input& in);

  const PredictJsonOptions& options_;
  simdjson::padded_string_view text_;
  // Converts the numbers of a large body's latter part while the parser finds the lists.
  std::unique_ptr<NumberListLookahead> lookahead_;
  od::parser parser_;
  od::document doc_;
  bool started_ = false;  // doc_ is a started document (else simdjson must not touch it)
  bool malformed_ = false;  // an error returned was about the JSON text itself

  std::string signature_name_;
  bool signature_name_ok_ = true;
  int instances_seen_ = 0, inputs_seen_ = 0;
  const tf::SignatureDef* signature_ = nullptr;
  std::map<std::string, Input> inputs_;  // by alias, sorted as TF Serving reports them
  int64_t elements_ = 0, bytes_ = 0;     // used of options_.limits so far
};

absl::Status Reader::JsonError(simdjson::error_code code, const char* what) {
  malformed_ = true;
  std::string where;
  const char* location = nullptr;
  if (started_ && doc_.current_location().get(location) == simdjson::SUCCESS &&
      location != nullptr &&
      location >= text_.data() && location <= text_.data() + text_.size()) {
    int line = 1, column = 1;
    for (const char* p = text_.data(); p < location; ++p) {
      if (*p == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    where = absl::StrCat(" at line ", line, " column ", column);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("JSON Parse error: invalid JSON", where, ": ",
                   what != nullptr ? what : simdjson::error_message(code)));
}

absl::Status Reader::TooDeep() {
  malformed_ = true;
  return RequestTooLargeError(absl::StrCat("JSON body nests deeper than the limit of ",
                                           options_.max_depth, " (--rest_api_max_json_depth)"));
}

absl::Status Reader::Fail(absl::Status status) {
  if (status.ok()) return status;
  // Walking the whole body again costs one more pass, on error paths only.
  absl::Status first = ValidateDocument();
  return first.ok() ? status : first;
}

absl::Status Reader::KindOf(od::value& v, Kind* kind) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) {
    std::string_view token;
    if (IsNonFiniteLiteral(TrimRight(v.raw_json_token()))) {
      *kind = Kind::kNumber;
      return absl::OkStatus();
    }
    return JsonError(simdjson::TAPE_ERROR, "unexpected character");
  }
  switch (type) {
    case od::json_type::array: *kind = Kind::kArray; break;
    case od::json_type::object: *kind = Kind::kObject; break;
    case od::json_type::number: *kind = Kind::kNumber; break;
    case od::json_type::string: *kind = Kind::kString; break;
    case od::json_type::boolean: *kind = Kind::kBool; break;
    case od::json_type::null: *kind = Kind::kNull; break;
  }
  return absl::OkStatus();
}

absl::Status Reader::NumberOf(od::value& v, double* d, std::string_view* token) {
  *token = TrimRight(v.raw_json_token());
  simdjson::error_code code = v.get_double().get(*d);
  if (code == simdjson::SUCCESS) return absl::OkStatus();
  if (*token == "NaN") {
    *d = std::numeric_limits<double>::quiet_NaN();
  } else if (*token == "Infinity" || *token == "-Infinity") {
    *d = (*token)[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  } else if (json::IsNumber(*token)) {
    *d = std::strtod(std::string(*token).c_str(), nullptr);  // out of double range: ±inf, 0
  } else {
    return JsonError(code == simdjson::INCORRECT_TYPE ? simdjson::NUMBER_ERROR : code);
  }
  return absl::OkStatus();
}

absl::Status Reader::Validate(od::value& v, int depth) {
  Kind kind;
  if (absl::Status s = KindOf(v, &kind); !s.ok()) return s;
  switch (kind) {
    case Kind::kArray: {
      if (depth >= options_.max_depth) return TooDeep();
      od::array array;
      if (auto e = v.get_array().get(array)) return JsonError(e);
      for (auto item : array) {
        od::value element;
        if (auto e = item.get(element)) return JsonError(e);
        if (absl::Status s = Validate(element, depth + 1); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case Kind::kObject: {
      if (depth >= options_.max_depth) return TooDeep();
      od::object object;
      if (auto e = v.get_object().get(object)) return JsonError(e);
      for (auto item : object) {
        od::field field;
        std::string_view key;
        if (auto e = std::move(item).get(field)) return JsonError(e);
        if (auto e = field.unescaped_key().get(key)) return JsonError(e);
        if (absl::Status s = Validate(field.value(), depth + 1); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case Kind::kNumber: {
      double d;
      std::string_view token;
      return NumberOf(v, &d, &token);
    }
    case Kind::kString: {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return JsonError(e);
      return absl::OkStatus();
    }
    case Kind::kBool: {
      bool b;
      if (auto e = v.get_bool().get(b)) return JsonError(e);
      return absl::OkStatus();
    }
    case Kind::kNull: {
      bool null = false;
      if (auto e = v.is_null().get(null)) return JsonError(e);
      if (!null) return JsonError(simdjson::N_ATOM_ERROR);
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

// Root values: an object or array is walked as a value; scalars are read from the document.
absl::Status Reader::ValidateDocument() {
  malformed_ = false;
  // Read afresh: after an error simdjson's document may no longer rewind.
  if (auto e = Start()) return JsonError(e);
  od::json_type type;
  if (doc_.type().get(type) != simdjson::SUCCESS) {
    std::string_view token;
    if (doc_.raw_json_token().get(token) == simdjson::SUCCESS &&
        IsNonFiniteLiteral(TrimRight(token))) {
      return absl::OkStatus();
    }
    return JsonError(simdjson::TAPE_ERROR, "unexpected character");
  }
  simdjson::error_code e = simdjson::SUCCESS;
  switch (type) {
    case od::json_type::array:
    case od::json_type::object: {
      od::value root;
      if ((e = doc_.get_value().get(root))) break;
      if (absl::Status s = Validate(root, 0); !s.ok()) return s;
      break;
    }
    case od::json_type::number: {
      double d;
      e = doc_.get_double().get(d);
      if (e != simdjson::SUCCESS) {
        std::string_view token;
        if (doc_.raw_json_token().get(token) == simdjson::SUCCESS &&
            json::IsNumber(TrimRight(token))) {
          e = simdjson::SUCCESS;
        }
      }
      break;
    }
    case od::json_type::string: {
      std::string_view s;
      e = doc_.get_string().get(s);
      break;
    }
    case od::json_type::boolean: {
      bool b;
      e = doc_.get_bool().get(b);
      break;
    }
    case od::json_type::null: {
      bool null = false;
      e = doc_.is_null().get(null);
      if (!e && !null) e = simdjson::N_ATOM_ERROR;
      break;
    }
  }
  if (e) return JsonError(e);
  const char* rest;
  if (doc_.current_location().get(rest) == simdjson::SUCCESS) {
    return JsonError(simdjson::TRAILING_CONTENT, "unexpected text after the JSON value");
  }
  return absl::OkStatus();
}

std::string Reader::Text(od::value& v) {
  Kind kind;
  std::string_view raw;
  if (!KindOf(v, &kind).ok()) {
    malformed_ = false;  // only a message is being written
    return std::string(TrimRight(v.raw_json_token()));
  }
  switch (kind) {
    case Kind::kString: {
      std::string_view s;
      if (v.get_string().get(s) != simdjson::SUCCESS) break;
      std::string out;
      json::AppendQuoted(s, &out);
      return out;
    }
    case Kind::kArray: {
      od::array array;
      if (v.get_array().get(array) != simdjson::SUCCESS ||
          array.raw_json().get(raw) != simdjson::SUCCESS) {
        return "";
      }
      break;
    }
    case Kind::kObject: {
      od::object object;
      if (v.get_object().get(object) != simdjson::SUCCESS ||
          object.raw_json().get(raw) != simdjson::SUCCESS) {
        return "";
      }
      break;
    }
    default:
      break;
  }
  if (kind != Kind::kArray && kind != Kind::kObject) {
    return std::string(TrimRight(v.raw_json_token()));
  }
  return ContainerText(raw);
}

// From the text: unescaped_key() would copy the key into simdjson's string buffer, which has
// room for each string of the body once per pass, and the object is read again after IsB64.
bool Reader::KeyIsB64(od::field& field) const {
  const char* begin = field.key().raw();  // after the opening quote
  const char* end = text_.data() + text_.size();
  const char* p = begin;
  bool escaped = false;
  while (p < end && *p != '"') {
    if (*p == '\\') {
      escaped = true;
      if (++p == end) break;
    }
    ++p;
  }
  if (p == end) return false;  // unterminated: malformed, reported when the key is read
  if (!escaped) return std::string_view(begin, p - begin) == "b64";
  absl::StatusOr<json::Value> key = json::Parse(std::string_view(begin - 1, p - begin + 2));
  return key.ok() && key->is_string() && key->string_value() == "b64";
}

absl::Status Reader::IsB64(od::object& obj, bool* b64) {
  // As when objects were parsed whole: one member named "b64" (a repeated key counts once).
  *b64 = false;
  bool any = false, all = true;
  for (auto item : obj) {
    od::field field;
    if (auto e = std::move(item).get(field)) return JsonError(e);
    any = true;
    if (!KeyIsB64(field)) {
      all = false;
      break;
    }
  }
  bool unused;
  if (auto e = obj.reset().get(unused)) return JsonError(e);
  *b64 = any && all;
  return absl::OkStatus();
}

absl::Status Reader::Use(int64_t bytes, const Input& in) {
  const RequestLimits& limits = options_.limits;
  if (elements_ >= limits.max_tensor_elements) {
    return RequestTooLargeError(absl::StrCat(
        "input '", in.alias, "' brings the request to more than the limit of ",
        limits.max_tensor_elements, " tensor elements (--max_request_tensor_elements)"));
  }
  // bytes_ stays at most the limit, so the subtraction cannot overflow.
  if (bytes > limits.max_tensor_bytes - bytes_) {
    return RequestTooLargeError(absl::StrCat("input '", in.alias,
                                             "' brings the request to more than the limit of ",
                                             limits.max_tensor_bytes,
                                             " bytes (--max_request_tensor_bytes)"));
  }
  ++elements_;
  bytes_ += bytes;
  return absl::OkStatus();
}

// What a scalar of `dtype` must be, in TF Serving's messages; null: no JSON conversion.
const char* Wanted(tf::DataType dtype) {
  switch (dtype) {
    case tf::DT_FLOAT:
    case tf::DT_DOUBLE:
      return "a number";
    case tf::DT_INT8:
    case tf::DT_UINT8:
    case tf::DT_INT16:
    case tf::DT_UINT16:
    case tf::DT_INT32:
    case tf::DT_UINT32:
    case tf::DT_INT64:
      return "an integer";
    case tf::DT_UINT64:
      return "a non-negative integer";
    case tf::DT_BOOL:
      return "true/false";
    case tf::DT_STRING:
      return "a string or {\"b64\": ...}";
    default:
      return nullptr;
  }
}

absl::Status Reader::TypeError(const std::string& text, Kind kind, const Input& in) {
  const char* want = Wanted(in.dtype);
  if (want == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conversion of JSON values to ", tf::DataType_Name(in.dtype), " is not supported"));
  }
  return absl::InvalidArgumentError(absl::StrCat("Expected ", want, " for ",
                                                 tf::DataType_Name(in.dtype), " but got ",
                                                 KindName(kind), ": ", text));
}

absl::Status Reader::AppendInt64(int64_t i, od::value& v, std::string_view token, Input* in) {
  const IntRange range = RangeOf(in->dtype);
  if (i < range.lo || i > range.hi) {
    if (token.empty()) token = TrimRight(v.raw_json_token());
    return absl::InvalidArgumentError(absl::StrCat("Value ", Absl(token), " is out of range for ",
                                                   tf::DataType_Name(in->dtype)));
  }
  switch (in->dtype) {
    case tf::DT_INT8: return Append(static_cast<int8_t>(i), in);
    case tf::DT_UINT8: return Append(static_cast<uint8_t>(i), in);
    case tf::DT_INT16: return Append(static_cast<int16_t>(i), in);
    case tf::DT_UINT16: return Append(static_cast<uint16_t>(i), in);
    case tf::DT_INT32: return Append(static_cast<int32_t>(i), in);
    case tf::DT_UINT32: return Append(static_cast<uint32_t>(i), in);
    default: return Append(i, in);
  }
}

absl::Status Reader::AppendDouble(double d, Input* in) {
  if (in->dtype == tf::DT_FLOAT) return Append(static_cast<float>(d), in);
  return Append(d, in);
}

template <typename T>
absl::Status Reader::Append(T v, Input* in) {
  if (absl::Status s = Use(sizeof(T), *in); !s.ok()) return s;
  in->proto.mutable_tensor_content()->append(reinterpret_cast<const char*>(&v), sizeof(T));
  return absl::OkStatus();
}

// The slow path of integers: what simdjson does not convert may still be an exact integer
// ("2.0", "1e3", "-0" for unsigned); anything else is TF Serving's type error.
absl::Status Reader::AppendInteger(od::value& v, Kind kind, Input* in) {
  if (kind != Kind::kNumber) return TypeError(Text(v), kind, *in);
  const bool unsigned64 = in->dtype == tf::DT_UINT64;
  double d;
  std::string_view token;
  if (absl::Status s = NumberOf(v, &d, &token); !s.ok()) return s;
  bool ok;
  if (IsPlainInteger(token)) {
    // simdjson converts every plain integer in range; "-0" is the one left for unsigned.
    ok = unsigned64 && token.find_first_not_of("-0") == std::string_view::npos;
    d = 0;
  } else {
    ok = std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= kMaxExactInteger &&
         (!unsigned64 || d >= 0);
  }
  if (!ok) return TypeError(std::string(token), kind, *in);
  if (!unsigned64) return AppendInt64(static_cast<int64_t>(d), v, token, in);
  return Append(static_cast<uint64_t>(d), in);
}

absl::Status Reader::StringTooLong(int64_t size, const Input& in) const {
  return RequestTooLargeError(absl::StrCat(
      "input '", in.alias, "' has a string of ", size, " bytes, more than the limit of ",
      options_.limits.max_string_bytes, " (--max_request_string_bytes)"));
}

// A decoded string element counts its length plus 32 bytes, as RequestBudget counts it.
absl::Status Reader::AppendBytes(std::string_view bytes, Input* in) {
  const int64_t size = static_cast<int64_t>(bytes.size());
  if (size > options_.limits.max_string_bytes) return StringTooLong(size, *in);
  if (absl::Status s = Use(size + 32, *in); !s.ok()) return s;
  in->proto.add_string_val(bytes.data(), bytes.size());
  return absl::OkStatus();
}

absl::Status Reader::ObjectLeaf(od::object& object, bool b64, Input* in) {
  if (in->dtype != tf::DT_STRING || !b64) {
    std::string_view raw;
    if (auto e = object.raw_json().get(raw)) return JsonError(e);
    return TypeError(ContainerText(raw), Kind::kObject, *in);
  }
  // The last "b64" member is the value, as it was when a repeated key replaced the earlier.
  std::string_view encoded;
  std::string error_text;
  for (auto item : object) {
    od::field field;
    if (auto e = std::move(item).get(field)) return JsonError(e);
    Kind kind;
    if (absl::Status s = KindOf(field.value(), &kind); !s.ok()) return s;
    error_text.clear();
    if (kind != Kind::kString) {
      error_text = Text(field.value());
    } else if (auto e = field.value().get_string().get(encoded)) {
      return JsonError(e);
    }
  }
  if (!error_text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Unable to base64 decode: ", error_text));
  }
  // Decoding makes at most 3 bytes of 4 characters: refuse before allocating past the limit.
  const int64_t most = static_cast<int64_t>(encoded.size() / 4 + 1) * 3;
  if (most > options_.limits.max_string_bytes + 3) return StringTooLong(most, *in);
  std::string bytes;
  if (!absl::Base64Unescape(Absl(encoded), &bytes)) {
    json::AppendQuoted(encoded, &error_text);
    return absl::InvalidArgumentError(absl::StrCat("Unable to base64 decode: ", error_text));
  }
  return AppendBytes(bytes, in);
}

absl::Status Reader::Leaf(od::value& v, size_t d, Input* in) {
  // Fast paths: the value is what the dtype wants.
  switch (in->dtype) {
    case tf::DT_FLOAT:
    case tf::DT_DOUBLE: {
      double x;
      if (v.get_double().get(x) == simdjson::SUCCESS) return AppendDouble(x, in);
      break;
    }
    case tf::DT_INT8:
    case tf::DT_UINT8:
    case tf::DT_INT16:
    case tf::DT_UINT16:
    case tf::DT_INT32:
    case tf::DT_UINT32:
    case tf::DT_INT64: {
      int64_t i;
      if (v.get_int64().get(i) == simdjson::SUCCESS) return AppendInt64(i, v, {}, in);
      break;
    }
    case tf::DT_UINT64: {
      uint64_t u;
      if (v.get_uint64().get(u) == simdjson::SUCCESS) return Append(u, in);
      break;
    }
    case tf::DT_BOOL: {
      bool b;
      if (v.get_bool().get(b) == simdjson::SUCCESS) return Append(static_cast<uint8_t>(b), in);
      break;
    }
    default:
      break;
  }
  Kind kind;
  if (absl::Status s = KindOf(v, &kind); !s.ok()) return s;
  if (kind == Kind::kArray) {
    od::array array;
    size_t n = 0;
    if (auto e = v.get_array().get(array)) return JsonError(e);
    if (auto e = array.count_elements().get(n)) return JsonError(e);
    return absl::InvalidArgumentError(
        absl::StrCat("Ragged nested list: expected a scalar at depth ", d,
                     " but got a list of ", n, " elements"));
  }
  if (kind == Kind::kObject) {
    od::object object;
    bool b64;
    if (auto e = v.get_object().get(object)) return JsonError(e);
    if (absl::Status s = IsB64(object, &b64); !s.ok()) return s;
    return ObjectLeaf(object, b64, in);
  }
  switch (in->dtype) {
    case tf::DT_FLOAT:
    case tf::DT_DOUBLE: {
      if (kind != Kind::kNumber) return TypeError(Text(v), kind, *in);
      double x;
      std::string_view token;
      if (absl::Status s = NumberOf(v, &x, &token); !s.ok()) return s;
      return AppendDouble(x, in);
    }
    case tf::DT_INT8:
    case tf::DT_UINT8:
    case tf::DT_INT16:
    case tf::DT_UINT16:
    case tf::DT_INT32:
    case tf::DT_UINT32:
    case tf::DT_INT64:
    case tf::DT_UINT64:
      return AppendInteger(v, kind, in);
    case tf::DT_STRING:
      if (kind == Kind::kString) {
        std::string_view s;
        if (auto e = v.get_string().get(s)) return JsonError(e);
        return AppendBytes(s, in);
      }
      return TypeError(Text(v), kind, *in);
    case tf::DT_BOOL:
      // A "t..."/"f..." token get_bool refused is malformed.
      if (kind == Kind::kBool) return JsonError(simdjson::T_ATOM_ERROR);
      return TypeError(Text(v), kind, *in);
    default:
      return TypeError(Text(v), kind, *in);
  }
}

absl::Status Reader::ScanNumbers(od::value& v, int depth, ValueShape* shape, Input* in,
                                 bool* scanned) {
  *scanned = false;
  const std::string_view token = v.raw_json_token();
  if (token.empty() || token[0] != '[' || depth >= options_.max_depth) return absl::OkStatus();
  NumberListOptions scan;
  scan.max_nesting = options_.max_depth - depth;
  scan.max_elements = options_.limits.max_tensor_elements - elements_;
  scan.max_bytes = options_.limits.max_tensor_bytes - bytes_;
  scan.parallel_min_chars = kParallelScanChars;
  std::string* content = in->proto.mutable_tensor_content();
  const size_t before = content->size();
  const std::string_view rest(token.data(), text_.data() + text_.size() - token.data());
  std::vector<int64_t> dims;
  size_t length = 0;
  if (!ScanNumberList(rest, in->dtype, scan, lookahead_.get(), content, &dims, &length)) {
    return absl::OkStatus();
  }
  // simdjson steps over the list the scanner read.
  od::array array;
  std::string_view raw;
  if (auto e = v.get_array().get(array)) return JsonError(e);
  if (auto e = array.raw_json().get(raw)) return JsonError(e);
  elements_ += NumElements(dims);
  bytes_ += static_cast<int64_t>(content->size() - before);
  shape->dims = std::move(dims);
  shape->rank_known = true;
  *scanned = true;
  return absl::OkStatus();
}

absl::Status Reader::Walk(od::value& v, size_t d, int depth, ValueShape* shape, Input* in) {
  if (d == 0 && !shape->rank_known) {
    bool scanned;
    absl::Status s = ScanNumbers(v, depth, shape, in, &scanned);
    if (!s.ok() || scanned) return s;
  }
  if (d == shape->dims.size()) {
    if (shape->rank_known) return Leaf(v, d, in);
    // On the first path: a list adds a dim, anything else ends the shape.
    Kind kind;
    if (absl::Status s = KindOf(v, &kind); !s.ok()) return s;
    if (kind != Kind::kArray) {
      shape->rank_known = true;
      return Leaf(v, d, in);
    }
    if (depth >= options_.max_depth) return TooDeep();
    od::array array;
    if (auto e = v.get_array().get(array)) return JsonError(e);
    shape->dims.push_back(0);
    int64_t n = 0;
    for (auto item : array) {
      od::value element;
      if (auto e = item.get(element)) return JsonError(e);
      if (absl::Status s = Walk(element, d + 1, depth + 1, shape, in); !s.ok()) return s;
      ++n;
    }
    shape->dims[d] = n;
    if (n == 0) shape->rank_known = true;
    return absl::OkStatus();
  }
  // A later list: it must have the length the first list at its depth had. As when the whole
  // value was checked before its elements, a wrong length outranks errors inside the list.
  const int64_t want = shape->dims[d];
  od::array array;
  simdjson::error_code e = v.get_array().get(array);
  if (e == simdjson::INCORRECT_TYPE) {
    Kind kind;
    if (absl::Status s = KindOf(v, &kind); !s.ok()) return s;
    return absl::InvalidArgumentError(absl::StrCat("Ragged nested list: expected a list of ",
                                                   want, " elements at depth ", d,
                                                   " but got ", KindName(kind)));
  }
  if (e) return JsonError(e);
  if (depth >= options_.max_depth) return TooDeep();
  int64_t n = 0;
  absl::Status inner;
  for (auto item : array) {
    od::value element;
    if (auto e2 = item.get(element)) return JsonError(e2);
    if (inner.ok() && n < want) {
      inner = Walk(element, d + 1, depth + 1, shape, in);
      if (malformed_) return inner;
    }
    ++n;
  }
  if (n != want) {
    return absl::InvalidArgumentError(absl::StrCat("Ragged nested list: expected ", want,
                                                   " elements at depth ", d, " but got ", n));
  }
  return inner;
}

absl::Status Reader::ReadTopLevel() {
  od::json_type type;
  if (doc_.type().get(type) != simdjson::SUCCESS || type != od::json_type::object) {
    if (absl::Status s = ValidateDocument(); !s.ok()) return s;
    if (auto e = Start()) return JsonError(e);
    Kind kind = Kind::kNumber;  // bare NaN/Infinity
    if (doc_.type().get(type) == simdjson::SUCCESS) {
      kind = type == od::json_type::array     ? Kind::kArray
             : type == od::json_type::string  ? Kind::kString
             : type == od::json_type::boolean ? Kind::kBool
             : type == od::json_type::null    ? Kind::kNull
                                              : Kind::kNumber;
    }
    return absl::InvalidArgumentError(
        absl::StrCat("Request body must be a JSON object, got ", KindName(kind)));
  }
  if (options_.max_depth <= 0) return Fail(TooDeep());
  od::object root;
  if (auto e = doc_.get_object().get(root)) return Fail(JsonError(e));
  for (auto item : root) {
    od::field field;
    std::string_view key;
    if (auto e = std::move(item).get(field)) return Fail(JsonError(e));
    if (auto e = field.unescaped_key().get(key)) return Fail(JsonError(e));
    // The tensors are read once the signature is known; here they are only skipped.
    if (key == "instances") {
      ++instances_seen_;
    } else if (key == "inputs") {
      ++inputs_seen_;
    } else if (key == "signature_name") {
      std::string_view name;
      signature_name_ok_ = field.value().get_string().get(name) == simdjson::SUCCESS;
      if (signature_name_ok_) {
        signature_name_ = std::string(name);
      } else if (absl::Status s = Validate(field.value(), 1); !s.ok()) {
        return Fail(s);
      }
    } else if (absl::Status s = Validate(field.value(), 1); !s.ok()) {
      return Fail(s);
    }
  }
  const char* rest;
  if (doc_.current_location().get(rest) == simdjson::SUCCESS) {
    return Fail(JsonError(simdjson::TRAILING_CONTENT, "unexpected text after the JSON value"));
  }
  if (!signature_name_ok_) {
    return Fail(absl::InvalidArgumentError("'signature_name' must be a string"));
  }
  return absl::OkStatus();
}

absl::StatusOr<tf::DataType> Reader::DtypeOf(const std::string& alias) const {
  auto it = signature_->inputs().find(alias);
  if (it == signature_->inputs().end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input alias \"", alias, "\" is not in the signature"));
  }
  return it->second.dtype();
}

absl::StatusOr<std::string> Reader::SingleAlias() const {
  if (signature_->inputs().size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("The signature has ", signature_->inputs().size(),
                     " inputs; name them with an object of named inputs"));
  }
  return signature_->inputs().begin()->first;
}

absl::StatusOr<Input*> Reader::AddInput(const std::string& alias) {
  absl::StatusOr<tf::DataType> dtype = DtypeOf(alias);
  if (!dtype.ok()) return dtype.status();
  auto [it, added] = inputs_.try_emplace(alias);
  Input& in = it->second;
  if (!added) {
    // A repeated name: the later value replaces the earlier, as a repeated JSON key did.
    in.proto.Clear();
    in.shape.clear();
    in.rows = 0;
    in.stack_error = absl::OkStatus();
  }
  in.alias = alias;
  in.dtype = *dtype;
  if (static_cast<int64_t>(inputs_.size()) > options_.limits.max_inputs) {
    return RequestTooLargeError(absl::StrCat("request has more than the limit of ",
                                             options_.limits.max_inputs,
                                             " inputs (--max_request_inputs)"));
  }
  return &in;
}

absl::Status Reader::ReadColumnar(od::value& inputs) {
  Kind kind;
  if (absl::Status s = KindOf(inputs, &kind); !s.ok()) return s;
  bool named = false;
  od::object object;
  if (kind == Kind::kObject) {
    if (options_.max_depth <= 1) return TooDeep();
    if (auto e = inputs.get_object().get(object)) return JsonError(e);
    bool b64;
    if (absl::Status s = IsB64(object, &b64); !s.ok()) return s;
    named = !b64;
  }
  if (!named) {
    absl::StatusOr<std::string> alias = SingleAlias();
    if (!alias.ok()) return alias.status();
    absl::StatusOr<Input*> in = AddInput(*alias);
    if (!in.ok()) return in.status();
    if (kind == Kind::kObject) return ObjectLeaf(object, /*b64=*/true, *in);  // opened above
    ValueShape shape;
    if (absl::Status s = Walk(inputs, 0, 1, &shape, *in); !s.ok()) return s;
    (*in)->shape = std::move(shape.dims);
    return absl::OkStatus();
  }
  for (auto item : object) {
    od::field field;
    std::string_view key;
    if (auto e = std::move(item).get(field)) return JsonError(e);
    if (auto e = field.unescaped_key().get(key)) return JsonError(e);
    absl::StatusOr<Input*> in = AddInput(std::string(key));
    if (!in.ok()) return in.status();
    ValueShape shape;
    absl::Status s = Walk(field.value(), 0, 2, &shape, *in);
    if (!s.ok()) {
      if (malformed_ || s.code() != absl::StatusCode::kInvalidArgument) return s;
      return absl::InvalidArgumentError(absl::StrCat("Input \"", Absl(key), "\": ", s.message()));
    }
    (*in)->shape = std::move(shape.dims);
  }
  return absl::OkStatus();
}

absl::Status Reader::ReadRows(od::value& instances) {
  od::array rows;
  simdjson::error_code e = instances.get_array().get(rows);
  if (e == simdjson::INCORRECT_TYPE) {
    Kind kind;
    if (absl::Status s = KindOf(instances, &kind); !s.ok()) return s;
    return absl::InvalidArgumentError(
        absl::StrCat("Expected 'instances' to be a list, got ", KindName(kind)));
  }
  if (e) return JsonError(e);
  if (options_.max_depth <= 1) return TooDeep();
  // Errors inside a row are TF Serving's "Failed to process element" ones.
  int64_t r = 0;
  auto element_error = [&r](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Failed to process element: ", r, " of 'instances' list. Error: ", s.message()));
  };
  auto wrap = [&](const absl::Status& s) {
    return malformed_ || s.code() != absl::StatusCode::kInvalidArgument ? s : element_error(s);
  };
  // Row `r` of `in` has been read with `shape`: it must match row 0 (checked, like TF Serving,
  // only after every row converted, so the error is kept until then).
  auto end_row = [&](Input* in, ValueShape& shape) {
    if (in->rows++ == 0) {
      in->shape = std::move(shape.dims);
      return;
    }
    if (!in->stack_error.ok()) return;
    const int64_t want = NumElements(in->shape), got = NumElements(shape.dims);
    if (want != got) {
      in->stack_error = element_error(absl::InvalidArgumentError(
          absl::StrCat("Invalid argument: Expecting tensor size: ", want, " but got: ", got)));
    } else if (in->shape != shape.dims) {
      in->stack_error = element_error(absl::InvalidArgumentError(
          absl::StrCat("Invalid argument: Expecting shape ", ShapeText(in->shape),
                       " but got: ", ShapeText(shape.dims))));
    }
  };
  bool named = false;
  for (auto item : rows) {
    od::value row;
    if (auto e2 = item.get(row)) return JsonError(e2);
    Kind kind;
    if (absl::Status s = KindOf(row, &kind); !s.ok()) return s;
    od::object object;
    bool b64 = false;
    if (kind == Kind::kObject) {
      if (options_.max_depth <= 2) return TooDeep();
      if (auto e2 = row.get_object().get(object)) return JsonError(e2);
      if (absl::Status s = IsB64(object, &b64); !s.ok()) return s;
    }
    if (r == 0) named = kind == Kind::kObject && !b64;
    if (!named) {
      absl::StatusOr<std::string> alias = SingleAlias();
      if (!alias.ok()) return alias.status();
      Input* in;
      if (r == 0) {
        absl::StatusOr<Input*> added = AddInput(*alias);
        if (!added.ok()) return added.status();
        in = *added;
      } else {
        in = &inputs_.at(*alias);
      }
      ValueShape shape;
      // An object row was opened above; it is a scalar ({"b64": ...} or a type error).
      absl::Status s = kind == Kind::kObject ? ObjectLeaf(object, b64, in)
                                             : Walk(row, 0, 2, &shape, in);
      if (!s.ok()) return wrap(s);
      end_row(in, shape);
      ++r;
      continue;
    }
    if (kind != Kind::kObject || b64) {
      return element_error(absl::InvalidArgumentError(
          absl::StrCat("Expecting an object of named inputs, got ", KindName(kind))));
    }
    // A wrong number of names outranks errors in the row's values, as when rows were whole.
    size_t fields = 0;
    absl::Status first;
    for (auto member : object) {
      od::field field;
      std::string_view key;
      if (auto e2 = std::move(member).get(field)) return JsonError(e2);
      if (auto e2 = field.unescaped_key().get(key)) return JsonError(e2);
      ++fields;
      if (!first.ok()) continue;
      const std::string alias(key);
      Input* in;
      if (r == 0) {
        absl::StatusOr<Input*> added = AddInput(alias);
        if (!added.ok()) return added.status();  // not an element error, as in TF Serving
        in = *added;
      } else {
        auto it = inputs_.find(alias);
        if (it == inputs_.end()) {
          first = element_error(absl::InvalidArgumentError(
              absl::StrCat("Input \"", alias, "\" is not in element 0")));
          continue;
        }
        in = &it->second;
      }
      ValueShape shape;
      first = Walk(field.value(), 0, 3, &shape, in);
      if (malformed_) return first;
      if (!first.ok()) {
        first = wrap(first);
        continue;
      }
      end_row(in, shape);
    }
    if (r > 0 && fields != inputs_.size()) {
      return element_error(absl::InvalidArgumentError(
          absl::StrCat("Expecting ", inputs_.size(), " named inputs (as in element 0) but got ",
                       fields)));
    }
    if (!first.ok()) return first;
    ++r;
  }
  if (r == 0) return absl::InvalidArgumentError("No values in 'instances' array");
  for (const auto& [alias, in] : inputs_) {
    if (!in.stack_error.ok()) return in.stack_error;
  }
  return absl::OkStatus();
}

absl::Status Reader::Run(PredictSignatureResolver resolve, serving::PredictRequest* request,
                         JsonFormat* format) {
  if (text_.size() >= kParallelScanChars) {
    NumberListOptions ahead;
    ahead.max_nesting = options_.max_depth;
    ahead.max_elements = options_.limits.max_tensor_elements;
    ahead.max_bytes = options_.limits.max_tensor_bytes;
    // Past the middle, the stretch the parser's own thread reaches while the other converts.
    lookahead_ = std::make_unique<NumberListLookahead>(text_, text_.size() * kLookaheadFrom / 100,
                                                       ahead);
  }
  if (auto e = Start()) return JsonError(e);
  if (absl::Status s = ReadTopLevel(); !s.ok()) return s;
  absl::StatusOr<const tf::SignatureDef*> signature = resolve(signature_name_);
  if (!signature.ok()) return Fail(signature.status());
  signature_ = *signature;
  const bool floating = std::any_of(
      signature_->inputs().begin(), signature_->inputs().end(), [](const auto& input) {
        return input.second.dtype() == tf::DT_FLOAT || input.second.dtype() == tf::DT_DOUBLE;
      });
  if (!floating) lookahead_.reset();  // it converts for floating-point lists only
  if (instances_seen_ > 0 && inputs_seen_ > 0) {
    return Fail(absl::InvalidArgumentError(
        "JSON Value: expecting only one of 'inputs' or 'instances' keys to exist"));
  }
  if (instances_seen_ == 0 && inputs_seen_ == 0) {
    return Fail(absl::InvalidArgumentError("Missing 'inputs' or 'instances' key"));
  }
  *format = instances_seen_ > 0 ? JsonFormat::kRow : JsonFormat::kColumnar;
  const std::string_view tensor_key = instances_seen_ > 0 ? "instances" : "inputs";
  int remaining = instances_seen_ + inputs_seen_;

  // Second pass: the tensors, now typed by the signature.
  doc_.rewind();
  od::object root;
  if (auto e = doc_.get_object().get(root)) return Fail(JsonError(e));
  for (auto item : root) {
    od::field field;
    std::string_view key;
    if (auto e = std::move(item).get(field)) return Fail(JsonError(e));
    if (auto e = field.unescaped_key().get(key)) return Fail(JsonError(e));
    if (key != tensor_key) continue;
    absl::Status s;
    if (--remaining > 0) {
      // A repeated key: only the last counts, the others need only be well-formed.
      s = Validate(field.value(), 1);
    } else {
      s = *format == JsonFormat::kRow ? ReadRows(field.value()) : ReadColumnar(field.value());
    }
    if (!s.ok()) return Fail(s);
  }
  auto* out = request->mutable_inputs();
  out->clear();
  for (auto& [alias, in] : inputs_) {
    tf::TensorProto& proto = (*out)[alias];
    proto = std::move(in.proto);
    proto.set_dtype(in.dtype);
    if (*format == JsonFormat::kRow) proto.mutable_tensor_shape()->add_dim()->set_size(in.rows);
    for (int64_t d : in.shape) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParsePredictJson(const std::string& body, const PredictJsonOptions& options,
                              PredictSignatureResolver resolve,
                              serving::PredictRequest* request, JsonFormat* format) {
  // simdjson reads up to SIMDJSON_PADDING bytes past the text; a body with that much spare
  // capacity is read in place (what lies there does not matter), any other is copied.
  simdjson::padded_string copy;
  simdjson::padded_string_view text;
  if (body.capacity() - body.size() >= simdjson::SIMDJSON_PADDING) {
    text = simdjson::padded_string_view(body.data(), body.size(), body.capacity());
  } else {
    copy = simdjson::padded_string(body);
    text = copy;
  }
  Reader reader(options, text);
  return reader.Run(resolve, request, format);
}

}  // namespace tensord
