// WorkerConfig: the keys of the worker — what every connector of a process shares, whatever its
// kind (Kafka Connect's WorkerConfig: brokers, commit interval and timeout, graceful stop,
// listeners, plugins, config providers, client security and client-wide consumer./producer.
// settings) — and the few every connector has (name, connector.class, tasks.max). Each kind adds
// its connector's own keys on top: SinkConnectorConfig (sink/), SourceConnectorConfig (source/).
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "ksink/config.h"
#include "ksink/config_def.h"

namespace ksink {

struct WorkerConfig {
  std::string name;
  std::string connector_class;
  int tasks_max = 1;
  std::string bootstrap_servers;
  std::chrono::milliseconds offset_flush_interval{60000};
  std::chrono::milliseconds offset_flush_timeout{5000};
  std::chrono::milliseconds shutdown_graceful_timeout{5000};
  // task.stall.intervals × offset.flush.interval.ms (a second at least): no progress for this long
  // with work to do is a stall (TaskProgress).
  std::chrono::milliseconds stall_after{180000};
  // exit.on.task.failure: a failed task ends its connector (true), or stays FAILED while the
  // others run (false).
  bool exit_on_task_failure = true;
  // errors.restart.*: a failed task restarted by itself (TaskRestartPolicy); 0 attempts: never.
  int restart_max_attempts = 0;
  std::chrono::milliseconds restart_backoff{1000};
  std::chrono::milliseconds restart_window{600000};

  // Reads the values; `config` has been validated against a definition including configDef()
  // and connectorKeys() (a kind's parse does that), so missing keys take the defaults.
  static WorkerConfig parse(const Config& config);
  // bootstrap.servers and the client security keys: what every client is made with (the worker's
  // own, such as the config topic's, take only these).
  static std::map<std::string, std::string> clientProperties(const Config& config);
  // The librdkafka properties of a producer for this connector, later wins: clientProperties(),
  // the worker's producer.*, the connector's producer.override.*.
  static std::map<std::string, std::string> producerProperties(const Config& config);
  // The worker's keys.
  static const ConfigDef& configDef();
  // name, connector.class, tasks.max.
  static const ConfigDef& connectorKeys();
};

}  // namespace ksink
