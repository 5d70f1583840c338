// Splitting one kernel's work over the intra-op threads (CpuDevice).
//
// Eigen's ThreadPoolDevice::parallelFor hands the whole range to the pool whenever it cuts more
// blocks than threads, leaving the caller idle; the intra-op pool has one thread fewer than
// the threads a kernel may use (the caller is one of them), so that would run on too few.
// These cut one share per thread, and the caller claims shares too: a pool thread woken late
// (tens of µs on a VM, per kernel call) leaves its share to the caller rather than making it
// wait. For shares already running elsewhere the caller spins a short while before it sleeps.
//
// Work run through them must not itself wait on the intra-op pool (no nesting).
// Thread-safe: any number of kernels may call them concurrently.
#ifndef TENSORD_RUNTIME_FRAMEWORK_PARALLEL_FOR_H_
#define TENSORD_RUNTIME_FRAMEWORK_PARALLEL_FOR_H_

#include <functional>

#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {

// Runs share(i) once for each i in [0, shares), on the calling thread or on `device`'s pool,
// whichever claims it first (the caller starts with share 0). Returns when all have run.
void RunShares(const Eigen::ThreadPoolDevice& device, int shares,
               const std::function<void(int)>& share);

// f(begin, end) over [0, n) in contiguous ranges, one per thread that Eigen's cost model finds
// worth using for `cost` per element (one range, on the caller, for small work).
void ParallelFor(const Eigen::ThreadPoolDevice& device, Eigen::Index n,
                 const Eigen::TensorOpCost& cost,
                 const std::function<void(Eigen::Index, Eigen::Index)>& f);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_PARALLEL_FOR_H_
