// SQLite sink throughput: Kafka → SQLite rows/s through a real `ksink` process, beside the limit
// measured in the same run on the same disk: a minimal loop inserting the same rows with one
// prepared statement in one transaction (the rows already parsed, so the ratio is what the
// whole pipeline — fetch, JSON parsing, mapping, per-batch commits with synchronous=FULL — costs).
//
//   bench/sqlite_sink_throughput [--records N] [--partitions P] [--rounds R] [--dir D]
//                                [--max-poll-records M] [--batch-size B]
//
// The clock for ksink runs from the first committed batch to the last (process start and group
// join excluded): progress is read from ksink_offsets in the database. Peak RSS is the ksink
// process's VmHWM. The broker is KSINK_TEST_BOOTSTRAP's, or one started for the run.
//
// Measured 2026-11-30 on the 2-core dev machine (RelWithDebInfo, load average ~1), 1M records of
// 172 B, 6 partitions, median of 3 rounds, max.poll.records = batch.size = 5000:
//   raw 954,543 rows/s, ksink 464,149 rows/s, ratio 0.49, peak RSS 235 MiB
// (before the worker's prefetch fix: 139,529 rows/s, ratio 0.17, 89 MiB). The ksink process is now
// busy the whole run: JSON parsing and row mapping (~1.2 us/row) plus one fsync per batch.

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "child_process.h"
#include "test_kafka.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

struct Row {
  int64_t id;
  std::string category;
  double amount;
  int64_t ts;
  std::string customer;
  std::string note;
};

Row makeRow(int64_t i) {
  return {i,
          fmt::format("category-{:02}", i % 37),
          static_cast<double>(i % 100000) / 100.0,
          1700000000000 + i,
          fmt::format("customer-{:08}", i * 7919 % 1000003),
          fmt::format("order {} shipped to warehouse {} with standard handling", i, i % 17)};
}

// ~200 bytes of schemaless JSON.
std::string toJson(const Row& r) {
  return fmt::format(
      R"({{"id":{},"category":"{}","amount":{:.2f},"ts":{},"customer":"{}","note":"{}"}})", r.id,
      r.category, r.amount, r.ts, r.customer, r.note);
}

void check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(fmt::format("{}: {}", what, sqlite3_errmsg(db)));
}

// The limit: the same rows, one prepared INSERT, one transaction, same pragmas as the sink.
double rawInsert(const fs::path& file, const std::vector<Row>& rows) {
  sqlite3* db = nullptr;
  check(sqlite3_open(file.c_str(), &db), db, "open");
  check(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", nullptr, nullptr,
                     nullptr),
        db, "pragmas");
  check(sqlite3_exec(db,
                     R"(CREATE TABLE t ("id" INTEGER, "category" TEXT, "amount" REAL, "ts" INTEGER,
                        "customer" TEXT, "note" TEXT))",
                     nullptr, nullptr, nullptr),
        db, "create");
  const auto start = Clock::now();
  check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db, "begin");
  sqlite3_stmt* st = nullptr;
  check(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?,?,?,?,?,?)", -1, &st, nullptr), db,
        "prepare");
  for (const auto& r : rows) {
    sqlite3_bind_int64(st, 1, r.id);
    sqlite3_bind_text(st, 2, r.category.data(), static_cast<int>(r.category.size()), SQLITE_STATIC);
    sqlite3_bind_double(st, 3, r.amount);
    sqlite3_bind_int64(st, 4, r.ts);
    sqlite3_bind_text(st, 5, r.customer.data(), static_cast<int>(r.customer.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, 6, r.note.data(), static_cast<int>(r.note.size()), SQLITE_STATIC);
    check(sqlite3_step(st), db, "insert");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  sqlite3_close(db);
  return secs;
}

int64_t storedTotal(const fs::path& file, const std::string& connector) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return 0;
  }
  sqlite3_busy_timeout(db, 1000);
  sqlite3_stmt* st = nullptr;
  int64_t total = 0;
  if (sqlite3_prepare_v2(
          db, "SELECT coalesce(sum(next_offset), 0) FROM ksink_offsets WHERE connector=?", -1, &st,
          nullptr) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, connector.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) total = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return total;
}

int64_t peakRssKb(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return 0;
}

struct SinkRun {
  double seconds = 0;
  int64_t rows = 0;  // rows the clock covers
  int64_t peak_rss_kb = 0;
};

