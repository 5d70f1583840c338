// HostAllocator: 64-byte aligned host memory with a cache of freed large blocks.
//
// Inference allocates the same activation sizes on every request; returning freed blocks to a
// per-size free list makes later runs reuse them instead of mapping and faulting fresh pages.
// Sizes are rounded up to size classes (RoundToSizeClass: at most 25% slack). Small blocks go
// straight to malloc, which is already fast for them. Large ones are mapped from the kernel
// (mmap) and unmapped when freed beyond the cache's bound or released: a malloc would keep
// freed ones in its own caches, where they stay resident (a model load frees a model's worth
// of them). Untouched slack pages stay unmapped.
//
// Thread-safe.
#ifndef TENSORD_RUNTIME_FRAMEWORK_HOST_ALLOCATOR_H_
#define TENSORD_RUNTIME_FRAMEWORK_HOST_ALLOCATOR_H_

#include <cstddef>
#include <map>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace tensord {

// Maps the pages of [data, data + bytes) for writing in one system call instead of one page
// fault per 4 KB page at first touch: loading a model writes its weights into fresh memory two
// or three times (read, folded, packed), and on a VM the faults cost more than the copies.
// Returns false where the kernel cannot (MADV_POPULATE_WRITE needs Linux 5.14); first touch
// then maps the pages as usual.
bool PrefaultForWrite(void* data, size_t bytes);

class HostAllocator {
 public:
  struct Options {
    // Blocks below this size come from malloc and are not cached; larger ones are mapped.
    size_t min_cached_bytes = 16 * 1024;
    // Upper bound on bytes held in free lists.
    size_t max_cached_bytes = size_t{1} << 30;
    // Fresh blocks from this size on are prefaulted (see PrefaultForWrite): such tensors (read
    // weights, folded filters, first activations) are written whole right away.
    size_t min_prefaulted_bytes = 256 * 1024;
  };

  static HostAllocator& Global();
  explicit HostAllocator(Options options) : options_(options) {}

  // Returns a block of at least `bytes` (never null for bytes == 0) and its real capacity,
  // which must be passed back to Deallocate. Returns null when memory is exhausted. The first
  // `bytes` of a fresh block of min_prefaulted_bytes or more are already mapped.
  void* Allocate(size_t bytes, size_t* capacity);
  void Deallocate(void* ptr, size_t capacity);

  size_t cached_bytes() const;

  // Frees every cached block, flushes the calling thread's allocator cache and asks the process
  // allocator to return free memory to the system (after a model load released its load-time
  // tensors).
  void ReleaseCached();

 private:

  const Options options_;
  mutable absl::Mutex mu_;
  std::map<size_t, std::vector<void*>> free_ ABSL_GUARDED_BY(mu_);
  size_t cached_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_HOST_ALLOCATOR_H_
