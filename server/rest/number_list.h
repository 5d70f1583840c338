// The fast path of REST predict bodies: a rectangular nested JSON list of plain numbers (an
// image, a batch of feature rows) read straight from the text into packed tensor bytes.
//
// Reading such a list value by value through simdjson's On-Demand API costs about three times
// the number conversion itself; this scanner walks the characters once and converts each token
// with std::from_chars, which rounds correctly, as simdjson does, so the values are the same
// bits. A long list is read by two threads, each converting half of the text, since the
// conversion is most of a large REST request's cost. It accepts only what it can read exactly
// as the general reader (predict_json.cc) would: anything else (strings, objects, literals,
// NaN, empty or ragged lists, a number out of range for the dtype, a limit reached, nesting at
// the limit, malformed text) makes it decline, leaving the caller's state as it was, and the
// general reader then gives the same result or TF Serving's error.
//
// Thread safety: ScanNumberList may start one thread of its own and joins it before it returns;
// a NumberListLookahead is used by one thread at a time (the one that made it).
#ifndef TENSORD_SERVER_REST_NUMBER_LIST_H_
#define TENSORD_SERVER_REST_NUMBER_LIST_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "protos/tensorflow/types.pb.h"

namespace tensord {

struct NumberListOptions {
  int max_nesting = 0;       // lists may nest at most this deep (the outermost counts as 1)
  int64_t max_elements = 0;  // at most this many values may be added
  int64_t max_bytes = 0;     // at most this many bytes may be added
  // When `text` has at least this many characters, a second thread converts the numbers of its
  // second half while the caller's thread reads the first. 0: never.
  size_t parallel_min_chars = 0;
};

// A head start for the fast path of a large body, begun before the body's parser has found its
// lists or their dtypes: a thread that converts the numbers after the first ',' at or past
// `from` as doubles, and stops by itself at the first character no number list holds. The
// ScanNumberList of a DT_FLOAT or DT_DOUBLE list of `body` that reaches that point takes them
// over instead of converting that stretch itself; no other scan uses them. Destroying it stops
// and joins the thread. `body` must outlive it.
class NumberListLookahead {
 public:
  NumberListLookahead(std::string_view body, size_t from, const NumberListOptions& options);
  ~NumberListLookahead();
  NumberListLookahead(const NumberListLookahead&) = delete;
  NumberListLookahead& operator=(const NumberListLookahead&) = delete;

  // For ScanNumberList. Whether the list at the start of `text` (a suffix of the body) may
  // reach the stretch read ahead, which then starts at text[SplitIn(text)].
  bool Serves(std::string_view text) const;
  size_t SplitIn(std::string_view text) const;
  // Waits for the thread to end; what it read, with closing positions counted from where it
  // began.
  struct Converted;
  const Converted& Finish();

 private:
  std::string_view body_;
  size_t split_ = 0;  // where the thread began reading; body_.size() when it never started
  std::atomic<bool> cancel_{false};
  std::unique_ptr<Converted> converted_;
  std::thread thread_;
};

// `text` starts at a '[' and runs to the end of the body. If the list there is a rectangular
// nested list of JSON numbers, none of them empty, within `options`' limits, whose every value
// converts to `dtype` as the general reader converts it (float: the double rounded to float),
// appends the values in row-major order to *out, sets *dims to the list's shape and *length to
// the list's size in characters, and returns true. Otherwise returns false with *out, *dims and
// *length unchanged. `lookahead` (may be null) is one made for the body `text` ends. Reads
// DT_FLOAT, DT_DOUBLE and the integer types of at most 64 bits but DT_UINT64; declines every other
// dtype. Values are converted before the list's structure is judged: each thread converts at most
// the limits' number of values.
bool ScanNumberList(std::string_view text, ::tensorflow::DataType dtype,
                    const NumberListOptions& options, NumberListLookahead* lookahead,
                    std::string* out, std::vector<int64_t>* dims, size_t* length);

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_NUMBER_LIST_H_
