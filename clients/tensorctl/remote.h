// tensorctl's server commands over gRPC: predict, metadata, classify and regress
// (tensorflow.serving.PredictionService), status and reload (ModelService), list (tensord's own
// tensord.v1.ModelRepository). Needs only the protos, gRPC and clients/common, not the runtime's
// loader or kernels.
#ifndef TENSORD_CLIENTS_TENSORCTL_REMOTE_H_
#define TENSORD_CLIENTS_TENSORCTL_REMOTE_H_

#include <ostream>

#include "clients/tensorctl/server_args.h"

namespace tensord {
namespace tensorctl {

// Runs one parsed server command. Results go to `out`; errors to `err` as
// "tensorctl: <gRPC code name>: <message>" (RPC failures) or "tensorctl: <message>".
// Returns 0 on success, 1 on errors.
int RunServerCommand(const ServerArgs& args, std::ostream& out, std::ostream& err);

// "NOT_FOUND", "DEADLINE_EXCEEDED", ... for a grpc::StatusCode value.
const char* GrpcCodeName(int code);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_REMOTE_H_
