// JdbcSourceConfig: the table sources' settings, from the Confluent JDBC source's keys
// (io.confluent.connect.jdbc.JdbcSourceConnector), parsed once. parse() validates against
// configDef() and throws a ConfigException naming every bad key; keys that would change what is
// read and that ksink does not implement are declared there with the one value it serves, so any
// other is refused by name; tuning keys without a meaning here are accepted and reported by
// configDef().ignoredIn(). docs/configuration-compatibility.md lists them. A plain value.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_def.h"

namespace ksink::jdbc {

struct JdbcSourceConfig {
  enum class Mode { kBulk, kIncrementing, kTimestamp, kTimestampIncrementing };

  std::string connection_url;
  std::string user;
  std::string password;
  Mode mode = Mode::kBulk;
  std::string incrementing_column;             // empty: the table's auto-increment column
  std::vector<std::string> timestamp_columns;  // several: COALESCE(a, b, …)
  std::vector<std::string> table_whitelist;    // table.whitelist / table.include.list
  std::vector<std::string> table_blacklist;    // table.blacklist / table.exclude.list
  std::string query;                           // non-empty: query mode
  std::string query_suffix;
  std::string topic_prefix;
  std::chrono::milliseconds poll_interval{5000};
  // Failed connection attempts in a row before the task fails (connection.attempts), and the wait
  // after each (connection.backoff.ms), as Confluent's JDBC source bounds them.
  int connection_attempts = 3;
  std::chrono::milliseconds connection_backoff{10000};
  int batch_max_rows = 100;
  std::chrono::milliseconds table_poll_interval{60000};
  std::chrono::milliseconds timestamp_delay{0};
  std::optional<int64_t> timestamp_initial;  // ms since the epoch; -1: the database's now
  bool validate_non_null = true;
  // PostgreSQL: read rows only up to a settled commit horizon (source_database.h: Horizon), so
  // rows committed out of order are not skipped; false: as the JDBC source.
  bool commit_horizon = true;
  std::string db_timezone = "UTC";
  std::vector<std::string> table_types{"TABLE"};
  std::string schema_pattern;  // empty: every schema the user can read
  int task_id = 0;
  int tasks_max = 1;

  bool usesIncrementing() const {
    return mode == Mode::kIncrementing || mode == Mode::kTimestampIncrementing;
  }
  bool usesTimestamp() const {
    return mode == Mode::kTimestamp || mode == Mode::kTimestampIncrementing;
  }
  bool queryMode() const { return !query.empty(); }

  static JdbcSourceConfig parse(const Config& config);
  static const ConfigDef& configDef();
  static const char* modeName(Mode mode);
};

}  // namespace ksink::jdbc
