// CachingAllocator: device memory handed out in size classes, freed blocks kept for reuse.
//
// Device memory (cudaMalloc) is slow to get and synchronises the device, and inference asks for
// the same activation sizes on every request, so freed blocks go to a free list per size class
// and the next request of that class takes one back. It grows on demand and holds only what
// was asked for: nothing is reserved up front (TF's default of grabbing nearly all of a GPU's
// memory is what --per_process_gpu_memory_fraction exists to undo). An optional limit caps the
// bytes held; when a request would pass it, or the device is out of memory, the cached blocks
// go back first and the request is retried once before it fails.
//
// Blocks are reused in the order of the device's compute stream: a block freed while a kernel
// queued on that stream still reads it is safe to hand to the next kernel on the same stream.
// Work on another stream must be synchronised before its blocks are freed.
//
// Thread-safe. Owns its RawAllocator; blocks still allocated when it is destroyed are freed.
#ifndef TENSORD_RUNTIME_FRAMEWORK_CACHING_ALLOCATOR_H_
#define TENSORD_RUNTIME_FRAMEWORK_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace tensord {

// `bytes` rounded up to its size class: a multiple of `min_step` (a power of two), and above
// 4 * min_step a multiple of a quarter of its power of two, so at most 25% is slack and a few
// classes cover every size. Shared by the host and device allocators.
size_t RoundToSizeClass(size_t bytes, size_t min_step);

// Where a CachingAllocator's blocks come from (cudaMalloc/cudaFree for a GPU).
class RawAllocator {
 public:
  virtual ~RawAllocator() = default;
  // A block of exactly `bytes`, or null when the device has no more.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Free(void* block, size_t bytes) = 0;
};

class CachingAllocator {
 public:
  struct Options {
    // Names the memory in errors ("/device:GPU:0").
    std::string name;
    // Most bytes held (in use and cached) at once; 0 = no limit but the device's memory.
    size_t limit_bytes = 0;
    // Every block is a multiple of this (a power of two; 256 suits every CUDA access width).
    size_t alignment = 256;
  };
  struct Stats {
    size_t in_use_bytes = 0;
    size_t cached_bytes = 0;      // freed, kept for reuse
    size_t peak_in_use_bytes = 0;
    size_t limit_bytes = 0;       // 0 = none
    size_t raw_allocations = 0;   // blocks taken from the RawAllocator so far
  };

  CachingAllocator(std::unique_ptr<RawAllocator> raw, Options options);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `bytes` (a valid block for 0 too); RESOURCE_EXHAUSTED naming the
  // memory, the size and what is held when neither the cache nor the device has one.
  absl::StatusOr<void*> Allocate(size_t bytes);
  // Returns a block from Allocate to the cache; null and unknown pointers are ignored.
  void Deallocate(void* block);

  // Gives every cached block back to the RawAllocator (after a model unloads).
  void ReleaseCached();
  Stats stats() const;

 private:
  void ReleaseCachedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<RawAllocator> raw_;
  const Options options_;
  mutable absl::Mutex mu_;
  std::map<size_t, std::vector<void*>> free_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<void*, size_t> in_use_ ABSL_GUARDED_BY(mu_);  // block -> its size class
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_CACHING_ALLOCATOR_H_
