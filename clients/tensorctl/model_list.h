// `tensorctl list`'s table of a tensord.v1.ListModelsResponse: one row per model version, in the
// response's order (models by name, versions highest first), columns padded to line up:
//
//   MODEL  VERSION  STATE
//   mlp    2        AVAILABLE
//   mlp    1        END (NOT_FOUND: <the version's error message>)
//   other  -        no versions
//
// A version's error, if any, follows its state; a model without versions gets one row saying so.
#ifndef TENSORD_CLIENTS_TENSORCTL_MODEL_LIST_H_
#define TENSORD_CLIENTS_TENSORCTL_MODEL_LIST_H_

#include <string>

#include "protos/tensord/model_repository.pb.h"

namespace tensord {
namespace tensorctl {

// The table, each line ending in '\n'; only the header line for no models.
std::string ModelListText(const v1::ListModelsResponse& response);

}  // namespace tensorctl
}  // namespace tensord

#endif  // TENSORD_CLIENTS_TENSORCTL_MODEL_LIST_H_
