// The sinks as a user runs them: a real `ksink run worker.properties connector.properties`
// process with default settings except what the case needs (sink, mode, converter, tasks.max),
// or the peer (Kafka Connect + the Debezium JDBC sink, through bench/peer/connect-sink.sh). Each
// is launched on a topic and an existing, empty table, watched from here until every row is
// visible, measured (CPU, peak RSS from /proc before it exits) and stopped with SIGTERM.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "child_process.h"
#include "measurement.h"
#include "test_postgres.h"

namespace ksink::bench {

enum class SinkKind { kPostgres, kSqlite, kPeer };
// The topic a case reads: Connect's JSON envelope, schemaless JSON, or Avro (Confluent's format).
enum class Encoding { kEnvelope, kSchemaless, kAvro };

struct SinkCase {
  std::string name;
  SinkKind kind;
  bool upsert;
  Encoding encoding;
};

struct SinkSettings {
  std::string bootstrap;
  std::filesystem::path dir;  // configs and logs
  int tasks = 2;
  std::optional<int64_t> commit_interval_ms;  // offset.flush.interval.ms; unset: ksink's default
  std::string peer_script;
  int peer_batch_size = 3000;
  int peer_max_poll_records = 0;  // consumer.override.max.poll.records; 0: Connect's 500
  std::vector<std::pair<std::string, std::string>> ksink_worker;  // extra ksink worker settings
  std::string registry_url;  // the Avro cases' schema registry (Confluent's API)
};

// Where a case's rows land: a table in `schema` (ksink's PostgreSQL sink), in public (the peer:
// peerTable()) or in `sqlite_file`. `table` is as SQL names it (schema-qualified for the peer).
struct Destination {
  it::PgTestSchema* schema = nullptr;
  std::filesystem::path sqlite_file;
  std::string table;
};

// A launched sink and how to read how many of its rows are committed.
struct RunningSink {
  std::unique_ptr<it::ChildProcess> process;
  std::function<int64_t()> committed;
  std::chrono::milliseconds poll_every;
  std::chrono::milliseconds timeout;  // for all rows to be committed, from launch
};

// The peer's table for `name`: public.<schema>_<name>.
std::string peerTable(const it::PgTestSchema& schema, const std::string& name);

RunningSink launchSink(const SinkCase& sink, const SinkSettings& settings, const std::string& topic,
                       const Destination& to, int64_t records);

// Launches, waits until `records` rows are committed, measures, stops. Throws if the process
// exits or stalls, or if the table then holds another number of rows.
Measurement measureSink(const SinkCase& sink, const SinkSettings& settings,
                        const std::string& topic, double topic_bytes, int64_t records,
                        const Destination& to);

}  // namespace ksink::bench
