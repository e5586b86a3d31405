#include "task_kind.h"

#include <stdexcept>
#include <vector>

#include "exactly_once_source_task.h"
#include "ksink/config_exception.h"
#include "offset_stores.h"
#include "sink_connector_config.h"
#include "source_connector_config.h"
#include "task_group.h"
#include "worker_sink_task.h"
#include "worker_source_task.h"

namespace ksink {
namespace {

// What exactly.once.support=required and transaction.boundary=connector ask of the connector
// (Connect's preflight checks, DistributedHerder): refused at start, with the key and why.
void checkCapabilities(const SourceConnectorConfig& settings, const Config& config,
                       const SourceCapabilities& capabilities) {
  std::vector<ConfigProblem> problems;
  if (settings.exactly_once_required &&
      (!capabilities.exactly_once ||
       capabilities.exactly_once(config) != ExactlyOnceSupport::kSupported))
    problems.push_back(
        {"exactly.once.support",
         capabilities.exactly_once
             ? "required, but the connector does not support exactly-once delivery with this "
               "configuration"
             : "required, but the connector does not say whether it supports exactly-once "
               "delivery"});
  if (settings.exactly_once &&
      settings.transaction_boundary == SourceConnectorConfig::TransactionBoundary::kConnector &&
      (!capabilities.transaction_boundaries ||
       capabilities.transaction_boundaries(config) != ConnectorTransactionBoundaries::kSupported))
    problems.push_back({"transaction.boundary",
                        "connector, but the connector's tasks do not define transaction "
                        "boundaries: use poll or interval"});
  if (!problems.empty()) throw ConfigException(std::move(problems));
}

}  // namespace

TaskKind sinkKind(const Config& config, TaskFactory factory) {
  auto settings = SinkConnectorConfig::parse(config);
  auto make = [settings, config, factory = std::move(factory)](
                  int id, const Clock& clock) -> std::shared_ptr<WorkerTask> {
    auto task = factory();
    if (!task) throw std::runtime_error("the task factory returned no task");
    return std::make_shared<WorkerSinkTask>(id, settings, config, std::move(task), clock);
  };
  if (!tasksShared(config, true)) return {"sink", true, std::move(make), std::nullopt};
  // In a cluster the processes share tasks.max tasks, as Connect's workers do; each task's
  // consumer then takes its partitions in the connector's group, as before.
  return {"sink", false,
          [shared = sinkSharedTasks(config), make = std::move(make)](int, const Clock& clock) {
            return std::make_shared<TaskGroup>(
                shared, [make, &clock](int id, std::function<void()>) { return make(id, clock); },
                clock);
          },
          1};
}

TaskKind sourceKind(const Config& config, detail::SourceDriverFactory factory,
                    const SourceCapabilities& capabilities) {
  auto settings = SourceConnectorConfig::parse(config);
  checkCapabilities(settings, config, capabilities);
  auto make = [settings, config, factory = std::move(factory)](
                  int id, const Clock& clock,
                  std::function<void()> before_start = {}) -> std::shared_ptr<WorkerTask> {
    auto task = factory();
    if (!task) throw std::runtime_error("the task factory returned no task");
    // Which of the connector's tasks this is, for a source that shares its work out
    // (Connect's connectors split it in taskConfigs(); ksink's tasks take their share).
    auto values = config.values();
    values[std::string(kSourceTaskIdKey)] = std::to_string(id);
    Config task_config(std::move(values), config.definitions());
    if (settings.exactly_once)
      return std::make_shared<ExactlyOnceSourceTask>(
          id, settings, std::move(task_config), std::move(task), openTopicOffsetStore(settings),
          clock, std::move(before_start));
    return std::make_shared<WorkerSourceTask>(id, settings, std::move(task_config), std::move(task),
                                              openOffsetStore(settings), clock);
  };
  if (!settings.shared_tasks) return {"source", false, std::move(make), std::nullopt};
  // The processes running the connector share its tasks: this one runs those the group gives it.
  return {"source", false,
          [settings, make = std::move(make)](int, const Clock& clock) {
            return std::make_shared<TaskGroup>(
                settings.sharedTasks(),
                [make, &clock](int id, std::function<void()> before_start) {
                  return make(id, clock, std::move(before_start));
                },
                clock);
          },
          1};
}

}  // namespace ksink
