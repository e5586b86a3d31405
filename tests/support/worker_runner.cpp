#include "support/worker_runner.h"

#include "sink_connector_config.h"
#include "worker_sink_task.h"

namespace ksink::test {

TaskRunner::TaskRunner(const Properties& properties, std::unique_ptr<SinkTask> task,
                       const ksink::Clock& clock)
    : clock_(clock) {
  const Config config(properties);
  auto settings = SinkConnectorConfig::parse(config);
  graceful_timeout_ = settings.shutdown_graceful_timeout;
  task_ = std::make_shared<WorkerSinkTask>(0, std::move(settings), config, std::move(task), clock_);
  run_ = std::make_unique<BackgroundRun>([task = task_] { task->run(); });
}

TaskRunner::~TaskRunner() {
  stop();
  testkit::awaitEnd(*run_, "WorkerSinkTask::run()");
}

void TaskRunner::stop() {
  task_->stop(clock_.now() + graceful_timeout_);
}

const TaskMetrics& TaskRunner::metrics() const {
  return task_->metrics();
}

std::map<TopicPartition, PartitionOffsets> TaskRunner::ledger() const {
  return task_->ledgerSnapshot();
}

}  // namespace ksink::test
