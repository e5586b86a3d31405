// WorkerTaskContext: the SinkTaskContext WorkerSinkTask hands its SinkTask (Connect's
// WorkerSinkTaskContext): the assignment, rewinds (offset()), the redelivery timeout, pause and
// resume, requestCommit(), the errant record reporter and conversion retries.
//
// A rewind asked for inside open() of a newly assigned partition becomes its start offset; any
// other waits until the loop applies it, before the next commit or put(). Pauses the task asks for
// are kept while a batch waits for redelivery (which pauses everything) and cleared on revocation.
//
// Thread-safety: the task's thread (inside the SinkTask's calls), except requestCommit(), which
// any thread may call.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <set>
#include <vector>

#include "ksink/sink_task_context.h"
#include "stage_retry.h"
#include "worker_batch_delivery.h"
#include "worker_commit_cycle.h"
#include "worker_task_state.h"

namespace ksink {

class WorkerTaskContext final : public SinkTaskContext {
 public:
  WorkerTaskContext(WorkerTaskState& state, const WorkerBatchDelivery& delivery,
                    WorkerCommitCycle& commits, const Config& config, StageRetry& stage_retry)
      : state_(state),
        delivery_(delivery),
        commits_(commits),
        config_(config),
        stage_retry_(stage_retry) {}

  std::set<TopicPartition> assignment() const override { return state_.assignment.assigned(); }
  void offset(const TopicPartition& tp, int64_t offset) override;
  void offset(const OffsetMap& offsets) override;
  void timeout(std::chrono::milliseconds timeout) override { state_.context_timeout = timeout; }
  void pause(const std::vector<TopicPartition>& partitions) override;
  void resume(const std::vector<TopicPartition>& partitions) override;
  void requestCommit() override { commits_.request(); }
  ErrantRecordReporter* errantRecordReporter() override { return state_.reporter.get(); }
  const Config& config() const override { return config_; }
  void retryConversion(std::exception_ptr failure, const std::function<void()>& convert) override {
    stage_retry_.run(std::move(failure), convert);
  }

 private:
  WorkerTaskState& state_;
  const WorkerBatchDelivery& delivery_;
  WorkerCommitCycle& commits_;
  const Config& config_;
  StageRetry& stage_retry_;
};

}  // namespace ksink
