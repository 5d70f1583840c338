#include "server/rest/number_list.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <limits>
#include <system_error>
#include <thread>
#include <type_traits>

namespace tensord {
namespace {

namespace tf = ::tensorflow;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// What from_chars reads beyond JSON's number grammar is all at a token's start: "inf", "nan",
// ".5", "01", "1." and "1.e5". The fraction's other digits and the exponent follow the same
// grammar in both, so `token`, a from_chars token, is a JSON number when its start is.
bool JsonNumberStart(const char* p, const char* token_end) {
  if (p < token_end && *p == '-') ++p;
  if (p == token_end || !IsDigit(*p)) return false;
  if (*p == '0') {
    ++p;
    if (p < token_end && IsDigit(*p)) return false;
  } else {
    while (p < token_end && IsDigit(*p)) ++p;
  }
  return p == token_end || *p != '.' || (p + 1 < token_end && IsDigit(p[1]));
}

// Reads the number at the start of [begin, end) as T, as the general reader converts it, and
// sets *token_end after it: floats through the correctly rounded double (out of double range,
// e.g. 1e400, is left to the general reader); integers only from plain integer tokens in T's
// range ("2.0" and "1e3" are its slow path; from_chars stops at their '.' or 'e'). What
// from_chars left unread of an exponent ("1e", "1e+") is seen by the caller as text after the
// number.
template <typename T>
bool Convert(const char* begin, const char* end, T* value, const char** token_end) {
  std::from_chars_result r;
  if constexpr (std::is_floating_point_v<T>) {
    double d;
    r = std::from_chars(begin, end, d);
    if (r.ec != std::errc()) return false;
    *value = static_cast<T>(d);
  } else {
    int64_t i;
    r = std::from_chars(begin, end, i);
    if (r.ec != std::errc() || i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        i > static_cast<int64_t>(std::numeric_limits<T>::max())) {
      return false;
    }
    *value = static_cast<T>(i);
  }
  *token_end = r.ptr;
  return JsonNumberStart(begin, r.ptr);
}

// What one thread read of a stretch of the text: its numbers converted, and the structure
// around them as events, 'n' for a number and '[', ']', ',' as they appear (space dropped).
template <typename T>
struct Tokens {
  std::vector<T> values;
  std::string events;
  std::vector<size_t> closes;  // where each ']' event's character is in the text
  size_t end = 0;              // where reading stopped
};

// Reads text[begin, end) into *tokens, stopping early at a character no number list holds, at
// a number that does not convert, after max_values numbers, when `cancel` is set, and when the
// nesting shows the list has ended or is too deep: at its closing bracket when `begin` is the
// list's start; otherwise (a stretch starting inside the list at a depth between 1 and
// max_nesting) once brackets close more levels than max_nesting or open more.
template <typename T>
void Tokenize(std::string_view text, size_t begin, size_t end, bool at_start, int max_nesting,
              int64_t max_values, const std::atomic<bool>* cancel, Tokens<T>* tokens) {
  const char* const base = text.data();
  const char* const stop = base + end;
  const char* p = base + begin;
  int depth = 0;
  while (p < stop) {
    switch (*p) {
      case ' ':
      case '\n':
      case '\r':
      case '\t':
        ++p;
        continue;
      case '[':
        if (++depth > max_nesting) break;
        tokens->events.push_back('[');
        ++p;
        continue;
      case ']':
        tokens->events.push_back(']');
        tokens->closes.push_back(static_cast<size_t>(p - base));
        ++p;
        --depth;
        if ((at_start && depth == 0) || depth < -max_nesting) break;
        continue;
      case ',':
        tokens->events.push_back(',');
        ++p;
        continue;
      default: {
        if (at_start && depth == 0) break;
        const int64_t count = static_cast<int64_t>(tokens->values.size());
        if (count >= max_values) break;
        if (count % 1024 == 0 && cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
          break;
        }
        T value;
        const char* token_end;
        if (!Convert(p, stop, &value, &token_end)) break;
        tokens->values.push_back(value);
        tokens->events.push_back('n');
        p = token_end;
        continue;
      }
    }
    break;
  }
  tokens->end = static_cast<size_t>(p - base);
}

// Whether `events` begin with one rectangular nested list of numbers, none empty, at most
// max_nesting deep; if so sets *shape and the counts of its numbers and closing brackets.
bool Structure(std::string_view events, int max_nesting, std::vector<int64_t>* shape,
               size_t* numbers, size_t* closes) {
  size_t i = 0;
  const auto at = [&](char event) { return i < events.size() && events[i] == event; };
  // The rank from the first path of opening brackets; then every list at a level must have the
  // length the first one there had (-1 until it closed).
  int rank = 0;
  while (at('[')) {
    if (++rank > max_nesting) return false;
    ++i;
  }
  if (rank == 0) return false;
  shape->assign(rank, -1);
  std::vector<int64_t> counts(rank, 0);
  int level = rank - 1;
  size_t n = 0, c = 0;
  for (;;) {
    // The innermost list: numbers up to its ']'.
    for (;;) {
      if (!at('n')) return false;
      ++i;
      ++n;
      ++counts[level];
      if (at(']')) break;
      if (!at(',')) return false;
      ++i;
    }
    // Close lists until one continues with a ',' (or the outermost closes).
    for (;;) {
      ++i;  // the ']'
      ++c;
      int64_t& want = (*shape)[level];
      if (want < 0) want = counts[level];
      if (counts[level] != want) return false;
      counts[level] = 0;
      if (level == 0) {
        *numbers = n;
        *closes = c;
        return true;
      }
      --level;
      ++counts[level];
      if (!at(']')) break;
    }
    if (!at(',')) return false;
    ++i;
    // The next element opens a list at each level down to the innermost.
    for (; level < rank - 1; ++level) {
      if (!at('[')) return false;
      ++i;
    }
  }
}

int64_t MaxValues(const NumberListOptions& options, size_t value_size) {
  return std::min<int64_t>(options.max_elements,
                           options.max_bytes / static_cast<int64_t>(value_size));
}

}  // namespace

struct NumberListLookahead::Converted : Tokens<double> {};

NumberListLookahead::NumberListLookahead(std::string_view body, size_t from,
                                         const NumberListOptions& options)
    : body_(body), split_(body.size()), converted_(std::make_unique<Converted>()) {
  const size_t comma = body.find(',', from);
  if (comma == std::string_view::npos || comma + 1 >= body.size()) return;
  try {
    thread_ = std::thread([this, start = comma + 1, options] {
      Tokenize(body_, start, body_.size(), false, options.max_nesting,
               MaxValues(options, sizeof(double)), &cancel_, converted_.get());
    });
    split_ = comma + 1;
  } catch (const std::system_error&) {
    // No thread to be had: the scans read every stretch themselves.
  }
}

NumberListLookahead::~NumberListLookahead() {
  cancel_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

bool NumberListLookahead::Serves(std::string_view text) const {
  return split_ < body_.size() && text.data() >= body_.data() &&
         text.data() + text.size() == body_.data() + body_.size() &&
         text.data() < body_.data() + split_;
}

size_t NumberListLookahead::SplitIn(std::string_view text) const {
  return split_ - static_cast<size_t>(text.data() - body_.data());
}

const NumberListLookahead::Converted& NumberListLookahead::Finish() {
  if (thread_.joinable()) {
    thread_.join();
    for (size_t& close : converted_->closes) close -= split_;
  }
  return *converted_;
}

namespace {

template <typename T>
bool Scan(std::string_view text, const NumberListOptions& options, NumberListLookahead* lookahead,
          std::string* out, std::vector<int64_t>* dims, size_t* length) {
  if (text.empty() || text[0] != '[') return false;
  const int64_t max_values = MaxValues(options, sizeof(T));
  // The second half starts after a ',', so no token spans the two. Where that ',' is not inside
  // the list (the list is shorter than half the text), the first half ends at the list's close
  // and the second half's reading is cancelled and dropped.
  // Floating-point lists can continue with what a lookahead converted (as doubles); other
  // lists long enough get a helper thread of their own.
  const bool ahead = std::is_floating_point_v<T> && lookahead != nullptr && lookahead->Serves(text);
  size_t split = ahead ? lookahead->SplitIn(text) : text.size();
  if (!ahead && options.parallel_min_chars > 0 && text.size() >= options.parallel_min_chars) {
    const size_t comma = text.find(',', text.size() / 2);
    if (comma != std::string_view::npos) split = comma + 1;
  }
  Tokens<T> head, tail;
  std::atomic<bool> cancel{false};
  std::thread helper;
  if (!ahead && split < text.size()) {
    try {
      helper = std::thread([&, split] {
        Tokenize(text, split, text.size(), false, options.max_nesting, max_values, &cancel, &tail);
      });
    } catch (const std::system_error&) {
      split = text.size();  // no thread to be had: one pass
    }
  }
  Tokenize(text, 0, split, true, options.max_nesting, max_values, nullptr, &head);
  // The list continues into the second half only if the first was read to its end.
  const bool continues = (ahead || helper.joinable()) && head.end == split;
  if (helper.joinable()) {
    if (!continues) cancel.store(true, std::memory_order_relaxed);
    helper.join();
  }
  if (continues && ahead) {
    const NumberListLookahead::Converted& read = lookahead->Finish();
    for (double value : read.values) head.values.push_back(static_cast<T>(value));
    head.events += read.events;
    for (size_t close : read.closes) head.closes.push_back(split + close);
  } else if (continues) {
    head.values.insert(head.values.end(), tail.values.begin(), tail.values.end());
    head.events += tail.events;
    head.closes.insert(head.closes.end(), tail.closes.begin(), tail.closes.end());
  }
  std::vector<int64_t> shape;
  size_t numbers = 0, closes = 0;
  if (!Structure(head.events, options.max_nesting, &shape, &numbers, &closes) ||
      static_cast<int64_t>(numbers) > max_values) {
    return false;
  }
  out->append(reinterpret_cast<const char*>(head.values.data()), numbers * sizeof(T));
  *dims = std::move(shape);
  *length = head.closes[closes - 1] + 1;
  return true;
}

}  // namespace

bool ScanNumberList(std::string_view text, tf::DataType dtype, const NumberListOptions& options,
                    NumberListLookahead* lookahead, std::string* out, std::vector<int64_t>* dims,
                    size_t* length) {
  switch (dtype) {
    case tf::DT_FLOAT:
      return Scan<float>(text, options, lookahead, out, dims, length);
    case tf::DT_DOUBLE:
      return Scan<double>(text, options, lookahead, out, dims, length);
    case tf::DT_INT8:
      return Scan<int8_t>(text, options, lookahead, out, dims, length);
    case tf::DT_UINT8:
      return Scan<uint8_t>(text, options, lookahead, out, dims, length);
    case tf::DT_INT16:
      return Scan<int16_t>(text, options, lookahead, out, dims, length);
    case tf::DT_UINT16:
      return Scan<uint16_t>(text, options, lookahead, out, dims, length);
    case tf::DT_INT32:
      return Scan<int32_t>(text, options, lookahead, out, dims, length);
    case tf::DT_UINT32:
      return Scan<uint32_t>(text, options, lookahead, out, dims, length);
    case tf::DT_INT64:
      return Scan<int64_t>(text, options, lookahead, out, dims, length);
    default:
      return false;
  }
}

}  // namespace tensord
