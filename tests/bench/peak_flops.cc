// peak_flops: measured fp32 FMA peak of this machine, the ceiling run_bench.py compares achieved
// GFLOP/s against.
//
//   peak_flops [--threads N] [--seconds 0.3] [--repeats 5]
//
// Each thread runs independent chains of vector fused multiply-adds on registers only (no memory
// traffic), enough chains to cover the FMA latency on every FMA port. One FMA on a W-lane float
// vector counts as 2*W FLOPs. Measured with AVX2 (8 lanes; the ceiling of code compiled for
// -march=x86-64-v3, as tensord's own kernels are) and, where the CPU has it, AVX-512 (16 lanes;
// what libraries that choose kernels at run time, such as oneDNN, ONNX Runtime's MLAS and
// OpenVINO, use), on one thread and on N threads (default: the CPUs this process may run on),
// each the best of --repeats runs of about --seconds. Prints one JSON object with the GFLOP/s
// of each.
#include <immintrin.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Inner-loop repeats between clock reads; large enough that reading the clock costs nothing.
constexpr long kRepeats = 1 << 16;

// 12 independent accumulators: 4-cycle FMA latency x 2 FMA ports needs at least 8 in flight.
// They are 12 named variables, not an array, so that they stay in registers at -O2 (an array
// is kept on the stack and every FMA waits for a store and a load).
// x = x*kMul + kAdd converges to 1, so no denormals or infinities slow it down; the constants
// are read through volatiles so the compiler can neither fold nor simplify the FMAs.
volatile float kMul = 0.9999999f;
volatile float kAdd = 1e-7f;

#define TENSORD_FMA_12(FMA)                                                      \
  a0 = FMA(a0, mul, add); a1 = FMA(a1, mul, add); a2 = FMA(a2, mul, add);       \
  a3 = FMA(a3, mul, add); a4 = FMA(a4, mul, add); a5 = FMA(a5, mul, add);       \
  a6 = FMA(a6, mul, add); a7 = FMA(a7, mul, add); a8 = FMA(a8, mul, add);       \
  a9 = FMA(a9, mul, add); a10 = FMA(a10, mul, add); a11 = FMA(a11, mul, add)

#define TENSORD_SUM_12(ADD) \
  ADD(ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7))), \
      ADD(ADD(a8, a9), ADD(a10, a11)))

// Both loops return the FMAs executed and store the accumulators' sum in `sink`, so that the
// compiler cannot drop the work.
__attribute__((target("avx2,fma"))) long FmaLoopAvx2(double seconds, float* sink) {
  const __m256 mul = _mm256_set1_ps(kMul), add = _mm256_set1_ps(kAdd);
  // Distinct start values: identical chains would be merged into one by the compiler.
  const float x = kAdd;
  __m256 a0 = _mm256_set1_ps(x), a1 = _mm256_set1_ps(x + 1), a2 = _mm256_set1_ps(x + 2), a3 = _mm256_set1_ps(x + 3);
  __m256 a4 = _mm256_set1_ps(x + 4), a5 = _mm256_set1_ps(x + 5), a6 = _mm256_set1_ps(x + 6), a7 = _mm256_set1_ps(x + 7);
  __m256 a8 = _mm256_set1_ps(x + 8), a9 = _mm256_set1_ps(x + 9), a10 = _mm256_set1_ps(x + 10), a11 = _mm256_set1_ps(x + 11);
  long fmas = 0;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  do {
    for (long r = 0; r < kRepeats; ++r) {
      TENSORD_FMA_12(_mm256_fmadd_ps);
    }
    fmas += kRepeats * 12;
  } while (Clock::now() < end);
  float lanes[8];
  _mm256_storeu_ps(lanes, TENSORD_SUM_12(_mm256_add_ps));
  *sink = lanes[0];
  return fmas;
}

