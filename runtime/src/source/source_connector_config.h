// SourceConnectorConfig: a source connector's settings — the worker's keys (WorkerConfig) with the
// source connector's own on top (Kafka Connect's names and defaults: errors.tolerance and its
// logging, producer.override.*, where offsets are stored) — parsed and validated once, and the
// librdkafka properties of the task's producer and of the offset store's clients; and whether the
// tasks deliver exactly once.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "error_handling.h"
#include "ksink/config.h"
#include "ksink/config_def.h"
#include "shared_tasks.h"
#include "topic_creation.h"
#include "worker_config.h"

namespace ksink {

struct SourceConnectorConfig {
  WorkerConfig worker;
  ErrorHandling errors;  // errors.tolerance, errors.log.*
  // The task's producer (client.id gets the task number appended): Connect's settings — acks=all,
  // no duplicates from retries (idempotence), Java's murmur2 partitioner, deliveries retried
  // without end — under the worker's producer.* and the connector's producer.override.*, and a
  // byte budget (buffer.memory, 4 MiB by default) beyond which the task is not polled.
  std::map<std::string, std::string> producer_properties;

  // Where the connector's offsets are kept: the standalone file if one is named, else the topic.
  std::string offsets_file;  // offset.storage.file.filename
  // The connector's offsets.storage.topic if it names one, else the worker's
  // offset.storage.topic, which then is read where the connector's has no entry
  // (ConnectorOffsetStore).
  std::string offsets_topic;
  std::string worker_offsets_topic;  // offset.storage.topic
  int offsets_topic_partitions = 25;
  int offsets_topic_replication_factor = 3;  // -1: the broker's default
  // The topics the task creates as it first writes to them (KIP-158); nullopt: none.
  std::optional<TopicCreation> topic_creation;
  // bootstrap.servers and the security keys, for the offset store's own clients.
  std::map<std::string, std::string> client_properties;

  // Exactly-once delivery (KIP-618): worker exactly.once.source.support=enabled. Each task's
  // producer is transactional, id `<transactional_id_prefix><task>` (Connect's
  // `<group.id>-<connector>-<task>`), and writes the task's offsets to offsets_topic in the
  // transaction of its records (so never to the standalone file).
  bool exactly_once = false;
  bool exactly_once_required = false;  // exactly.once.support=required
  enum class TransactionBoundary { kPoll, kInterval, kConnector };
  TransactionBoundary transaction_boundary = TransactionBoundary::kPoll;
  std::chrono::milliseconds transaction_boundary_interval{60000};
  std::string transactional_id_prefix;
  // How long a transaction's commit (or abort, or the producer's fencing at start) may take.
  std::chrono::milliseconds transaction_timeout{60000};

  // group.id set in the configuration: the processes running this connector share its tasks
  // through Kafka's group membership (TaskGroup) — the consumer group and the topic
  // `task_group`, `<group.id>-<connector>-tasks`, whose partitions are the task ids. Unset: this
  // process runs all tasks.max tasks.
  bool shared_tasks = false;
  std::string task_group;
  // The group member's librdkafka properties: bootstrap, security, group.id, the worker's
  // consumer.session.timeout.ms (10000 as Connect's workers), consumer.heartbeat.interval.ms
  // (3000) and consumer.group.instance.id (static membership), cooperative-sticky assignment.
  std::map<std::string, std::string> membership_properties;

  // Validates `config` against configDef() plus `source_keys` (the connector's own definitions,
  // its converters and transforms) and librdkafka's property checks; throws ConfigException
  // naming every bad key.
  static SourceConnectorConfig parse(const Config& config, const ConfigDef& source_keys = {});
  static const ConfigDef& configDef();
  // What its TaskGroup takes (shared_tasks set).
  SharedTasks sharedTasks() const;
};

}  // namespace ksink
