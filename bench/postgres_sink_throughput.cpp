// PostgreSQL sink throughput: Kafka → PostgreSQL rows/s through a real `ksink` process, in insert
// mode and in upsert mode, beside the limit measured in the same run against the same server:
// PostgreSQL's own COPY of the same rows from a CSV file (streamed as psql's \copy does).
//
//   bench/postgres_sink_throughput [--records N] [--partitions P] [--rounds R]
//                                  [--max-poll-records M] [--batch-size B] [--keep]
//
// Rows: ~200 bytes of schemaless JSON, 6 columns (bigint, text, integer, double precision,
// timestamptz from epoch milliseconds, text). The ksink clock runs from the first committed batch
// to the last (process start and group join excluded), read from ksink_offsets; the raw COPY clock
// covers the one COPY statement and its commit. Peak RSS is the ksink process's VmHWM. For
// comparison the same records are also handed straight to a PostgresSinkTask in-process (no
// Kafka, no worker): what the sink itself sustains.
// The broker is KSINK_TEST_BOOTSTRAP's and the server KSINK_TEST_PG_URL's, or ones started for
// the run.
//
// Measured 2026-11-30 on the 2-core dev machine (RelWithDebInfo, load average <= 1.4), 1M records
// of 187 B, 6 partitions, max.poll.records = batch.size = 20000, median of 5 rounds, after
// pipelined inserts and streamed upserts:
//   COPY FROM csv (the limit) 445,678 rows/s; into the primary-keyed table 349,089 rows/s
//   Kafka → ksink, insert     498,326 rows/s  1.12x (rounds 0.92-1.25)   peak RSS 234-326 MiB
//   Kafka → ksink, upsert     312,524 rows/s  0.70x (rounds 0.62-0.78)   (0.90x of keyed COPY)
//   the sink alone, insert    620,864 rows/s  1.39x
//   the sink alone, upsert    350,041 rows/s  0.79x
// The COPY limit itself ranged 390-740k rows/s across runs that day, so each round's ratio is
// against that round's COPY; see docs/postgres-sink.md.

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <libpq-fe.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "child_process.h"
#include "fake_sink_task_context.h"
#include "ksink/postgres/postgres_sink_task.h"
#include "polling.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using ksink::it::PgTestSchema;

constexpr const char* kColumns =
    "id bigint, sku text, qty integer, price double precision, created timestamptz, comment text";

// Record i as schemaless JSON (what ksink reads) and as a CSV line (what COPY reads).
std::string orderJson(int64_t i) {
  return fmt::format(
      R"({{"id":{},"sku":"SKU-{:06}-{:02}","qty":{},"price":{}.{:02},"created":{},)"
      R"("comment":"order {} for store {:03}, packed in crate {:05} and left at dock {} for the morning truck"}})",
      i, i % 250000, i % 89, 1 + i % 40, i % 9000, i % 100, 1700000000000 + i * 1000, i, i % 512,
      i % 65536, i % 12);
}

std::string orderCsv(int64_t i) {
  const int64_t secs = 1700000000 + i;
  const auto t = std::chrono::sys_seconds{std::chrono::seconds{secs}};
  return fmt::format(
      "{},SKU-{:06}-{:02},{},{}.{:02},{:%Y-%m-%d %H:%M:%S}+00,"
      "\"order {} for store {:03}, packed in crate {:05} and left at dock {} for the morning "
      "truck\"\n",
      i, i % 250000, i % 89, 1 + i % 40, i % 9000, i % 100, t, i, i % 512, i % 65536, i % 12);
}

