// SharedTasks: what a TaskGroup needs to share a connector's tasks out among the processes running
// it through Kafka's group membership: a source connector's when the worker has a group.id
// (SourceConnectorConfig::shared_tasks), a sink connector's in a cluster on Connect's config
// topic (config.storage.topic), so that a cluster runs tasks.max tasks, as Connect's
// does, whatever the number of processes.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_exception.h"
#include "worker_config.h"

namespace ksink {

struct SharedTasks {
  WorkerConfig worker;  // the connector's name, tasks.max, stop timeout, stall time
  std::string kind = "source connector";  // how logs name the connector
  // `<group.id>-<connector>-tasks`: the compacted topic whose partitions are the task ids, and
  // the consumer group its members join.
  std::string task_group;
  std::map<std::string, std::string> client_properties;  // bootstrap and security
  // The group member's: the worker's consumer.session.timeout.ms (10000 as Connect's workers),
  // consumer.heartbeat.interval.ms (3000), consumer.group.instance.id (static membership), the
  // cooperative-sticky assignment.
  std::map<std::string, std::string> membership_properties;
  int replication_factor = 3;  // the tasks topic's when created (offset.storage.replication.factor)
  // How long a task past its stop's deadline is waited for more (the transaction timeout).
  std::chrono::milliseconds transaction_timeout{60000};
  // An exactly-once source's: the ids' producers (`<prefix><id>`) fenced before a new split runs.
  bool exactly_once = false;
  std::string transactional_id_prefix;
  // Tasks of two tasks.max may read the same data until every process runs the new one (a
  // source's; a sink's tasks take partitions from their consumer group, which never overlap).
  bool splits_overlap = true;
};

// Whether the processes running the connector share its tasks (a source: a group.id set, the
// worker's or its own; a sink: config.storage.topic set, its group named by group.id or its
// default).
bool tasksShared(const Config& config, bool sink);

// `<group.id>-<connector>-tasks`, the task group of a connector whose tasks are shared.
std::string taskGroupName(std::string_view group_id, std::string_view connector);

// The group member's properties for `task_group` (see SharedTasks); appends what librdkafka
// refuses, under the consumer.* key, to `problems`.
std::map<std::string, std::string> membershipProperties(
    const Config& config, const std::string& task_group, const std::string& connector,
    const std::map<std::string, std::string>& client_properties,
    std::vector<ConfigProblem>& problems);

// A sink connector's, in a cluster; throws ConfigException naming every bad key.
SharedTasks sinkSharedTasks(const Config& config);

}  // namespace ksink
