// SinkConnectorConfig: a sink connector's settings — the worker's keys (WorkerConfig) with the
// sink connector's own on top (Kafka Connect's names and defaults: topics, consumer.*, errors.*,
// the DLQ) — parsed and validated once, and the librdkafka consumer properties derived from them.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "errors_config.h"
#include "ksink/config.h"

namespace ksink {

struct SinkConnectorConfig {
  std::string name;
  int tasks_max = 1;
  std::vector<std::string> topics;  // exactly one of topics / topics_regex is set
  std::string topics_regex;
  std::chrono::milliseconds offset_flush_interval{60000};
  std::chrono::milliseconds offset_flush_timeout{5000};
  std::chrono::milliseconds shutdown_graceful_timeout{5000};
  std::chrono::milliseconds stall_after{180000};  // WorkerConfig::stall_after
  std::chrono::milliseconds retry_delay_max{60000};
  std::chrono::milliseconds retry_timeout{0};  // 0 = retry put() forever (Connect's behaviour)
  int max_poll_records = 500;
  std::chrono::milliseconds poll_timeout{100};  // longest wait for the first record of a batch
  // default.api.timeout.ms (Java's name): how long a newly assigned partition's committed offset
  // (and, without one, its watermarks) is looked up, retries included, before the task fails.
  std::chrono::milliseconds lookup_timeout{60000};
  std::string group_id;
  // librdkafka properties for every task's consumer (client.id gets the task number appended).
  std::map<std::string, std::string> consumer_properties;
  std::string sink_name;  // connector.class, for error reports
  ErrorsConfig errors;

  // Validates `config` against configDef() (its keys replaced by the config's own definitions and
  // by `sink_keys`, e.g. a sink's transforms=) plus Connect's cross-key rules and librdkafka's own
  // property checks; throws ConfigException naming every bad key.
  static SinkConnectorConfig parse(const Config& config, const ConfigDef& sink_keys = {});
  static const ConfigDef& configDef();
};

}  // namespace ksink
