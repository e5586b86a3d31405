// Pipeline benchmark: the whole Kafka → database pipeline against its physical limits, in one run,
// on the same broker, PostgreSQL server and rows.
//
//   bench/pipeline_benchmark [--records N] [--tasks T] [--rounds R] [--only CASE,...]
//                            [--commit-interval-ms MS,...] [--peer|--no-peer] [--peer-script S]
//                            [--peer-batch-size B] [--peer-max-poll-records M]
//                            [--latency|--no-latency] [--rate R]
//                            [--latency-seconds S] [--ksink-set key=value ...] [--keep]
//
// Data: N rows (id int64, sku string, qty int32, price double, comment of ~80 characters)
// produced once into three 6-partition topics, Kafka Connect's JSON envelope with schemas,
// schemaless JSON, and Avro in Confluent's wire format (the schema in the registry that
// KSINK_TEST_REGISTRY_URL names, or one the benchmark starts). Tables have no key for insert,
// PRIMARY KEY (id) for upsert. Cases (--only takes these names; "limits", "ksink", "peer" select
// groups):
//   limits (physical_limits.h)  pg-binary-copy (the insert limit), pg-staging-upsert (the upsert
//   limit),
//                      kafka-raw (librdkafka defaults, envelope topic), sqlite-raw;
//   ksink              a real `ksink run` process with default settings except tasks.max, the
//                      converter and the mode: ksink-pg-{insert,upsert}-{envelope,schemaless,avro},
//                      ksink-sqlite-insert-{envelope,schemaless,avro};
//   peer (--peer)      Kafka Connect + the Debezium JDBC sink (bench/peer/connect-sink.sh):
//                      peer-pg-{insert,upsert}-envelope, batch.size --peer-batch-size;
//   latency            rows produced at --rate for --latency-seconds while ksink (postgres
//                      insert, defaults; and the peer with --peer) runs: p50/p99 of commit seen −
//                      produced (latency.h).
// Figures: rows/s from launch and steady (first row to last row); MB/s of input bytes (Kafka
// values, or the COPY stream, or plain row values) from launch; CPU s (user + sys) and peak RSS
// (VmHWM) of the measured process — the ksink or JVM process read from /proc before SIGTERM, or
// this process for a limit; launch to the first committed row; steady rows/s as a ratio of the
// case's limit and of kafka-raw. --commit-interval-ms 100,60000 runs the ksink cases once per
// offset.flush.interval.ms. The broker is KSINK_TEST_BOOTSTRAP's and the server
// KSINK_TEST_PG_URL's, or ones started for the run.

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <set>

#include "bench_data.h"
#include "latency.h"
#include "physical_limits.h"
#include "report.h"
#include "sink_process.h"
#include "test_kafka.h"
#include "test_postgres.h"
#include "test_schema_registry.h"

namespace {

namespace fs = std::filesystem;
using namespace ksink::bench;

struct Options {
  int64_t records = 1'000'000;
  int tasks = 2, rounds = 1, partitions = 6;
  std::vector<std::string> only;
  std::vector<int64_t> commit_intervals_ms;
  bool peer = false, latency = true, keep = false;
  std::string peer_script = KSINK_SOURCE_DIR "/bench/peer/connect-sink.sh";
  int peer_batch_size = 3000;
  int peer_max_poll_records = 0;
  std::vector<std::string> ksink_set;  // key=value worker settings for every ksink process
  LatencySettings load;
};

struct Data {
  std::vector<OrderRow> rows;
  BenchTopic envelope, schemaless, avro;
};

class Selection {
 public:
  explicit Selection(const std::vector<std::string>& only) : only_(only.begin(), only.end()) {}
  bool wants(const std::string& group, const std::string& name) const {
    return only_.empty() || only_.contains(group) || only_.contains(name);
  }

