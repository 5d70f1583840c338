// TF Serving REST predict request bodies, read with simdjson's On-Demand API straight into the
// request's TensorProtos (packed tensor_content for numbers, string_val for strings), without a
// JSON tree (tensorflow_serving/util/json_tensor.cc semantics).
//
//   {"instances": [...]}  row format: rows (values, or objects of named inputs) are stacked
//                         along a new dim 0
//   {"inputs": ...}       columnar: one value, or an object of named inputs
//   "signature_name"      optional; {"b64": "..."} is a binary string
//
// Values are converted to the dtype the signature declares for each input. Errors are TF
// Serving's texts: INVALID_ARGUMENT ("JSON Parse error: ..." for malformed JSON), and
// RESOURCE_EXHAUSTED via RequestTooLargeError (HTTP 413) for nesting deeper than max_depth and
// for inputs over `limits`, which are checked as values are read, before anything is appended,
// so memory stays within a small multiple of the body plus the limits. Malformed JSON anywhere
// in the body is reported before any other error, as a parser that reads the whole body first
// would. As simdjson requires, the body must be UTF-8 (RFC 8259).
//
// Thread safety: reentrant; each call uses its own simdjson parser.
#ifndef TENSORD_SERVER_REST_PREDICT_JSON_H_
#define TENSORD_SERVER_REST_PREDICT_JSON_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "protos/serving/predict.pb.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "server/rest/json_tensor.h"
#include "server/tfserving/request_limits.h"

namespace tensord {

struct PredictJsonOptions {
  int max_depth = 64;     // deepest nesting of lists and objects (--rest_api_max_json_depth)
  RequestLimits limits;   // inputs, elements, bytes and string size of the decoded inputs
};

// Returns the signature a body names ("" = the default one), or the error to answer with. The
// pointee must stay valid until ParsePredictJson returns.
using PredictSignatureResolver =
    absl::FunctionRef<absl::StatusOr<const ::tensorflow::SignatureDef*>(
        const std::string& signature_name)>;

// Reads `body`, calls `resolve` once with its "signature_name", and fills request->inputs
// (replacing any) typed by the resolved signature's inputs; sets *format to the body's layout.
// Does not touch model_spec. simdjson reads SIMDJSON_PADDING bytes past the end of the text: a
// body whose capacity leaves that much room is read in place, any other is copied once.
absl::Status ParsePredictJson(const std::string& body, const PredictJsonOptions& options,
                              PredictSignatureResolver resolve,
                              ::tensorflow::serving::PredictRequest* request, JsonFormat* format);

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_PREDICT_JSON_H_