// The limit: one COPY ... FROM STDIN (FORMAT csv) of the file, one transaction.
double rawCopy(const std::string& url, const std::string& table, const fs::path& csv) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK)
    throw std::runtime_error(fmt::format("connect: {}", PQerrorMessage(conn)));
  std::ifstream in(csv, std::ios::binary);
  std::vector<char> buf(1 << 20);
  const auto start = Clock::now();
  PGresult* r = PQexec(conn, fmt::format("COPY {} FROM STDIN (FORMAT csv)", table).c_str());
  if (PQresultStatus(r) != PGRES_COPY_IN) throw std::runtime_error(PQerrorMessage(conn));
  PQclear(r);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
    PQputCopyData(conn, buf.data(), static_cast<int>(in.gcount()));
  PQputCopyEnd(conn, nullptr);
  r = PQgetResult(conn);
  if (PQresultStatus(r) != PGRES_COMMAND_OK) throw std::runtime_error(PQerrorMessage(conn));
  PQclear(r);
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  PQfinish(conn);
  return secs;
}

int64_t vmHwmKb(pid_t pid) {
  std::ifstream status(fmt::format("/proc/{}/status", pid));
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmHWM:")) return std::stoll(line.substr(6));
  return 0;
}

struct SinkRun {
  double seconds = 0;
  int64_t rows = 0;
  int64_t peak_rss_kb = 0;
};

SinkRun ksinkRun(PgTestSchema& schema, const std::string& topic, const std::string& mode,
                 int64_t records, const fs::path& dir, int max_poll_records, int batch_size,
                 int fetch_bytes) {
  const auto name = ksink::it::uniqueName("bench-pg-" + mode);
  const auto worker = dir / (name + "-worker.properties");
  std::ofstream(worker) << fmt::format(
      "bootstrap.servers={}\noffset.flush.interval.ms=5000\nconsumer.max.poll.records={}\n"
      "log.level=warn\nconsumer.max.partition.fetch.bytes={}\n",
      ksink::it::RealKafka::shared().bootstrap(), max_poll_records, fetch_bytes);
  const auto connector = dir / (name + ".properties");
  std::ofstream(connector) << fmt::format(
      "name={}\nconnector.class=postgres\ntopics={}\nconnection.url={}\ntable.name.format={}\n"
      "insert.mode={}\npk.mode={}\npk.fields={}\nbatch.size={}\nvalue.converter=json\n"
      "value.converter.schemas.enable=false\n",
      name, topic, schema.url(), mode, mode, mode == "upsert" ? "record_value" : "none",
      mode == "upsert" ? "id" : "", batch_size);
  ksink::it::ChildProcess ksink({KSINK_BIN, "run", worker.string(), connector.string()},
                                dir / (name + ".log"));
  const auto progress = fmt::format(
      "SELECT coalesce(sum(next_offset), 0) FROM ksink_offsets WHERE connector = '{}'", name);
  auto stored = [&]() -> int64_t {
    if (schema.scalar("SELECT to_regclass('ksink_offsets') IS NULL") == "t") return 0;
    return std::stoll(*schema.scalar(progress));
  };
  const auto timing = ksink::it::timeProgress(
      stored, records, [&] { return ksink.running(); },
      [&] { return "ksink stopped or stalled:\n" + ksink.log(); }, std::chrono::minutes(10));
  SinkRun run{timing.seconds, timing.units, vmHwmKb(ksink.pid())};
  ksink.signal(SIGTERM);
  ksink.wait(std::chrono::seconds(30));
  return run;
}