__attribute__((target("avx512f"))) long FmaLoopAvx512(double seconds, float* sink) {
  const __m512 mul = _mm512_set1_ps(kMul), add = _mm512_set1_ps(kAdd);
  // Distinct start values: identical chains would be merged into one by the compiler.
  const float x = kAdd;
  __m512 a0 = _mm512_set1_ps(x), a1 = _mm512_set1_ps(x + 1), a2 = _mm512_set1_ps(x + 2), a3 = _mm512_set1_ps(x + 3);
  __m512 a4 = _mm512_set1_ps(x + 4), a5 = _mm512_set1_ps(x + 5), a6 = _mm512_set1_ps(x + 6), a7 = _mm512_set1_ps(x + 7);
  __m512 a8 = _mm512_set1_ps(x + 8), a9 = _mm512_set1_ps(x + 9), a10 = _mm512_set1_ps(x + 10), a11 = _mm512_set1_ps(x + 11);
  long fmas = 0;
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  do {
    for (long r = 0; r < kRepeats; ++r) {
      TENSORD_FMA_12(_mm512_fmadd_ps);
    }
    fmas += kRepeats * 12;
  } while (Clock::now() < end);
  float lanes[16];
  _mm512_storeu_ps(lanes, TENSORD_SUM_12(_mm512_add_ps));
  *sink = lanes[0];
  return fmas;
}

using FmaLoop = long (*)(double, float*);

// GFLOP/s of `threads` threads running `loop` at once, started together.
double MeasureGflopsOnce(FmaLoop loop, int lanes, int threads, double seconds) {
  std::vector<long> fmas(threads, 0);
  std::vector<float> sinks(threads, 0);
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < threads) {
      }
      fmas[t] = loop(seconds, &sinks[t]);
    });
  }
  for (std::thread& thread : pool) thread.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  long total = 0;
  for (long f : fmas) total += f;
  if (sinks[0] == 12345.0f) std::fprintf(stderr, " ");  // keeps the sinks alive
  return 2.0 * lanes * total / elapsed / 1e9;
}

// The best of `repeats` measurements: a peak is what the machine can do, and other processes
// competing for the CPUs only ever lower a measurement.
double MeasureGflops(FmaLoop loop, int lanes, int threads, double seconds, int repeats) {
  double best = 0;
  for (int i = 0; i < repeats; ++i) {
    best = std::max(best, MeasureGflopsOnce(loop, lanes, threads, seconds));
  }
  return best;
}

int AvailableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

}  // namespace

int main(int argc, char** argv) {
  int threads = AvailableCpus(), repeats = 5;
  double seconds = 0.3;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 == argc) {
      std::fprintf(stderr, "peak_flops: %s needs a value\n", argv[i]);
      return 1;
    } else if (std::strcmp(argv[i], "--threads") == 0) {
      threads = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--seconds") == 0) {
      seconds = std::atof(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--repeats") == 0) {
      repeats = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: peak_flops [--threads N] [--seconds S] [--repeats N]\n");
      return 1;
    }
  }
  if (threads < 1 || seconds <= 0 || repeats < 1) {
    std::fprintf(stderr, "peak_flops: --threads, --seconds and --repeats must be positive\n");
    return 1;
  }
  __builtin_cpu_init();
  std::string out = "{\"threads\": " + std::to_string(threads);
  auto add = [&](const char* name, FmaLoop loop, int lanes) {
    char buffer[160];
    // A short untimed run first, so the clock has ramped up before the timed ones.
    MeasureGflopsOnce(loop, lanes, threads, seconds / 4);
    std::snprintf(buffer, sizeof(buffer), ", \"%s_1thread_gflops\": %.1f, \"%s_gflops\": %.1f",
                  name, MeasureGflops(loop, lanes, 1, seconds, repeats), name,
                  MeasureGflops(loop, lanes, threads, seconds, repeats));
    out += buffer;
  };
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    add("avx2", FmaLoopAvx2, 8);
  }
  if (__builtin_cpu_supports("avx512f")) add("avx512", FmaLoopAvx512, 16);
  std::printf("%s}\n", out.c_str());
  return 0;
}
