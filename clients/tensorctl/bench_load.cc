#include "clients/tensorctl/bench_load.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "protos/serving/prediction_service.grpc.pb.h"

namespace tensord {
namespace tensorctl {
namespace {

namespace serving = ::tensorflow::serving;
using Clock = std::chrono::steady_clock;

// A send more than this after its scheduled time counts as delayed.
constexpr auto kLateness = std::chrono::milliseconds(1);

// The open loop's send times, shared by its workers.
class Schedule {
 public:
  Schedule(double rate, BenchArgs::Distribution distribution, Clock::time_point start)
      : gap_s_(1 / rate), poisson_(distribution == BenchArgs::Distribution::kPoisson),
        exponential_(rate), next_(start) {}

  // The next send time; each caller gets its own.
  Clock::time_point Next() {
    std::lock_guard<std::mutex> lock(mu_);
    const Clock::time_point t = next_;
    const double gap_s = poisson_ ? exponential_(rng_) : gap_s_;
    next_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(gap_s));
    return t;
  }

 private:
  const double gap_s_;
  const bool poisson_;
  std::mutex mu_;
  std::exponential_distribution<double> exponential_;
  std::mt19937_64 rng_{1};
  Clock::time_point next_;
};

// One worker's completions since the coordinator last collected them, and its call in flight.
struct Recorder {
  std::mutex mu;
  Window pending;  // duration_s unused
  grpc::ClientContext* in_flight = nullptr;
};

// The workers of one level and what they share. Workers run from Start() to Stop().
class Load {
 public:
  Load(const BenchArgs& args, const LoadLevel& level, const serving::PredictRequest& request)
      : args_(args), level_(level), request_(request),
        workers_(level.concurrency > 0 ? level.concurrency : args.max_threads),
        recorders_(workers_) {}

  ~Load() { Stop(); }

  absl::Status Connect() {
    grpc::ChannelArguments channel_args;
    // One TCP connection per worker, as separate clients would have; by default, channels
    // with equal arguments share one.
    channel_args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    channel_args.SetMaxReceiveMessageSize(-1);  // large outputs are results, not errors
    const auto deadline =
        std::chrono::system_clock::now() + std::chrono::milliseconds(args_.target.timeout_ms);
    for (int i = 0; i < workers_; ++i) {
      channels_.push_back(grpc::CreateCustomChannel(
          args_.target.server, grpc::InsecureChannelCredentials(), channel_args));
      if (!channels_.back()->WaitForConnected(deadline)) {
        return absl::UnavailableError(absl::StrCat("cannot connect to ", args_.target.server,
                                                   " within ", args_.target.timeout_ms, " ms"));
      }
    }
    return absl::OkStatus();
  }

  void Start() {
    if (level_.concurrency == 0) {
      schedule_ =
          std::make_unique<Schedule>(level_.request_rate, args_.distribution, Clock::now());
    }
    for (int i = 0; i < workers_; ++i) threads_.emplace_back([this, i] { Work(i); });
  }

  // Blocks until `n` requests have completed, successfully or not.
  void WaitForCompletions(int64_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    wake_.wait(lock, [&] { return completed_.load() >= n; });
  }

  // Everything completed since the last call (or Start), without a duration.
  Window Collect() {
    Window window;
    for (Recorder& recorder : recorders_) {
      Window taken;
      {
        std::lock_guard<std::mutex> lock(recorder.mu);
        std::swap(taken, recorder.pending);
      }
      window.latencies_ns.insert(window.latencies_ns.end(), taken.latencies_ns.begin(),
                                 taken.latencies_ns.end());
      for (const auto& [code, count] : taken.errors) window.errors[code] += count;
      window.delayed += taken.delayed;
    }
    return window;
  }

