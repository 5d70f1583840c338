// StringToHashBucketFast: Fingerprint64(s) % num_buckets.
// StringToHashBucketStrong: SipHash-2-4(key, s) % num_buckets.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/string/string_hash.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace string_ops {
namespace {

// Hasher: a functor uint64_t(absl::string_view) built from the kernel's construction context.
template <typename Hasher>
class StringToHashBucketOp : public OpKernel {
 public:
  explicit StringToHashBucketOp(OpKernelConstruction* c) : OpKernel(c), hasher_(c) {
    int64_t num_buckets = 0;
    if (!c->GetAttr("num_buckets", &num_buckets)) return;
    if (num_buckets < 1) {
      SetAttrError(c, absl::StrCat("num_buckets must be >= 1, got ", num_buckets));
      return;
    }
    num_buckets_ = static_cast<uint64_t>(num_buckets);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    return MapStrings<int64_t>(c, 0, [this](const std::string& in, int64_t* out) {
      *out = static_cast<int64_t>(hasher_(in) % num_buckets_);
      return absl::OkStatus();
    });
  }

 private:
  const Hasher hasher_;
  uint64_t num_buckets_ = 1;
};

struct FarmHasher {
  explicit FarmHasher(OpKernelConstruction*) {}
  uint64_t operator()(absl::string_view s) const { return Fingerprint64(s); }
};

struct SipHasher {
  explicit SipHasher(OpKernelConstruction* c) {
    std::vector<int64_t> key;
    if (!c->GetAttr("key", &key)) return;
    if (key.size() != 2) {
      SetAttrError(c, "Key must have 2 elements");
      return;
    }
    key0 = static_cast<uint64_t>(key[0]);
    key1 = static_cast<uint64_t>(key[1]);
  }
  uint64_t operator()(absl::string_view s) const { return SipHash24(key0, key1, s); }
  uint64_t key0 = 0;
  uint64_t key1 = 0;
};

TENSORD_REGISTER_KERNEL(KernelDef("StringToHashBucketFast").Device(DeviceType::kCpu),
                        StringToHashBucketOp<FarmHasher>);
TENSORD_REGISTER_KERNEL(KernelDef("StringToHashBucketStrong").Device(DeviceType::kCpu),
                        StringToHashBucketOp<SipHasher>);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
