// Hash functions TensorFlow's string ops are defined by, implemented from their published
// algorithms so bucket assignments match models trained with TensorFlow:
//   Fingerprint64: FarmHash's Fingerprint64 (farmhashna::Hash64), used by StringToHashBucketFast.
//   SipHash24: SipHash-2-4 with a 128-bit key, used by StringToHashBucketStrong.
#ifndef TENSORD_KERNELS_STRING_STRING_HASH_H_
#define TENSORD_KERNELS_STRING_STRING_HASH_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace tensord {
namespace string_ops {

uint64_t Fingerprint64(absl::string_view s);

uint64_t SipHash24(uint64_t key0, uint64_t key1, absl::string_view s);

}  // namespace string_ops
}  // namespace tensord

#endif  // TENSORD_KERNELS_STRING_STRING_HASH_H_
