// ConfigRecords: Kafka Connect's config topic records (KafkaConfigBackingStore), read and written
// byte for byte as Connect's JsonConverter (schemas.enable=false) writes them, so ksink processes
// and Connect workers read each other's:
//   connector-<name>          {"properties":{…}}; a tombstone deletes the connector
//   target-state-<name>       {"state":"STARTED"|"PAUSED","state.v2":"STARTED"|"PAUSED"|"STOPPED"}
//                             (STOPPED is written state=PAUSED too, for workers older than 3.5)
//   restart-connector-<name>  {"include-tasks":bool,"only-failed":bool} (KIP-745)
// Connect's other records (task-<name>-<n>, commit-<name>, tasks-fencing-<name>, session-key,
// logger-cluster-<ns>) carry what a Connect leader derives for its own workers: read() skips them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksink {

struct ConfigRecord {
  // kTargetDeleted: the target state's tombstone, written with a connector's.
  enum class Kind { kConnector, kDeleted, kTarget, kTargetDeleted, kRestart };
  enum class Target { kStarted, kPaused, kStopped };

  Kind kind = Kind::kConnector;
  std::string name;
  std::map<std::string, std::string> config;  // kConnector
  Target target = Target::kStarted;           // kTarget
  bool include_tasks = false;                 // kRestart
  bool only_failed = false;

  // The record of a key and value (nullopt: a tombstone); nullopt for the records ksink skips.
  // Throws std::invalid_argument for a value that is not the record's JSON.
  static std::optional<ConfigRecord> read(std::string_view key,
                                          const std::optional<std::string>& value);
  // Its key and value (nullopt: a tombstone).
  std::string key() const;
  std::optional<std::string> value() const;

  static ConfigRecord connector(std::string name, std::map<std::string, std::string> config);
  // The connector's tombstone and its target state's, as Connect deletes a connector.
  static std::vector<ConfigRecord> deleted(const std::string& name);
  static ConfigRecord targetState(std::string name, Target target);
  static ConfigRecord restart(std::string name, bool include_tasks, bool only_failed);
};

}  // namespace ksink
