// REST request bodies, as the REST API reads them: JSON text (depth-limited) -> predict inputs in
// row or columnar form with {"b64": ...} strings, decoded against a signature within the request
// limits, and classify/regress bodies -> tf.Example inputs. The first byte picks the signature.
// Invariants: no crash and no allocation past the limits; the JSON writer's output parses back
// to the same text; decoded inputs written as a predict response give JSON that parses.
#include "protos/serving/predict.pb.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "runtime/framework/tensor_proto.h"
#include "runtime/util/example_json.h"
#include "runtime/util/json.h"
#include "server/rest/json_tensor.h"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensord::fuzz::FuzzInput input(data, size);
  const ::tensorflow::SignatureDef signature = Signature(input.Byte());
  tensord::json::ParseOptions options;
  options.max_depth = 64;  // the server's default --rest_api_max_json_depth
  absl::StatusOr<tensord::json::Value> body = tensord::json::Parse(input.Rest(), options);
  if (!body.ok()) return 0;
  const std::string text = tensord::json::Write(*body);
  absl::StatusOr<tensord::json::Value> reparsed = tensord::json::Parse(text, options);
  FUZZ_CHECK(reparsed.ok());
  FUZZ_CHECK(tensord::json::Write(*reparsed) == text);

  (void)tensord::InputFromRequestJson(*body);

  ::tensorflow::serving::PredictRequest request;
  tensord::JsonFormat format;
  if (!tensord::FillPredictRequestFromJson(*body, signature, &request, &format).ok()) return 0;
  tensord::RequestBudget budget(Limits());
  if (!budget.CheckInputCount(request.inputs_size()).ok()) return 0;
  ::tensorflow::serving::PredictResponse response;
  for (const auto& [alias, proto] : request.inputs()) {
    auto info = signature.inputs().find(alias);
    FUZZ_CHECK(info != signature.inputs().end());
    absl::StatusOr<tensord::Tensor> tensor = budget.Decode(alias, proto, info->second, "fuzz");
    if (!tensor.ok()) return 0;
    tensord::TensorToProto(*tensor, &(*response.mutable_outputs())[alias]);
  }
  absl::StatusOr<tensord::json::Value> out = tensord::PredictResponseToJson(response, format);
  if (out.ok()) FUZZ_CHECK(tensord::json::Parse(tensord::json::Write(*out)).ok());
  return 0;
}
