// TensorProto -> Tensor, the decoder every request tensor and every model Const goes through.
// Invariants: whatever parses either decodes or fails with a status (never a crash or an
// allocation past the bound); what decodes agrees with MeasureTensorProto and survives a round
// trip through TensorToProto in both encodings.
#include "protos/tensorflow/tensor.pb.h"
#include "runtime/framework/tensor_proto.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// Well above the seeds, far below the fuzzer's memory limit.
constexpr int64_t kMaxBytes = int64_t{16} << 20;

// Encoding the tensor, decoding that and encoding again gives the same bytes.
void CheckRoundTrip(const tensord::Tensor& tensor, bool use_tensor_content) {
  ::tensorflow::TensorProto proto;
  tensord::TensorToProto(tensor, &proto, use_tensor_content);
  absl::StatusOr<tensord::Tensor> again = tensord::TensorFromProto(proto, kMaxBytes);
  FUZZ_CHECK(again.ok());
  ::tensorflow::TensorProto back;
  tensord::TensorToProto(*again, &back, use_tensor_content);
  FUZZ_CHECK(back.SerializeAsString() == proto.SerializeAsString());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ::tensorflow::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<tensord::TensorProtoSize> measured = tensord::MeasureTensorProto(proto);
  absl::StatusOr<tensord::Tensor> tensor = tensord::TensorFromProto(proto, kMaxBytes);
  if (!tensor.ok()) return 0;
  FUZZ_CHECK(measured.ok());
  FUZZ_CHECK(measured->shape == tensor->shape());
  FUZZ_CHECK(measured->elements == tensor->NumElements());
  FUZZ_CHECK(measured->bytes <= kMaxBytes);
  CheckRoundTrip(*tensor, true);
  CheckRoundTrip(*tensor, false);
  return 0;
}
