#include "runtime/framework/host_allocator.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "runtime/framework/caching_allocator.h"

// gperftools' C hooks, present when the binary links tcmalloc.
extern "C" void MallocExtension_ReleaseFreeMemory(void) __attribute__((weak));
extern "C" void MallocExtension_MarkThreadTemporarilyIdle(void) __attribute__((weak));

namespace tensord {

namespace {
constexpr size_t kAlignment = 64;
}  // namespace

bool PrefaultForWrite(void* data, size_t bytes) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // Only whole pages inside the range: the ones at its ends may hold someone else's data.
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(page - 1);
  if (end <= begin) return true;
  return madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
}

HostAllocator& HostAllocator::Global() {
  static HostAllocator* allocator = new HostAllocator(Options());
  return *allocator;
}

void* HostAllocator::Allocate(size_t bytes, size_t* capacity) {
  *capacity = RoundToSizeClass(bytes, kAlignment);
  if (*capacity >= options_.min_cached_bytes) {
    absl::MutexLock lock(&mu_);
    auto it = free_.find(*capacity);
    if (it != free_.end() && !it->second.empty()) {
      void* ptr = it->second.back();
      it->second.pop_back();
      cached_ -= *capacity;
      return ptr;
    }
  }
  if (*capacity < options_.min_cached_bytes) return std::aligned_alloc(kAlignment, *capacity);
  void* block =
      mmap(nullptr, *capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) return nullptr;
  if (bytes >= options_.min_prefaulted_bytes) PrefaultForWrite(block, bytes);
  return block;  // page-aligned
}

void HostAllocator::Deallocate(void* ptr, size_t capacity) {
  if (ptr == nullptr) return;
  if (capacity < options_.min_cached_bytes) {
    std::free(ptr);
    return;
  }
  {
    absl::MutexLock lock(&mu_);
    if (cached_ + capacity <= options_.max_cached_bytes) {
      free_[capacity].push_back(ptr);
      cached_ += capacity;
      return;
    }
  }
  munmap(ptr, capacity);
}

void HostAllocator::ReleaseCached() {
  std::map<size_t, std::vector<void*>> released;
  {
    absl::MutexLock lock(&mu_);
    released.swap(free_);
    cached_ = 0;
  }
  for (auto& [size, blocks] : released) {
    for (void* block : blocks) munmap(block, size);
  }
  // tcmalloc (linked into the binaries) keeps freed pages until told; glibc's malloc_trim does
  // the same for glibc's heap. The tcmalloc hooks are weak, so libraries and tests link without
  // them. Objects this thread freed sit in its cache and pin their pages until flushed.
  if (MallocExtension_ReleaseFreeMemory != nullptr) {
    MallocExtension_MarkThreadTemporarilyIdle();
    MallocExtension_ReleaseFreeMemory();
  } else {
    malloc_trim(0);
  }
}

size_t HostAllocator::cached_bytes() const {
  absl::MutexLock lock(&mu_);
  return cached_;
}

}  // namespace tensord
