#include "server/batching/batching_runner.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"

namespace tensord {
namespace {

// The thread pool name TF Serving's batching metrics carry when no parameters file names one.
constexpr char kThreadPoolName[] = "model_server_batch_threads";

}  // namespace

BatchingRunner::BatchingRunner(const ServableHandle& handle, BatchScheduler* scheduler,
                               BatchingOptions options, ServingMetrics* metrics)
    : model_(handle.name),
      version_(absl::StrCat(handle.version)),
      bundle_(handle.bundle),
      scheduler_(scheduler),
      options_(std::move(options)),
      metrics_(metrics) {}

BatchScheduler::Queue* BatchingRunner::QueueFor(const Key& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = queues_.find(key);
  if (it != queues_.end()) return it->second.get();
  std::string name = absl::StrCat("model ", model_, " version ", version_, " signature ",
                                  key.signature);
  if (!key.output_filter.empty()) {
    absl::StrAppend(&name, " outputs ", absl::StrJoin(key.output_filter, ","));
  }
  BatchScheduler::DepthFn on_depth;
  if (metrics_ != nullptr) {
    on_depth = [metrics = metrics_, labels = std::vector<std::string>{model_, version_,
                                                                       key.signature}](
                   size_t depth) {
      metrics->batch_queue_depth->Set(labels, static_cast<double>(depth));
    };
  }
  auto queue = scheduler_->AddQueue(
      name, options_, [this, key](Batch batch) { Process(key, std::move(batch)); },
      std::move(on_depth));
  BatchScheduler::Queue* raw = queue.get();
  queues_.emplace(key, std::move(queue));
  return raw;
}

absl::StatusOr<std::map<std::string, Tensor>> BatchingRunner::Run(
    const std::string& signature_key, const std::map<std::string, Tensor>& inputs,
    const std::vector<std::string>& output_filter, const RunOptions& run_options,
    RunStats* stats) const {
  Key key{signature_key, output_filter};
  std::sort(key.output_filter.begin(), key.output_filter.end());
  absl::StatusOr<int64_t> rows = BatchRows(inputs);
  bool batchable = rows.ok() && *rows > 0;
  if (batchable) {
    std::lock_guard<std::mutex> lock(mu_);
    batchable = unbatchable_.count(key) == 0;
  }
  // A request with an unknown signature or aliases gets the runtime's usual error this way too.
  if (!batchable || bundle_->meta_graph_def().signature_def().count(signature_key) == 0) {
    return bundle_->RunSignature(signature_key, inputs, output_filter, run_options);
  }

  BatchTask task;
  task.inputs = inputs;
  task.rows = *rows;
  task.enqueued = absl::Now();
  if (run_options.cancellation != nullptr) task.deadline = run_options.cancellation->deadline();
  task.queued = stats != nullptr ? &stats->queued : nullptr;
  if (metrics_ != nullptr) metrics_->batching_input_batch_size->Observe({}, *rows);
  return scheduler_->Run(QueueFor(key), std::move(task));
}

void BatchingRunner::RunAlone(const Key& key, Batch batch) const {
  for (BatchTask& task : batch.tasks) {
    task.done(bundle_->RunSignature(key.signature, task.inputs, key.output_filter, RunOptions()));
  }
}

void BatchingRunner::Process(const Key& key, Batch batch) const {
  const absl::Time start = absl::Now();
  const int64_t padded = PaddedBatchSize(options_, batch.rows);
  for (const BatchTask& task : batch.tasks) {
    if (task.queued != nullptr) *task.queued = start - task.enqueued;
  }
  if (metrics_ != nullptr) {
    const std::vector<std::string> labels = {model_, version_, key.signature};
    for (const BatchTask& task : batch.tasks) {
      const absl::Duration waited = start - task.enqueued;
      metrics_->batch_queue_duration->Observe(labels, absl::ToDoubleSeconds(waited));
      metrics_->batching_queuing_latency->Observe({kThreadPoolName},
                                                  absl::ToDoubleMicroseconds(waited));
    }
    metrics_->batch_size->Observe(labels, static_cast<double>(padded));
    metrics_->batch_rows->Increment(labels, batch.rows);
    metrics_->batch_padding_rows->Increment(labels, padded - batch.rows);
    metrics_->batching_processed_batch_size->Observe({}, static_cast<double>(padded));
    metrics_->batching_padding_size->Observe({absl::StrCat(padded)},
                                             static_cast<double>(padded - batch.rows));
    metrics_->batching_wrapped_run_count->Increment({});
  }

  // The batch runs until the latest of its requests' deadlines.
  absl::Time deadline = absl::InfinitePast();
  for (const BatchTask& task : batch.tasks) deadline = std::max(deadline, task.deadline);
  const CancellationToken token(deadline);
  RunOptions run_options;
  run_options.cancellation = &token;

  std::vector<const TensorMap*> parts;
  for (const BatchTask& task : batch.tasks) parts.push_back(&task.inputs);
  absl::StatusOr<TensorMap> outputs;
  if (parts.size() == 1 && padded == batch.rows) {
    outputs = bundle_->RunSignature(key.signature, *parts[0], key.output_filter, run_options);
  } else {
    absl::StatusOr<TensorMap> merged = MergeInputs(parts, padded, options_.pad_variable_length_inputs,
                                                   options_.pad_value);
    outputs = merged.ok() ? bundle_->RunSignature(key.signature, *merged, key.output_filter,
                                                  run_options)
                          : merged.status();
  }
  if (!outputs.ok()) {
    // A failing batch fails exactly its own requests.
    for (BatchTask& task : batch.tasks) task.done(outputs.status());
    return;
  }
  // Cut the answers first, then hand them out: once the last request is answered the runner
  // may be destroyed, so nothing may touch it afterwards.
  std::vector<absl::StatusOr<TensorMap>> answers;
  int64_t begin = 0;
  for (const BatchTask& task : batch.tasks) {
    answers.push_back(SliceOutputs(*outputs, padded, begin, begin + task.rows));
    if (!answers.back().ok()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        unbatchable_.insert(key);
      }
      RunAlone(key, std::move(batch));
      return;
    }
    begin += task.rows;
  }
  for (size_t i = 0; i < batch.tasks.size(); ++i) batch.tasks[i].done(std::move(answers[i]));
}

std::shared_ptr<const SignatureRunner> MakeBatchingRunner(const ServableHandle& handle,
                                                          BatchScheduler* scheduler,
                                                          const BatchingOptions& options,
                                                          ServingMetrics* metrics) {
  if (handle.bundle->has_mutable_state()) return nullptr;
  return std::make_shared<BatchingRunner>(handle, scheduler, options, metrics);
}

}  // namespace tensord
