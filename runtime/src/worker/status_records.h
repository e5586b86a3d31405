// StatusRecords: Kafka Connect's status topic records (KafkaStatusBackingStore), read and written
// as Connect's JsonConverter (schemas.enable=false) writes them, so ksink processes and Connect
// workers read each other's:
//   status-connector-<name>   {"state","trace","worker_id","generation","version"}
//   status-task-<name>-<n>    the same, for task n
// a tombstone forgetting either. The KIP-558 records (status-topic-<topic>:connector-<name>) are
// skipped: a connector's active topics are each process's own here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ksink {

struct StatusRecord {
  std::string name;
  std::optional<int> task;  // none: the connector's own status
  // UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED, RESTARTING; nullopt: a tombstone.
  std::optional<std::string> state;
  std::string trace;  // empty: none
  std::string worker_id;
  int generation = 0;

  // The record of a key and value (nullopt: a tombstone); nullopt for the keys ksink skips.
  // Throws std::invalid_argument for a value that is not the record's JSON.
  static std::optional<StatusRecord> read(std::string_view key,
                                          const std::optional<std::string>& value);
  std::string key() const;
  std::optional<std::string> value() const;

  friend bool operator==(const StatusRecord&, const StatusRecord&) = default;
};

}  // namespace ksink
