#include "runtime/framework/gpu_blas.h"

#include <cublas_api.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <climits>
#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace tensord {
namespace {

// The cuBLAS entry points tensord calls, resolved from the library at run time.
struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemm_strided_batched = nullptr;
};

// The loader's search path first (LD_LIBRARY_PATH, the system's cache), then the toolkit's
// usual home, which the system cache often leaves out.
constexpr const char* kLibraries[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                      "/usr/local/cuda/lib64/libcublas.so.13"};

class Cublas {
 public:
  static Cublas& Get() {
    static Cublas* const cublas = new Cublas();  // never destroyed: handles outlive statics
    return *cublas;
  }

  absl::Status Sgemm(GpuDevice& device, const GpuGemm& g) {
    if (!load_error_.empty()) return absl::FailedPreconditionError(load_error_);
    absl::MutexLock lock(&mu_);
    const int ordinal = device.info().ordinal;
    if (cudaSetDevice(ordinal) != cudaSuccess) {
      return absl::InternalError(absl::StrCat("cannot select ", device.name()));
    }
    auto it = handles_.find(ordinal);
    if (it == handles_.end()) {
      cublasHandle_t handle = nullptr;
      if (const cublasStatus_t s = api_.create(&handle); s != CUBLAS_STATUS_SUCCESS) {
        return absl::InternalError(
            absl::StrCat("cuBLAS could not start on ", device.name(), " (status ", s, ")"));
      }
      api_.set_math_mode(handle, CUBLAS_DEFAULT_MATH);
      it = handles_.emplace(ordinal, handle).first;
    }
    cublasHandle_t handle = it->second;
    api_.set_stream(handle, device.compute_stream());
    // Row-major C = op(A)·op(B) is column-major C' = op(B)'·op(A)': swap the operands.
    const int m = static_cast<int>(g.m);
    const int n = static_cast<int>(g.n);
    const int k = static_cast<int>(g.k);
    const float alpha = 1.0f;
    const float beta = g.accumulate ? 1.0f : 0.0f;
    const cublasStatus_t s = api_.sgemm_strided_batched(
        handle, g.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N, g.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N,
        n, m, k, &alpha, g.b, g.transpose_b ? k : n, g.stride_b, g.a, g.transpose_a ? m : k,
        g.stride_a, &beta, g.c, n, g.stride_c, static_cast<int>(g.batch));
    if (s != CUBLAS_STATUS_SUCCESS) {
      return absl::InternalError(absl::StrCat("cuBLAS SgemmStridedBatched failed on ",
                                              device.name(), " (status ", s, ")"));
    }
    return absl::OkStatus();
  }

 private:
  Cublas() {
    void* library = nullptr;
    std::string tried;
    for (const char* name : kLibraries) {
      library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (library != nullptr) break;
      absl::StrAppend(&tried, tried.empty() ? "" : "; ", dlerror());
    }
    if (library == nullptr) {
      load_error_ = absl::StrCat(
          "cuBLAS, which matrix products on a GPU need, could not be loaded (", tried,
          "): install CUDA's libcublas, or serve this model with device policy cpu");
      return;
    }
    api_.create = reinterpret_cast<decltype(api_.create)>(dlsym(library, "cublasCreate_v2"));
    api_.set_stream =
        reinterpret_cast<decltype(api_.set_stream)>(dlsym(library, "cublasSetStream_v2"));
    api_.set_math_mode =
        reinterpret_cast<decltype(api_.set_math_mode)>(dlsym(library, "cublasSetMathMode"));
    api_.sgemm_strided_batched = reinterpret_cast<decltype(api_.sgemm_strided_batched)>(
        dlsym(library, "cublasSgemmStridedBatched"));
    if (api_.create == nullptr || api_.set_stream == nullptr || api_.set_math_mode == nullptr ||
        api_.sgemm_strided_batched == nullptr) {
      load_error_ = "the cuBLAS library found lacks the functions tensord calls";
    }
  }

  CublasApi api_;
  std::string load_error_;  // set once by the constructor; empty when cuBLAS is usable
  absl::Mutex mu_;
  std::map<int, cublasHandle_t> handles_ ABSL_GUARDED_BY(mu_);
};

bool FitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace

absl::Status GpuSgemm(GpuDevice& device, const GpuGemm& gemm) {
  if (!FitsInt(gemm.m) || !FitsInt(gemm.n) || !FitsInt(gemm.k) || !FitsInt(gemm.batch)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a matrix product of [", gemm.m, ", ", gemm.k, "] x [", gemm.k, ", ", gemm.n,
                     "] (", gemm.batch, " times) exceeds cuBLAS's 32-bit sizes"));
  }
  if (gemm.m == 0 || gemm.n == 0 || gemm.batch == 0) return absl::OkStatus();
  return Cublas::Get().Sgemm(device, gemm);
}

}  // namespace tensord
