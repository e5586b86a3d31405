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
#include <memory>
#include <set>
#include <vector>

#include "kafka_consumer.h"
#include "ksink/sink_task_context.h"
#include "sink_rewinds.h"
#include "sink_task_scope.h"
#include "stage_retry.h"
#include "task_assignment.h"
#include "worker_batch_delivery.h"
#include "worker_commit_cycle.h"
#include "worker_errant_record_reporter.h"

namespace ksink {

class WorkerTaskContext final : public SinkTaskContext {
 public:
  // `reporter`: null when the task has none. `delivery` takes the timeout() asked for, `commits`
  // the requestCommit().
  WorkerTaskContext(const SinkTaskScope& scope, const std::shared_ptr<KafkaConsumer>& consumer,
                    TaskAssignment& assignment, SinkRewinds& rewinds,
                    WorkerErrantRecordReporter* reporter, WorkerBatchDelivery& delivery,
                    WorkerCommitCycle& commits, const Config& config, StageRetry& stage_retry)
      : scope_(scope),
        consumer_(consumer),
        assignment_(assignment),
        rewinds_(rewinds),
        reporter_(reporter),
        delivery_(delivery),
        commits_(commits),
        config_(config),
        stage_retry_(stage_retry) {}

  std::set<TopicPartition> assignment() const override { return assignment_.assigned(); }
  void offset(const TopicPartition& tp, int64_t offset) override;
  void offset(const OffsetMap& offsets) override;
  void timeout(std::chrono::milliseconds timeout) override { delivery_.requestTimeout(timeout); }
  void pause(const std::vector<TopicPartition>& partitions) override;
  void resume(const std::vector<TopicPartition>& partitions) override;
  void requestCommit() override { commits_.request(); }
  ErrantRecordReporter* errantRecordReporter() override { return reporter_; }
  const Config& config() const override { return config_; }
  void retryConversion(std::exception_ptr failure, const std::function<void()>& convert) override {
    stage_retry_.run(std::move(failure), convert);
  }

 private:
  const SinkTaskScope& scope_;
  const std::shared_ptr<KafkaConsumer>& consumer_;
  TaskAssignment& assignment_;
  SinkRewinds& rewinds_;
  WorkerErrantRecordReporter* const reporter_;
  WorkerBatchDelivery& delivery_;
  WorkerCommitCycle& commits_;
  const Config& config_;
  StageRetry& stage_retry_;
};

}  // namespace ksink
