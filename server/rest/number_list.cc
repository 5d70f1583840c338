#include "server/rest/number_list.h"

#include <charconv>
#include <limits>
#include <system_error>
#include <type_traits>

#include "runtime/util/json.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Reads the number at the start of [begin, end) as T, as the general reader converts it, and
// sets *token_end after it: floats through the correctly rounded double (out of double range,
// e.g. 1e400, is left to the general reader); integers only from plain integer tokens in T's
// range ("2.0" and "1e3" are its slow path; from_chars stops at their '.' or 'e').
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
  // from_chars also takes "inf", "nan", ".5", "01" and "1.", which JSON does not. What it left
  // unread of an exponent ("1e", "1e+") is seen by the caller as text after the number.
  return json::IsNumber(std::string_view(begin, r.ptr - begin));
}

template <typename T>
class Scanner {
 public:
  Scanner(std::string_view text, const NumberListLimits& limits, std::string* out)
      : p_(text.data()),
        begin_(text.data()),
        end_(text.data() + text.size()),
        limits_(limits),
        out_(out) {}

  bool Run(std::vector<int64_t>* dims, size_t* length) {
    const size_t out_size = out_->size();
    std::vector<int64_t> shape;
    if (!Lists(&shape)) {
      out_->resize(out_size);
      return false;
    }
    Flush();
    *dims = std::move(shape);
    *length = static_cast<size_t>(p_ - begin_);
    return true;
  }

 private:
  void SkipSpace() {
    while (p_ < end_ && IsSpace(*p_)) ++p_;
  }

  // Opens the list at *p_, skipping the space after its '['.
  bool Open() {
    if (p_ == end_ || *p_ != '[') return false;
    ++p_;
    SkipSpace();
    return true;
  }

  // One value, counted against the limits; leaves p_ after its token.
  bool Number() {
    if (count_ >= limits_.max_elements ||
        static_cast<int64_t>(sizeof(T)) > limits_.max_bytes - bytes_) {
      return false;
    }
    T value;
    const char* token_end;
    if (p_ == end_ || !Convert(p_, end_, &value, &token_end)) return false;
    if (buffered_ == kBufferSize) Flush();
    buffer_[buffered_++] = value;
    ++count_;
    bytes_ += static_cast<int64_t>(sizeof(T));
    p_ = token_end;
    return true;
  }

  void Flush() {
    out_->append(reinterpret_cast<const char*>(buffer_), buffered_ * sizeof(T));
    buffered_ = 0;
  }

  // The whole list: its rank from the first path of opening brackets, then every list at a
  // level must have the length the first one there had (-1 until it closed).
  bool Lists(std::vector<int64_t>* shape) {
    int rank = 0;
    while (p_ < end_ && *p_ == '[') {
      if (++rank > limits_.max_nesting) return false;
      Open();
    }
    if (rank == 0) return false;
    shape->assign(rank, -1);
    std::vector<int64_t> counts(rank, 0);
    int level = rank - 1;
    for (;;) {
      // The innermost list: numbers up to its ']'.
      for (;;) {
        if (!Number()) return false;
        ++counts[level];
        SkipSpace();
        if (p_ == end_) return false;
        if (*p_ == ']') break;
        if (*p_ != ',') return false;
        ++p_;
        SkipSpace();
      }
      // Close lists until one continues with a ',' (or the outermost closes).
      for (;;) {
        ++p_;  // the ']'
        int64_t& want = (*shape)[level];
        if (want < 0) want = counts[level];
        if (counts[level] != want) return false;
        counts[level] = 0;
        if (level == 0) return true;
        --level;
        ++counts[level];
        SkipSpace();
        if (p_ == end_) return false;
        if (*p_ != ']') break;
      }
      if (*p_ != ',') return false;
      ++p_;
      SkipSpace();
      // The next element opens a list at each level down to the innermost.
      while (level < rank - 1) {
        if (!Open()) return false;
        ++level;
      }
    }
  }

  static constexpr int kBufferSize = 256;

  const char* p_;
  const char* const begin_;
  const char* const end_;
  const NumberListLimits& limits_;
  std::string* const out_;
  T buffer_[kBufferSize];
  int buffered_ = 0;
  int64_t count_ = 0, bytes_ = 0;
};

template <typename T>
bool Scan(std::string_view text, const NumberListLimits& limits, std::string* out,
          std::vector<int64_t>* dims, size_t* length) {
  return Scanner<T>(text, limits, out).Run(dims, length);
}

}  // namespace

bool ScanNumberList(std::string_view text, tf::DataType dtype, const NumberListLimits& limits,
                    std::string* out, std::vector<int64_t>* dims, size_t* length) {
  switch (dtype) {
    case tf::DT_FLOAT:
      return Scan<float>(text, limits, out, dims, length);
    case tf::DT_DOUBLE:
      return Scan<double>(text, limits, out, dims, length);
    case tf::DT_INT8:
      return Scan<int8_t>(text, limits, out, dims, length);
    case tf::DT_UINT8:
      return Scan<uint8_t>(text, limits, out, dims, length);
    case tf::DT_INT16:
      return Scan<int16_t>(text, limits, out, dims, length);
    case tf::DT_UINT16:
      return Scan<uint16_t>(text, limits, out, dims, length);
    case tf::DT_INT32:
      return Scan<int32_t>(text, limits, out, dims, length);
    case tf::DT_UINT32:
      return Scan<uint32_t>(text, limits, out, dims, length);
    case tf::DT_INT64:
      return Scan<int64_t>(text, limits, out, dims, length);
    default:
      return false;
  }
}

}  // namespace tensord