  // Ends the level: calls in flight are cancelled, so this does not wait for slow requests.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (Recorder& recorder : recorders_) {
      std::lock_guard<std::mutex> lock(recorder.mu);
      if (recorder.in_flight != nullptr) recorder.in_flight->TryCancel();
    }
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  void Work(int index) {
    auto stub = serving::PredictionService::NewStub(channels_[index]);
    const serving::PredictRequest request = request_;  // a copy per thread: no shared cache lines
    serving::PredictResponse response;
    Recorder& recorder = recorders_[index];
    while (true) {
      Clock::time_point scheduled;
      if (schedule_ != nullptr) {
        scheduled = schedule_->Next();
        std::unique_lock<std::mutex> lock(mu_);
        if (wake_.wait_until(lock, scheduled, [&] { return stop_.load(); })) return;
      }
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::milliseconds(args_.target.timeout_ms));
      {
        // Checked under the recorder's lock, so that Stop() either sees this call in flight
        // and cancels it, or this worker sees the stop.
        std::lock_guard<std::mutex> lock(recorder.mu);
        if (stop_) return;
        recorder.in_flight = &context;
      }
      const Clock::time_point start = Clock::now();
      const grpc::Status status = stub->Predict(&context, request, &response);
      const Clock::time_point end = Clock::now();
      {
        std::lock_guard<std::mutex> lock(recorder.mu);
        recorder.in_flight = nullptr;
        if (stop_) return;  // cancelled, or done after the last window
        if (status.ok()) {
          recorder.pending.latencies_ns.push_back(
              std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
        } else {
          ++recorder.pending.errors[status.error_code()];
        }
        if (schedule_ != nullptr && start - scheduled > kLateness) ++recorder.pending.delayed;
      }
      response.Clear();
      if (completed_.fetch_add(1) + 1 == args_.warmup_requests) {
        std::lock_guard<std::mutex> lock(mu_);
        wake_.notify_all();
      }
    }
  }

  const BenchArgs& args_;
  const LoadLevel level_;
  const serving::PredictRequest& request_;
  const int workers_;
  std::unique_ptr<Schedule> schedule_;  // open loop only
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<Recorder> recorders_;
  std::vector<std::thread> threads_;
  std::atomic<int64_t> completed_{0};
  // Wakes open-loop workers waiting for their send time on stop, and WaitForCompletions.
  std::mutex mu_;
  std::condition_variable wake_;
  std::atomic<bool> stop_{false};  // set under mu_
};

}  // namespace

absl::StatusOr<LevelResult> RunLevel(const BenchArgs& args, const LoadLevel& level,
                                     const serving::PredictRequest& request,
                                     LevelObserver* observer) {
  Load load(args, level, request);
  if (absl::Status connected = load.Connect(); !connected.ok()) return connected;
  load.Start();
  load.WaitForCompletions(args.warmup_requests);

  observer->MeasurementStarted();
  load.Collect();  // the warm-up requests
  const auto interval = std::chrono::milliseconds(args.measurement_interval_ms);
  const Clock::time_point measurement_start = Clock::now();
  Clock::time_point window_start = measurement_start;
  std::vector<Window> windows;
  LevelResult result;
  for (int trial = 1; trial <= args.max_trials; ++trial) {
    // Window ends on a fixed grid, so the time spent collecting does not add up into drift.
    std::this_thread::sleep_until(measurement_start + trial * interval);
    const Clock::time_point now = Clock::now();
    Window window = load.Collect();
    window.duration_s = std::chrono::duration<double>(now - window_start).count();
    window_start = now;
    observer->WindowMeasured(trial, window);
    windows.push_back(std::move(window));
    if (windows.size() >= 3 &&
        IsStable({windows.end() - 3, windows.end()}, args.stability_percentage)) {
      result.stable = true;
      break;
    }
  }
  load.Stop();

  result.trials = static_cast<int>(windows.size());
  const size_t reported = std::min<size_t>(3, windows.size());
  result.measured = Merge({windows.end() - reported, windows.end()});
  return result;
}

}  // namespace tensorctl
}  // namespace tensord
