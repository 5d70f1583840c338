#include "runtime/framework/caching_allocator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tensord {

size_t RoundToSizeClass(size_t bytes, size_t min_step) {
  if (bytes <= min_step) return min_step;
  size_t power = 1;
  while (power * 2 <= bytes) power *= 2;
  const size_t step = power >= 4 * min_step ? power / 4 : min_step;
  return (bytes + step - 1) / step * step;
}

CachingAllocator::CachingAllocator(std::unique_ptr<RawAllocator> raw, Options options)
    : raw_(std::move(raw)), options_(std::move(options)) {
  stats_.limit_bytes = options_.limit_bytes;
}

CachingAllocator::~CachingAllocator() {
  absl::MutexLock lock(&mu_);
  ReleaseCachedLocked();
  for (const auto& [block, bytes] : in_use_) raw_->Free(block, bytes);
}

absl::StatusOr<void*> CachingAllocator::Allocate(size_t bytes) {
  const size_t size = RoundToSizeClass(bytes, options_.alignment);
  absl::MutexLock lock(&mu_);
  void* block = nullptr;
  auto cached = free_.find(size);
  if (cached != free_.end() && !cached->second.empty()) {
    block = cached->second.back();
    cached->second.pop_back();
    stats_.cached_bytes -= size;
  } else {
    const auto fits = [&] {
      return options_.limit_bytes == 0 ||
             (size <= options_.limit_bytes &&
              stats_.in_use_bytes + stats_.cached_bytes <= options_.limit_bytes - size);
    };
    if (!fits()) ReleaseCachedLocked();
    if (fits()) block = raw_->Allocate(size);
    if (block == nullptr && stats_.cached_bytes > 0) {
      ReleaseCachedLocked();
      if (fits()) block = raw_->Allocate(size);
    }
    if (block == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat(
          options_.name, " out of memory: ", bytes, " bytes requested with ",
          stats_.in_use_bytes, " in use",
          options_.limit_bytes > 0 ? absl::StrCat(" of a limit of ", options_.limit_bytes)
                                   : std::string()));
    }
    ++stats_.raw_allocations;
  }
  in_use_.emplace(block, size);
  stats_.in_use_bytes += size;
  stats_.peak_in_use_bytes = std::max(stats_.peak_in_use_bytes, stats_.in_use_bytes);
  return block;
}

void CachingAllocator::Deallocate(void* block) {
  absl::MutexLock lock(&mu_);
  auto it = in_use_.find(block);
  if (it == in_use_.end()) return;
  const size_t size = it->second;
  in_use_.erase(it);
  stats_.in_use_bytes -= size;
  free_[size].push_back(block);
  stats_.cached_bytes += size;
}

void CachingAllocator::ReleaseCached() {
  absl::MutexLock lock(&mu_);
  ReleaseCachedLocked();
}

void CachingAllocator::ReleaseCachedLocked() {
  for (auto& [size, blocks] : free_) {
    for (void* block : blocks) raw_->Free(block, size);
  }
  free_.clear();
  stats_.cached_bytes = 0;
}

CachingAllocator::Stats CachingAllocator::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace tensord
