// PostgresSinkConfig: the PostgreSQL sink's configuration: the table-sink keys shared with the
// SQLite sink (TableSinkConfig) plus the connection and time-zone keys of Confluent's JDBC sink.
//
//   connection.url       libpq URI (postgresql://…), conninfo (host=… dbname=…) or
//                        jdbc:postgresql://host:port/db?… — required
//   connection.user      overrides the URL's user when set
//   connection.password  overrides the URL's password when set; masked in logs
//   db.timezone          session TimeZone: how values for `timestamp` (without time zone)
//                        columns are converted from instants (default UTC)
//   connection.read.timeout.ms  longest wait for the server's answer to one request (60000)
//   retry.backoff.ms     wait before retrying after a retriable database error (default 3000)
//   connection.attempts, connection.backoff.ms  failed connection attempts in a row at start
//                        before the task fails (3), and the wait after each (10000), as
//                        Confluent's JDBC connectors bound them
//
// parse() throws ConfigException naming every problem. Plain value type.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/table_sink_config.h"

namespace ksink::postgres {

struct PostgresSinkConfig {
  TableSinkConfig table;
  std::string connection_url;
  std::string connection_user;
  std::string connection_password;
  std::string db_timezone = "UTC";
  std::chrono::milliseconds read_timeout{60000};
  int64_t retry_backoff_ms = 3000;
  int connection_attempts = 3;
  std::chrono::milliseconds connection_backoff{10000};

  static PostgresSinkConfig parse(const Config& config);
  // This sink's keys, TableSinkConfig's included.
  static const ConfigDef& configDef();
};

}  // namespace ksink::postgres
