#include "sink_process.h"

#include <fmt/format.h>
#include <signal.h>
#include <sqlite3.h>

#include <fstream>
#include <regex>
#include <stdexcept>

#include "polling.h"
#include "process_usage.h"
#include "test_kafka.h"

namespace ksink::bench {
namespace {

const char* kJsonConverter = "org.apache.kafka.connect.json.JsonConverter";

void writeProperties(const std::filesystem::path& file,
                     const std::vector<std::pair<std::string, std::string>>& props) {
  std::ofstream out(file);
  for (const auto& [k, v] : props) out << k << '=' << v << '\n';
}

std::vector<std::pair<std::string, std::string>> converterProps(Encoding encoding,
                                                                const SinkSettings& settings) {
  if (encoding == Encoding::kAvro)
    return {{"value.converter", "io.confluent.connect.avro.AvroConverter"},
            {"value.converter.schema.registry.url", settings.registry_url}};
  return {{"value.converter", kJsonConverter},
          {"value.converter.schemas.enable", encoding == Encoding::kEnvelope ? "true" : "false"}};
}

// postgresql://user@host:port/db (what integration/postgres/start.sh prints) as JDBC sees it.
// No currentSchema: the Debezium sink then writes nothing and logs nothing, so the peer's tables
// live in public (peerTable()).
struct JdbcTarget {
  std::string url, user;
};
JdbcTarget jdbcTarget(const std::string& libpq_url) {
  static const std::regex uri(
      R"(postgres(?:ql)?://(?:([^:@/]+)(?::[^@/]*)?@)?([^:/?]+)(?::(\d+))?/([^?]+).*)");
  std::smatch m;
  if (!std::regex_match(libpq_url, m, uri))
    throw std::runtime_error(fmt::format("not a postgresql:// URL: {}", libpq_url));
  return {fmt::format("jdbc:postgresql://{}:{}/{}", m[2].str(), m[3].matched ? m[3].str() : "5432",
                      m[4].str()),
          m[1].matched ? m[1].str() : "postgres"};
}

int64_t pgCount(it::PgTestSchema& schema, const std::string& table) {
  return std::stoll(*schema.scalar(fmt::format("SELECT count(*) FROM {}", table)));
}

int64_t sqliteCommitted(const std::filesystem::path& file, const std::string& connector) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(raw, &sqlite3_close);
  if (rc != SQLITE_OK) return 0;
  sqlite3_busy_timeout(raw, 1000);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(
          raw, "SELECT coalesce(sum(next_offset), 0) FROM ksink_offsets WHERE connector=?", -1, &st,
          nullptr) != SQLITE_OK)
    return 0;  // no ksink_offsets table yet
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> stmt(st, &sqlite3_finalize);
  sqlite3_bind_text(st, 1, connector.c_str(), -1, SQLITE_TRANSIENT);
  return sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
}

int64_t sqliteCount(const std::filesystem::path& file, const std::string& table) {
  sqlite3* raw = nullptr;
  sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(raw, &sqlite3_close);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(raw, fmt::format("SELECT count(*) FROM \"{}\"", table).c_str(), -1, &st,
                         nullptr) != SQLITE_OK)
    return -1;
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> stmt(st, &sqlite3_finalize);
  return sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
}

int64_t pgCommitted(it::PgTestSchema& schema, const std::string& connector) {
  if (schema.scalar("SELECT to_regclass('ksink_offsets') IS NULL") == "t") return 0;
  return std::stoll(*schema.scalar(
      fmt::format("SELECT coalesce(sum(next_offset), 0) FROM ksink_offsets WHERE connector = '{}'",
                  connector)));
}

RunningSink launchKsink(const SinkCase& sink, const SinkSettings& settings,
                        const std::string& topic, const Destination& to) {
  const auto name = it::uniqueName("bench-" + sink.name);
  // The listener is served as in production, on a port of its own: 8083 may be another's.
  std::vector<std::pair<std::string, std::string>> worker{{"bootstrap.servers", settings.bootstrap},
                                                          {"listeners", "http://127.0.0.1:0"}};
  if (settings.commit_interval_ms)
    worker.emplace_back("offset.flush.interval.ms", std::to_string(*settings.commit_interval_ms));
  worker.insert(worker.end(), settings.ksink_worker.begin(), settings.ksink_worker.end());
  const bool pg = sink.kind == SinkKind::kPostgres;
  std::vector<std::pair<std::string, std::string>> connector{
      {"name", name},
      {"connector.class", pg ? "postgres" : "sqlite"},
      {"tasks.max", std::to_string(settings.tasks)},
      {"topics", topic},
      {"connection.url", pg ? to.schema->url() : "sqlite://" + to.sqlite_file.string()},
      {"table.name.format", to.table},
      {"insert.mode", sink.upsert ? "upsert" : "insert"}};
  if (sink.upsert)
    connector.insert(connector.end(), {{"pk.mode", "record_value"}, {"pk.fields", "id"}});
  for (auto& p : converterProps(sink.encoding, settings)) connector.push_back(std::move(p));
  writeProperties(settings.dir / (name + "-worker.properties"), worker);
  writeProperties(settings.dir / (name + ".properties"), connector);
  RunningSink running;
  running.process = std::make_unique<it::ChildProcess>(
      std::vector<std::string>{KSINK_BIN, "run",
                               (settings.dir / (name + "-worker.properties")).string(),
                               (settings.dir / (name + ".properties")).string()},
      settings.dir / (name + ".log"));
  if (pg)
    running.committed = [schema = to.schema, name] { return pgCommitted(*schema, name); };
  else
    running.committed = [file = to.sqlite_file, name] { return sqliteCommitted(file, name); };
  running.poll_every = std::chrono::milliseconds(5);
  running.timeout = std::chrono::minutes(10);
  return running;
}