 private:
  std::set<std::string> only_;
};

std::string tableOf(std::string name) {
  for (auto& c : name)
    if (c == '-' || c == '@' || c == '=') c = '_';
  return name;
}

void createPgTable(ksink::it::PgTestSchema& schema, const std::string& table, bool keyed) {
  schema.exec(fmt::format("DROP TABLE IF EXISTS {0}; CREATE TABLE {0} ({1}{2}); CHECKPOINT", table,
                          kPgColumns, keyed ? ", PRIMARY KEY (id)" : ""));
}

void createSqliteTable(const fs::path& file, const std::string& table) {
  sqlite3* db = nullptr;
  sqlite3_open(file.c_str(), &db);
  const int rc =
      sqlite3_exec(db, fmt::format("CREATE TABLE \"{}\" ({})", table, kSqliteColumns).c_str(),
                   nullptr, nullptr, nullptr);
  sqlite3_close(db);
  if (rc != SQLITE_OK)
    throw std::runtime_error("cannot create the SQLite table in " + file.string());
}

void removeSqlite(const fs::path& file) {
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(file.string() + suffix);
}

void runLimits(const Options& opt, const Selection& sel, const Data& data,
               ksink::it::PgTestSchema& schema, const fs::path& dir, Round& round) {
  if (sel.wants("limits", "pg-binary-copy")) {
    createPgTable(schema, "limit_copy", false);
    round.push_back(pgBinaryCopy(schema.url(), "limit_copy", data.rows, opt.tasks));
    schema.exec("DROP TABLE limit_copy");
  }
  if (sel.wants("limits", "pg-staging-upsert")) {
    createPgTable(schema, "limit_upsert", true);
    round.push_back(pgStagingUpsert(schema.url(), "limit_upsert", data.rows, opt.tasks));
    schema.exec("DROP TABLE limit_upsert");
  }
  if (sel.wants("limits", "kafka-raw"))
    round.push_back(
        kafkaRaw(ksink::it::RealKafka::shared().bootstrap(), data.envelope, opt.records));
  if (sel.wants("limits", "sqlite-raw")) {
    const auto file = dir / "limit.db";
    round.push_back(sqliteRaw(file, data.rows));
    removeSqlite(file);
  }
}

std::vector<SinkCase> sinkCases(const Options& opt, const Selection& sel) {
  using E = Encoding;
  std::vector<SinkCase> all{
      {"ksink-pg-insert-envelope", SinkKind::kPostgres, false, E::kEnvelope},
      {"ksink-pg-insert-schemaless", SinkKind::kPostgres, false, E::kSchemaless},
      {"ksink-pg-insert-avro", SinkKind::kPostgres, false, E::kAvro},
      {"ksink-pg-upsert-envelope", SinkKind::kPostgres, true, E::kEnvelope},
      {"ksink-pg-upsert-schemaless", SinkKind::kPostgres, true, E::kSchemaless},
      {"ksink-pg-upsert-avro", SinkKind::kPostgres, true, E::kAvro},
      {"ksink-sqlite-insert-envelope", SinkKind::kSqlite, false, E::kEnvelope},
      {"ksink-sqlite-insert-schemaless", SinkKind::kSqlite, false, E::kSchemaless},
      {"ksink-sqlite-insert-avro", SinkKind::kSqlite, false, E::kAvro},
      {"peer-pg-insert-envelope", SinkKind::kPeer, false, E::kEnvelope},
      {"peer-pg-upsert-envelope", SinkKind::kPeer, true, E::kEnvelope}};
  std::vector<SinkCase> chosen;
  for (auto& c : all) {
    const bool peer = c.kind == SinkKind::kPeer;
    if ((!peer || opt.peer) && sel.wants(peer ? "peer" : "ksink", c.name)) chosen.push_back(c);
  }
  return chosen;
}

std::string limitOf(const SinkCase& c) {
  if (c.kind == SinkKind::kSqlite) return "sqlite-raw";
  return c.upsert ? "pg-staging-upsert" : "pg-binary-copy";
}

Measurement runSinkCase(SinkCase c, const SinkSettings& settings, const Data& data,
                        ksink::it::PgTestSchema& schema, int64_t records) {
  if (settings.commit_interval_ms && c.kind != SinkKind::kPeer)
    c.name += fmt::format("@flush={}ms", *settings.commit_interval_ms);
  Destination to{&schema,
                 {},
                 c.kind == SinkKind::kPeer ? peerTable(schema, tableOf(c.name)) : tableOf(c.name)};
  if (c.kind == SinkKind::kSqlite) {
    to.sqlite_file = settings.dir / (to.table + ".db");
    createSqliteTable(to.sqlite_file, to.table);
  } else {
    createPgTable(schema, to.table, c.upsert);
  }
  const auto& topic = c.encoding == Encoding::kAvro       ? data.avro
                      : c.encoding == Encoding::kEnvelope ? data.envelope
                                                          : data.schemaless;
  auto m = measureSink(c, settings, topic.name, topic.value_bytes, records, to);
  m.limit = limitOf(c);
  if (c.kind == SinkKind::kSqlite)
    removeSqlite(to.sqlite_file);
  else
    schema.exec(fmt::format("DROP TABLE {}", to.table));
  return m;
}

SinkSettings sinkSettings(const Options& opt, const fs::path& dir) {
  SinkSettings settings{ksink::it::RealKafka::shared().bootstrap(),
                        dir,
                        opt.tasks,
                        std::nullopt,
                        opt.peer_script,
                        opt.peer_batch_size,
                        opt.peer_max_poll_records,
                        {},
                        ksink::it::TestSchemaRegistry::url()};
  for (const auto& kv : opt.ksink_set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(fmt::format("--ksink-set {}: expected key=value", kv));
    settings.ksink_worker.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return settings;
}

Round runRound(const Options& opt, const Selection& sel, const Data& data, const fs::path& dir) {
  auto schema = ksink::it::TestPostgres::shared().freshSchema("bench");
  Round round;
  runLimits(opt, sel, data, *schema, dir, round);
  auto settings = sinkSettings(opt, dir);
  std::vector<std::optional<int64_t>> intervals{std::nullopt};
  if (!opt.commit_intervals_ms.empty())
    intervals.assign(opt.commit_intervals_ms.begin(), opt.commit_intervals_ms.end());
  for (const auto& c : sinkCases(opt, sel)) {
    for (const auto& interval : c.kind == SinkKind::kPeer
                                    ? std::vector<std::optional<int64_t>>{std::nullopt}
                                    : intervals) {
      settings.commit_interval_ms = interval;
      try {
        round.push_back(runSinkCase(c, settings, data, *schema, opt.records));
      } catch (const std::exception& e) {  // one broken case leaves the others' figures
        fmt::print(stderr, "{} failed: {:.2000}\n", c.name, e.what());
      }
    }
  }
  return round;
}

std::vector<LatencyResult> runLatency(const Options& opt, const fs::path& dir) {
  auto schema = ksink::it::TestPostgres::shared().freshSchema("bench_latency");
  const auto settings = sinkSettings(opt, dir);
  std::vector<SinkCase> sinks{
      {"ksink-pg-insert-envelope", SinkKind::kPostgres, false, Encoding::kEnvelope}};
  if (opt.peer)
    sinks.push_back({"peer-pg-insert-envelope", SinkKind::kPeer, false, Encoding::kEnvelope});
  std::vector<LatencyResult> out;
  for (const auto& sink : sinks) {
    try {
      out.push_back(
          measureLatency(sink, settings, opt.load, ksink::it::RealKafka::shared(), *schema));
    } catch (const std::exception& e) {
      fmt::print(stderr, "latency {} failed: {:.2000}\n", sink.name, e.what());
    }
  }
  return out;
}

void printSettings(const Options& opt, const Data& data) {
  const auto n = static_cast<double>(opt.records);
  fmt::print(
      "{} records, {} partitions; values {:.0f} B with schemas, {:.0f} B schemaless, {:.0f} B "
      "Avro; row values {} B\n",
      opt.records, opt.partitions, data.envelope.value_bytes / n, data.schemaless.value_bytes / n,
      data.avro.value_bytes / n, rowBytes(data.rows.front()));
  fmt::print(
      "limits: {} connections, one transaction each; kafka-raw with librdkafka's defaults; "
      "sqlite-raw WAL + synchronous=FULL, one transaction\n",
      opt.tasks);
  fmt::print(
      "ksink: defaults (batch.size and max.poll.records 10000, a 2 MiB prefetch per task) except "
      "tasks.max={}, the converter (JsonConverter; AvroConverter for the -avro cases), "
      "insert.mode/pk.mode{}; offset.flush.interval.ms {}\n",
      opt.tasks, opt.ksink_set.empty() ? "" : fmt::format(", {}", fmt::join(opt.ksink_set, ", ")),
      opt.commit_intervals_ms.empty()
          ? std::string("default (60000)")
          : fmt::format("{}", fmt::join(opt.commit_intervals_ms, ", ")));
  if (opt.peer)
    fmt::print("peer: {} batch.size={}, tasks.max={}, max.poll.records={}\n", opt.peer_script,
               opt.peer_batch_size, opt.tasks,
               opt.peer_max_poll_records > 0 ? std::to_string(opt.peer_max_poll_records)
                                             : std::string("500 (Connect's default)"));
  else
    fmt::print("peer: off ({})\n",
               fs::exists(opt.peer_script) ? "--no-peer" : opt.peer_script + " not found");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The Kafka → database pipeline against its physical limits, in one run"};
  Options opt;
  app.add_option("--records", opt.records, "rows per topic");
  app.add_option("--tasks", opt.tasks, "ksink/peer tasks.max, and the limits' connections");
  app.add_option("--rounds", opt.rounds, "repeat every case; prints each round and the median");
  app.add_option("--only", opt.only, "cases or groups (limits, ksink, peer, latency)")
      ->delimiter(',');
  app.add_option("--commit-interval-ms", opt.commit_intervals_ms,
                 "ksink offset.flush.interval.ms; a list runs the ksink cases once per value")
      ->delimiter(',');
  opt.peer = fs::exists(opt.peer_script);
  app.add_option("--peer-script", opt.peer_script, "Kafka Connect + Debezium JDBC sink launcher");
  app.add_flag("--peer,!--no-peer", opt.peer, "run the peer cases (default: if the script exists)");
  app.add_option("--peer-batch-size", opt.peer_batch_size, "the peer's batch.size");
  app.add_option("--peer-max-poll-records", opt.peer_max_poll_records,
                 "the peer's consumer.override.max.poll.records (default: Connect's 500, which "
                 "bounds its batches: every put() ends in a flush)");
  app.add_flag("--latency,!--no-latency", opt.latency, "run the latency case (default on)");
  app.add_option("--rate", opt.load.rate, "latency: records per second");
  app.add_option("--latency-seconds", opt.load.seconds, "latency: how long to produce");
  app.add_option(
      "--ksink-set", opt.ksink_set,
      "key=value for every ksink worker (e.g. consumer.queued.max.messages.kbytes=4096)");
  app.add_flag("--keep", opt.keep, "keep the work directory (configs, logs)");
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each table line as it is measured
  if (app.count("--peer-script") && !app.count("--peer")) opt.peer = fs::exists(opt.peer_script);
  spdlog::set_level(spdlog::level::warn);
  const Selection sel(opt.only);
  const fs::path dir = ksink::it::freshDir("ksink-bench-pipeline");

  auto& kafka = ksink::it::RealKafka::shared();
  Data data{orderRows(opt.records), {}, {}, {}};
  data.envelope = produceTopic(kafka, "bench-envelope", data.rows, opt.partitions, envelopeJson);
  data.schemaless =
      produceTopic(kafka, "bench-schemaless", data.rows, opt.partitions, schemalessJson);
  data.avro = produceTopic(kafka, "bench-avro", data.rows, opt.partitions,
                           avroEncoder(ksink::it::TestSchemaRegistry::url()));
  printSettings(opt, data);

  std::vector<Round> rounds;
  for (int r = 0; r < opt.rounds; ++r) {
    rounds.push_back(runRound(opt, sel, data, dir));
    printRound(fmt::format("round {} of {}", r + 1, opt.rounds), rounds.back());
  }
  printSummary(rounds);
  if (opt.latency && sel.wants("latency", "latency")) printLatency(runLatency(opt, dir));
  if (opt.keep)
    fmt::print("\nwork directory kept: {}\n", dir.string());
  else
    fs::remove_all(dir);
  return 0;
}
