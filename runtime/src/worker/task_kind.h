// TaskKind: how a Worker makes the tasks of its connector's kind — a sink connector's
// WorkerSinkTasks, a source connector's WorkerSourceTasks or ExactlyOnceSourceTasks, or the one
// TaskGroup of a connector whose processes share its tasks — checked against the
// configuration (and, for a source, what the connector declares about exactly-once delivery)
// before anything connects.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "clock.h"
#include "ksink/config.h"
#include "ksink/exactly_once_support.h"
#include "ksink/sink_task.h"
#include "source_task_adapter.h"
#include "worker_task.h"

namespace ksink {

struct TaskKind {
  std::string type;  // Connect's connector type: sink, source
  // Consumers of one group start one after the other (see Worker's awaitFirstAssignment).
  bool stagger_start = false;
  std::function<std::shared_ptr<WorkerTask>(int id, const Clock& clock)> make;
  // How many to make; nullopt: tasks.max.
  std::optional<int> count;
};

// Throw ConfigException naming every bad key.
TaskKind sinkKind(const Config& config, TaskFactory factory);
TaskKind sourceKind(const Config& config, detail::SourceDriverFactory factory,
                    const SourceCapabilities& capabilities);

}  // namespace ksink