// The peer keeps no offsets beside its rows: progress is the table's row count, read less often.
RunningSink launchPeer(const SinkCase& sink, const SinkSettings& settings, const std::string& topic,
                       const Destination& to, int64_t records) {
  const auto name = it::uniqueName("bench-" + sink.name);
  const auto jdbc = jdbcTarget(it::TestPostgres::shared().url());
  std::vector<std::string> argv{settings.peer_script, (settings.dir / name).string(),
                                settings.bootstrap};
  std::vector<std::pair<std::string, std::string>> props{
      {"name", name},
      {"connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector"},
      {"tasks.max", std::to_string(settings.tasks)},
      {"topics", topic},
      {"connection.url", jdbc.url},
      {"connection.username", jdbc.user},
      {"connection.password", ""},
      {"insert.mode", sink.upsert ? "upsert" : "insert"},
      {"primary.key.mode", sink.upsert ? "record_value" : "none"},
      {"collection.name.format", to.table.substr(to.table.find('.') + 1)},
      {"batch.size", std::to_string(settings.peer_batch_size)}};
  if (sink.upsert) props.emplace_back("primary.key.fields", "id");
  if (settings.peer_max_poll_records > 0)
    props.emplace_back("consumer.override.max.poll.records",
                       std::to_string(settings.peer_max_poll_records));
  // The worker's converter is already JsonConverter with schemas; a connector-level one would be
  // loaded through the JDBC plugin's class loader, whose Jackson clashes with the worker's.
  if (sink.encoding == Encoding::kAvro)
    throw std::invalid_argument("the peer has no Avro converter on its plugin path");
  if (sink.encoding == Encoding::kSchemaless)
    for (auto& p : converterProps(sink.encoding, settings)) props.push_back(std::move(p));
  writeProperties(settings.dir / (name + ".properties"), props);
  argv.push_back((settings.dir / (name + ".properties")).string());
  RunningSink running;
  running.process = std::make_unique<it::ChildProcess>(argv, settings.dir / (name + ".log"));
  running.committed = [schema = to.schema, table = to.table] { return pgCount(*schema, table); };
  running.poll_every = std::chrono::milliseconds(50);
  // A worker whose task failed keeps running: give up after start-up plus 10k rows/s.
  running.timeout = std::chrono::seconds(120 + records / 10000);
  return running;
}

}  // namespace

std::string peerTable(const it::PgTestSchema& schema, const std::string& name) {
  return fmt::format("public.{}_{}", schema.name(), name);
}

RunningSink launchSink(const SinkCase& sink, const SinkSettings& settings, const std::string& topic,
                       const Destination& to, int64_t records) {
  return sink.kind == SinkKind::kPeer ? launchPeer(sink, settings, topic, to, records)
                                      : launchKsink(sink, settings, topic, to);
}

Measurement measureSink(const SinkCase& sink, const SinkSettings& settings,
                        const std::string& topic, double topic_bytes, int64_t records,
                        const Destination& to) {
  auto running = launchSink(sink, settings, topic, to, records);
  auto& process = *running.process;
  const auto timing = it::timeProgress(
      running.committed, records, [&] { return process.running(); },
      [&] {
        return fmt::format("{} stopped or stalled (logs in {}):\n{}", sink.name,
                           settings.dir.string(), process.log());
      },
      running.timeout, running.poll_every);
  const auto usage = usageOf(process.pid());
  process.signal(SIGTERM);
  process.wait(std::chrono::seconds(60));
  const int64_t rows = sink.kind == SinkKind::kSqlite ? sqliteCount(to.sqlite_file, to.table)
                                                      : pgCount(*to.schema, to.table);
  if (rows != records)
    throw std::runtime_error(fmt::format("{}: {} rows in {} after {} were committed", sink.name,
                                         rows, to.table, records));
  return watchedMeasurement(sink.name, records, topic_bytes, timing, usage, "");
}

}  // namespace ksink::bench
