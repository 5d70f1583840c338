// tensorctl's server commands over gRPC: predict, metadata, classify and regress
// (tensorflow.serving.PredictionService), status and reload (ModelService), list (tensord's own
// tensord.v1.ModelRepository). Needs only the protos, gRPC and clients/common, not the runtime's
// loader or kernels. Also the pieces `tensorctl bench` shares with them: GrpcCodeName,
// FillModelSpec, FetchSignatureDefMap.
#ifndef TENSORD_CLIENTS_TENSORCTL_REMOTE_H_
#define TENSORD_CLIENTS_TENSORCTL_REMOTE_H_

#include <memory>
#include <ostream>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "clients/tensorctl/server_args.h"
#include "protos/serving/get_model_metadata.pb.h"
#include "protos/serving/model.pb.h"

namespace tensord {
namespace tensorctl {

// Runs one parsed server command. Results go to `out`; errors to `err` as
// "tensorctl: <gRPC code name>: <message>" (RPC failures) or "tensorctl: <message>".
// Returns 0 on success, 1 on errors.
int RunServerCommand(const ServerArgs& args, std::ostream& out, std::ostream& err);

// "NOT_FOUND", "DEADLINE_EXCEEDED", ... for a grpc::StatusCode value.
const char* GrpcCodeName(int code);

// The model spec of `args`: name, and version or version label when given.
void FillModelSpec(const ServerArgs& args, ::tensorflow::serving::ModelSpec* spec);

// The model's SignatureDefMap from GetModelMetadata, with args.timeout_ms as the deadline. An
// RPC failure keeps its code, with the message "<gRPC code name>: <message>" (what the server
// commands print); a reply without the map is INTERNAL.
absl::StatusOr<::tensorflow::serving::SignatureDefMap> FetchSignatureDefMap(
    const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_REMOTE_H_