SinkRun ksinkRun(const std::string& bootstrap, const std::string& topic, int64_t records,
                 const fs::path& dir, int max_poll_records, int batch_size) {
  const auto name = ksink::it::uniqueName("bench-sqlite");
  const auto db = dir / (name + ".db");
  const auto worker = dir / (name + "-worker.properties");
  std::ofstream(worker) << fmt::format(
      "bootstrap.servers={}\noffset.flush.interval.ms=5000\nconsumer.max.poll.records={}\n"
      "log.level=warn\n",
      bootstrap, max_poll_records);
  const auto connector = dir / (name + ".properties");
  std::ofstream(connector) << fmt::format(
      "name={}\nconnector.class=sqlite\ntopics={}\nconnection.url=sqlite://{}\n"
      "auto.create=true\ninsert.mode=insert\npk.mode=none\nbatch.size={}\n"
      "value.converter=json\nvalue.converter.schemas.enable=false\n",
      name, topic, db.string(), batch_size);
  ksink::it::ChildProcess ksink({KSINK_BIN, "run", worker.string(), connector.string()},
                                dir / (name + ".log"));
  int64_t first_rows = 0;
  Clock::time_point first{};
  int64_t done = 0;
  const auto deadline = Clock::now() + std::chrono::minutes(10);
  while ((done = storedTotal(db, name)) < records) {
    if (!ksink.running() || Clock::now() > deadline)
      throw std::runtime_error("ksink stopped or stalled:\n" + ksink.log());
    if (done > 0 && first_rows == 0) {
      first_rows = done;
      first = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  SinkRun run;
  run.seconds = std::chrono::duration<double>(Clock::now() - first).count();
  run.rows = records - first_rows;
  run.peak_rss_kb = peakRssKb(ksink.pid());
  ksink.signal(SIGTERM);
  ksink.wait(std::chrono::seconds(30));
  fs::remove(db);
  fs::remove(db.string() + "-wal");
  fs::remove(db.string() + "-shm");
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Kafka → SQLite sink throughput vs a raw prepared-statement insert loop"};
  int64_t records = 1'000'000;
  int partitions = 6, rounds = 3, max_poll_records = 5000, batch_size = 5000;
  std::string dir_arg;
  app.add_option("--records", records);
  app.add_option("--partitions", partitions);
  app.add_option("--rounds", rounds);
  app.add_option("--max-poll-records", max_poll_records, "consumer.max.poll.records for ksink");
  app.add_option("--batch-size", batch_size, "batch.size (rows per transaction) for ksink");
  app.add_option("--dir", dir_arg, "where the database files go (default: a temp dir)");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  const fs::path dir =
      dir_arg.empty() ? ksink::it::freshDir("ksink-bench-sqlite") : fs::path(dir_arg);

  // KSINK_TEST_BOOTSTRAP's broker, or one started for this run.
  auto& kafka = ksink::it::RealKafka::shared();
  const std::string bootstrap = kafka.bootstrap();
  const auto topic = ksink::it::uniqueName("bench-sqlite");
  kafka.createTopic(topic, partitions);
  std::vector<Row> rows;
  rows.reserve(static_cast<size_t>(records));
  size_t json_bytes = 0;
  std::vector<ksink::it::RealKafka::Message> batch;
  for (int64_t i = 0; i < records; ++i) {
    rows.push_back(makeRow(i));
    auto json = toJson(rows.back());
    json_bytes += json.size();
    batch.push_back({static_cast<int>(i % partitions), std::nullopt, std::move(json)});
    if (batch.size() == 100000 || i + 1 == records) {
      kafka.produce(topic, batch);
      batch.clear();
    }
  }

  std::vector<double> raw_rates, sink_rates;
  int64_t peak_rss_kb = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto raw_file = dir / fmt::format("raw-{}.db", r);
    const double raw_secs = rawInsert(raw_file, rows);
    fs::remove(raw_file);
    fs::remove(raw_file.string() + "-wal");
    fs::remove(raw_file.string() + "-shm");
    const auto sink = ksinkRun(bootstrap, topic, records, dir, max_poll_records, batch_size);
    raw_rates.push_back(static_cast<double>(records) / raw_secs);
    sink_rates.push_back(static_cast<double>(sink.rows) / sink.seconds);
    peak_rss_kb = std::max(peak_rss_kb, sink.peak_rss_kb);
    fmt::print(
        "round {}: raw insert loop {:.0f} rows/s, Kafka → ksink → SQLite {:.0f} rows/s "
        "(ratio {:.2f}), ksink peak RSS {} MiB\n",
        r + 1, raw_rates.back(), sink_rates.back(), sink_rates.back() / raw_rates.back(),
        sink.peak_rss_kb / 1024);
  }
  std::sort(raw_rates.begin(), raw_rates.end());
  std::sort(sink_rates.begin(), sink_rates.end());
  const double raw = raw_rates[raw_rates.size() / 2], sink = sink_rates[sink_rates.size() / 2];
  fmt::print(
      "\n{} records, {:.0f} B JSON each, {} partitions, median of {} rounds; "
      "max.poll.records={}, batch.size={}, synchronous=FULL, WAL\n",
      records, static_cast<double>(json_bytes) / static_cast<double>(records), partitions, rounds,
      max_poll_records, batch_size);
  fmt::print("{:<40}{:>16}\n", "raw prepared INSERT, one transaction",
             fmt::format("{:.0f} rows/s", raw));
  fmt::print("{:<40}{:>16}\n", "Kafka -> ksink sqlite sink", fmt::format("{:.0f} rows/s", sink));
  fmt::print("{:<40}{:>16.2f}\n", "ratio (aim >= 0.7)", sink / raw);
  fmt::print("{:<40}{:>16}\n", "ksink peak RSS", fmt::format("{} MiB", peak_rss_kb / 1024));
  return 0;
}