// The sink alone: the same records handed to a PostgresSinkTask in-process, `per_put` at a time
// (no Kafka, no worker), so the sink's own cost can be told apart from the pipeline's.
double inProcessRun(PgTestSchema& schema, const std::string& topic,
                    const std::vector<std::string>& values, int partitions, const std::string& mode,
                    int per_put, int batch_size) {
  std::map<std::string, std::string> props{{"name", ksink::it::uniqueName("inproc-" + mode)},
                                           {"connection.url", schema.url()},
                                           {"table.name.format", "inproc_" + mode},
                                           {"insert.mode", mode},
                                           {"pk.mode", mode == "upsert" ? "record_value" : "none"},
                                           {"batch.size", std::to_string(batch_size)},
                                           {"value.converter", "json"},
                                           {"value.converter.schemas.enable", "false"}};
  if (mode == "upsert") props["pk.fields"] = "id";
  const ksink::Config config(props, ksink::postgres::PostgresSinkTask::configDef());
  std::vector<ksink::SinkRecord> records;
  records.reserve(values.size());
  std::vector<ksink::TopicPartition> assigned;
  for (int p = 0; p < partitions; ++p) assigned.push_back({topic, p});
  for (size_t i = 0; i < values.size(); ++i)
    records.emplace_back(topic, static_cast<int32_t>(i % static_cast<size_t>(partitions)),
                         static_cast<int64_t>(i / static_cast<size_t>(partitions)), std::nullopt,
                         std::nullopt, values[i]);
  ksink::testing::FakeSinkTaskContext context;
  ksink::postgres::PostgresSinkTask task;
  task.initialize(context);
  task.start(config);
  task.open(assigned);
  const auto start = Clock::now();
  const std::span<const ksink::SinkRecord> all(records);
  for (size_t at = 0; at < all.size(); at += static_cast<size_t>(per_put))
    task.put(all.subspan(at, std::min(static_cast<size_t>(per_put), all.size() - at)));
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  task.stop();
  return static_cast<double>(values.size()) / secs;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Kafka → PostgreSQL sink throughput (insert, upsert) vs PostgreSQL's own COPY"};
  int64_t records = 1'000'000;
  int partitions = 6, rounds = 3, max_poll_records = 20000, batch_size = 20000;
  app.add_option("--records", records);
  app.add_option("--partitions", partitions);
  app.add_option("--rounds", rounds);
  app.add_option("--max-poll-records", max_poll_records, "consumer.max.poll.records for ksink");
  app.add_option("--batch-size", batch_size, "batch.size (most records per transaction)");
  int fetch_bytes = 8 << 20;
  app.add_option("--fetch-bytes", fetch_bytes,
                 "consumer.max.partition.fetch.bytes for ksink (librdkafka's default is 1 MiB)");
  bool keep = false;
  app.add_flag("--keep", keep, "keep the work directory (ksink logs, configs, the CSV file)");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  const fs::path dir = ksink::it::freshDir("ksink-bench-pg");

  auto& kafka = ksink::it::RealKafka::shared();
  auto schema = ksink::it::TestPostgres::shared().freshSchema("bench");
  const auto topic = ksink::it::uniqueName("bench-pg");
  kafka.createTopic(topic, partitions);
  const auto csv = dir / "rows.csv";
  size_t json_bytes = 0;
  std::vector<std::string> values;
  values.reserve(static_cast<size_t>(records));
  {
    std::ofstream out(csv, std::ios::binary);
    std::vector<ksink::it::RealKafka::Message> batch;
    for (int64_t i = 0; i < records; ++i) {
      out << orderCsv(i);
      auto json = orderJson(i);
      json_bytes += json.size();
      values.push_back(json);
      batch.push_back({static_cast<int>(i % partitions), std::nullopt, std::move(json)});
      if (batch.size() == 100000 || i + 1 == records) {
        kafka.produce(topic, batch);
        batch.clear();
      }
    }
  }

  std::vector<double> raw, raw_pk, insert, upsert, alone_insert, alone_upsert;
  int64_t rss_insert = 0, rss_upsert = 0;
  for (int r = 0; r < rounds; ++r) {
    schema->exec(fmt::format(
        "DROP TABLE IF EXISTS raw, raw_pk, insert, upsert, inproc_insert, inproc_upsert; "
        "CREATE TABLE raw ({0}); CREATE TABLE insert ({0}); CREATE TABLE inproc_insert ({0}); "
        "CREATE TABLE raw_pk ({0}, PRIMARY KEY (id)); "
        "CREATE TABLE upsert ({0}, PRIMARY KEY (id)); "
        "CREATE TABLE inproc_upsert ({0}, PRIMARY KEY (id)); CHECKPOINT",
        kColumns));
    raw.push_back(static_cast<double>(records) / rawCopy(schema->url(), "raw", csv));
    schema->exec("CHECKPOINT");
    raw_pk.push_back(static_cast<double>(records) / rawCopy(schema->url(), "raw_pk", csv));
    schema->exec("CHECKPOINT");
    const auto ins =
        ksinkRun(*schema, topic, "insert", records, dir, max_poll_records, batch_size, fetch_bytes);
    insert.push_back(static_cast<double>(ins.rows) / ins.seconds);
    schema->exec("CHECKPOINT");
    const auto ups =
        ksinkRun(*schema, topic, "upsert", records, dir, max_poll_records, batch_size, fetch_bytes);
    upsert.push_back(static_cast<double>(ups.rows) / ups.seconds);
    schema->exec("CHECKPOINT");
    alone_insert.push_back(
        inProcessRun(*schema, topic, values, partitions, "insert", max_poll_records, batch_size));
    schema->exec("CHECKPOINT");
    alone_upsert.push_back(
        inProcessRun(*schema, topic, values, partitions, "upsert", max_poll_records, batch_size));
    rss_insert = std::max(rss_insert, ins.peak_rss_kb);
    rss_upsert = std::max(rss_upsert, ups.peak_rss_kb);
    fmt::print(
        "round {}: raw COPY {:.0f} rows/s, insert {:.0f} rows/s ({:.2f}x), upsert {:.0f} "
        "rows/s ({:.2f}x); peak RSS insert {} MiB, upsert {} MiB\n",
        r + 1, raw.back(), insert.back(), insert.back() / raw.back(), upsert.back(),
        upsert.back() / raw.back(), ins.peak_rss_kb / 1024, ups.peak_rss_kb / 1024);
  }
  const double limit = median(raw), limit_pk = median(raw_pk), ins = median(insert),
               ups = median(upsert);
  fmt::print(
      "\n{} records, {:.0f} B JSON each, {} partitions, median of {} rounds; "
      "consumer.max.poll.records={}, batch.size={}, max.partition.fetch.bytes={}\n",
      records, static_cast<double>(json_bytes) / static_cast<double>(records), partitions, rounds,
      max_poll_records, batch_size, fetch_bytes);
  fmt::print("{:<44}{:>16}\n", "PostgreSQL COPY FROM csv file (the limit)",
             fmt::format("{:.0f} rows/s", limit));
  fmt::print("{:<44}{:>16}  {:.2f}x (aim >= 0.8)\n", "Kafka -> ksink postgres, insert.mode=insert",
             fmt::format("{:.0f} rows/s", ins), ins / limit);
  fmt::print("{:<44}{:>16}  {:.2f}x (aim >= 0.5)\n", "Kafka -> ksink postgres, insert.mode=upsert",
             fmt::format("{:.0f} rows/s", ups), ups / limit);
  fmt::print("{:<44}{:>16}  upsert {:.2f}x of it\n", "COPY FROM csv into the primary-keyed table",
             fmt::format("{:.0f} rows/s", limit_pk), ups / limit_pk);
  const double alone_ins = median(alone_insert), alone_ups = median(alone_upsert);
  fmt::print("{:<44}{:>16}  {:.2f}x\n", "the sink alone (in-process puts), insert",
             fmt::format("{:.0f} rows/s", alone_ins), alone_ins / limit);
  fmt::print("{:<44}{:>16}  {:.2f}x\n", "the sink alone (in-process puts), upsert",
             fmt::format("{:.0f} rows/s", alone_ups), alone_ups / limit);
  fmt::print("{:<44}{:>16}\n", "ksink peak RSS (insert / upsert)",
             fmt::format("{} / {} MiB", rss_insert / 1024, rss_upsert / 1024));
  if (keep)
    fmt::print("work directory kept: {}\n", dir.string());
  else
    fs::remove_all(dir);
  return 0;
}
