// REST request bodies, as the REST API reads them: predict bodies read by simdjson straight into
// inputs (row or columnar, {"b64": ...} strings, depth and request limits) against a signature,
// and classify/regress bodies parsed as JSON trees (depth-limited) into tf.Example inputs. The
// first byte picks the signature. Invariants: no crash and no allocation past the limits; inputs
// the predict reader accepts decode within the same limits, and written back as a predict
// response give JSON that parses; the tree writer's output parses back to the same text; a
// list the number-list fast path accepts is, read by the tree parser, a rectangular list of
// the same shape and values.
#include <cstring>
#include <type_traits>

#include "protos/serving/predict.pb.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "runtime/framework/tensor_proto.h"
#include "runtime/util/example_json.h"
#include "runtime/util/json.h"
#include "server/rest/json_tensor.h"
#include "server/rest/number_list.h"
#include "server/rest/predict_json.h"
#include "server/tfserving/request_limits.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using ::tensorflow::DataType;

// Signatures with one input (values are rows themselves) and with several (rows are objects).
::tensorflow::SignatureDef Signature(uint8_t choice) {
  static const std::vector<std::vector<std::pair<const char*, DataType>>> kInputs = {
      {{"x", ::tensorflow::DT_FLOAT}},
      {{"s", ::tensorflow::DT_STRING}},
      {{"ids", ::tensorflow::DT_INT64}},
      {{"x", ::tensorflow::DT_FLOAT},
       {"s", ::tensorflow::DT_STRING},
       {"ids", ::tensorflow::DT_INT32},
       {"flag", ::tensorflow::DT_BOOL},
       {"h", ::tensorflow::DT_HALF},
       {"d", ::tensorflow::DT_DOUBLE}},
  };
  ::tensorflow::SignatureDef signature;
  for (const auto& [name, dtype] : kInputs[choice % kInputs.size()]) {
    ::tensorflow::TensorInfo& info = (*signature.mutable_inputs())[name];
    info.set_name(std::string(name) + ":0");
    info.set_dtype(dtype);
  }
  return signature;
}

// Small limits, so that the fuzzer meets them and memory stays bounded.
tensord::RequestLimits Limits() {
  tensord::RequestLimits limits;
  limits.max_inputs = 16;
  limits.max_tensor_elements = 1 << 20;
  limits.max_tensor_bytes = 16 << 20;
  limits.max_string_bytes = 1 << 20;
  return limits;
}

// Flattens `v`, a list nested as `dims` says, checking its shape; false where it is not one.
bool Flatten(const tensord::json::Value& v, const std::vector<int64_t>& dims, size_t d,
             std::vector<const tensord::json::Value*>* leaves) {
  if (d == dims.size()) {
    leaves->push_back(&v);
    return v.is_number();
  }
  if (!v.is_array() || static_cast<int64_t>(v.size()) != dims[d]) return false;
  for (const tensord::json::Value& item : v.items()) {
    if (!Flatten(item, dims, d + 1, leaves)) return false;
  }
  return true;
}

template <typename T>
void CheckValues(const std::string& bytes, const std::vector<const tensord::json::Value*>& leaves) {
  FUZZ_CHECK(bytes.size() == leaves.size() * sizeof(T));
  for (size_t i = 0; i < leaves.size(); ++i) {
    T got;
    std::memcpy(&got, bytes.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_floating_point_v<T>) {
      const T want = static_cast<T>(leaves[i]->number());
      FUZZ_CHECK(std::memcmp(&got, &want, sizeof(T)) == 0);
    } else {
      int64_t want;
      FUZZ_CHECK(leaves[i]->ToInt64(&want));
      FUZZ_CHECK(static_cast<int64_t>(got) == want);
    }
  }
}

// The fast path of number lists against the tree parser.
void CheckNumberList(const std::string& body, uint8_t choice) {
  static const ::tensorflow::DataType kTypes[] = {
      ::tensorflow::DT_FLOAT, ::tensorflow::DT_DOUBLE, ::tensorflow::DT_INT32,
      ::tensorflow::DT_UINT8, ::tensorflow::DT_INT64};
  const ::tensorflow::DataType dtype = kTypes[choice % 5];
  tensord::NumberListOptions options;
  options.max_nesting = 64;
  options.max_elements = 1 << 20;
  options.max_bytes = 8 << 20;
  // Half of the inputs split between two threads at their middle.
  options.parallel_min_chars = (choice / 5) % 2 ? 1 : 0;
  std::string bytes;
  std::vector<int64_t> dims;
  size_t length = 0;
  if (!tensord::ScanNumberList(body, dtype, options, nullptr, &bytes, &dims, &length)) return;
  FUZZ_CHECK(length <= body.size());
  absl::StatusOr<tensord::json::Value> tree =
      tensord::json::Parse(std::string_view(body).substr(0, length));
  FUZZ_CHECK(tree.ok());
  std::vector<const tensord::json::Value*> leaves;
  FUZZ_CHECK(Flatten(*tree, dims, 0, &leaves));
  switch (dtype) {
    case ::tensorflow::DT_FLOAT: return CheckValues<float>(bytes, leaves);
    case ::tensorflow::DT_DOUBLE: return CheckValues<double>(bytes, leaves);
    case ::tensorflow::DT_INT32: return CheckValues<int32_t>(bytes, leaves);
    case ::tensorflow::DT_UINT8: return CheckValues<uint8_t>(bytes, leaves);
    default: return CheckValues<int64_t>(bytes, leaves);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensord::fuzz::FuzzInput input(data, size);
  const uint8_t choice = input.Byte();
  const ::tensorflow::SignatureDef signature = Signature(choice);
  const std::string body(input.Rest());
  CheckNumberList(body, choice);

  tensord::json::ParseOptions options;
  options.max_depth = 64;  // the server's default --rest_api_max_json_depth
  absl::StatusOr<tensord::json::Value> tree = tensord::json::Parse(body, options);
  if (tree.ok()) {
    const std::string text = tensord::json::Write(*tree);
    absl::StatusOr<tensord::json::Value> reparsed = tensord::json::Parse(text, options);
    FUZZ_CHECK(reparsed.ok());
    FUZZ_CHECK(tensord::json::Write(*reparsed) == text);
    (void)tensord::InputFromRequestJson(*tree);
  }

  tensord::PredictJsonOptions predict_options;
  predict_options.max_depth = options.max_depth;
  predict_options.limits = Limits();
  ::tensorflow::serving::PredictRequest request;
  tensord::JsonFormat format;
  auto resolve = [&](const std::string&) -> absl::StatusOr<const ::tensorflow::SignatureDef*> {
    return &signature;
  };
  if (!tensord::ParsePredictJson(body, predict_options, resolve, &request, &format).ok()) {
    return 0;
  }
  tensord::RequestBudget budget(Limits());
  FUZZ_CHECK(budget.CheckInputCount(request.inputs_size()).ok());
  ::tensorflow::serving::PredictResponse response;
  for (const auto& [alias, proto] : request.inputs()) {
    auto info = signature.inputs().find(alias);
    FUZZ_CHECK(info != signature.inputs().end());
    absl::StatusOr<tensord::Tensor> tensor = budget.Decode(alias, proto, info->second, "fuzz");
    FUZZ_CHECK(tensor.ok());  // the reader counted what the budget counts
    tensord::TensorToProto(*tensor, &(*response.mutable_outputs())[alias]);
  }
  absl::StatusOr<std::string> out = tensord::PredictResponseJson(response, format);
  if (out.ok()) FUZZ_CHECK(tensord::json::Parse(*out).ok());
  return 0;
}
