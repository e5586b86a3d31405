// The Kafka and SQLite limits of physical_limits.h.
#include "physical_limits.h"

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <stdexcept>

#include "process_usage.h"

namespace ksink::bench {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t, Clock::time_point until = Clock::now()) {
  return std::chrono::duration<double>(until - t).count();
}

std::unique_ptr<rd_kafka_t, decltype(&rd_kafka_destroy)> groupConsumer(
    const std::string& bootstrap, const std::map<std::string, std::string>& overrides) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::map<std::string, std::string> props{{"bootstrap.servers", bootstrap},
                                           {"group.id", it::uniqueName("bench-raw")},
                                           {"auto.offset.reset", "earliest"},
                                           {"enable.auto.commit", "false"}};
  props.insert(overrides.begin(), overrides.end());
  for (const auto& [k, v] : props)
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      throw std::runtime_error(fmt::format("{}={}: {}", k, v, err));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) throw std::runtime_error(fmt::format("rd_kafka_new: {}", err));
  rd_kafka_poll_set_consumer(rk);
  return {rk, &rd_kafka_destroy};
}

void check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(fmt::format("{}: {}", what, sqlite3_errmsg(db)));
}

}  // namespace

Measurement kafkaRaw(const std::string& bootstrap, const BenchTopic& topic, int64_t records,
                     const std::map<std::string, std::string>& overrides) {
  auto rk = groupConsumer(bootstrap, overrides);
  resetSelfPeakRss();
  const auto before = usageOf(::getpid());
  const auto subscribed = Clock::now();
  auto* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic.name.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(rk.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  int64_t seen = 0;
  double bytes = 0;
  Clock::time_point first{};
  while (seen < records) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 100);
    if (!m) continue;
    if (!m->err) {
      if (seen++ == 0) first = Clock::now();
      bytes += static_cast<double>(m->len);
    }
    rd_kafka_message_destroy(m);
  }
  const auto last = Clock::now();
  const auto after = usageOf(::getpid());
  rd_kafka_consumer_close(rk.get());
  return {"kafka-raw",
          records,
          bytes,
          since(subscribed, first),
          since(subscribed, last),
          since(first, last),
          records - 1,
          after.cpu_s - before.cpu_s,
          after.peak_rss_kb,
          ""};
}

Measurement sqliteRaw(const std::filesystem::path& file, const std::vector<OrderRow>& rows) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open(file.c_str(), &raw);
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(raw, &sqlite3_close);
  check(rc, raw, "open");
  check(sqlite3_exec(raw, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", nullptr, nullptr,
                     nullptr),
        raw, "pragmas");
  check(sqlite3_exec(raw, fmt::format("CREATE TABLE t ({})", kSqliteColumns).c_str(), nullptr,
                     nullptr, nullptr),
        raw, "create");
  resetSelfPeakRss();
  const auto before = usageOf(::getpid());
  const auto start = Clock::now();
  check(sqlite3_exec(raw, "BEGIN", nullptr, nullptr, nullptr), raw, "begin");
  sqlite3_stmt* st = nullptr;
  check(sqlite3_prepare_v2(raw, "INSERT INTO t VALUES (?,?,?,?,?)", -1, &st, nullptr), raw,
        "prepare");
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> stmt(st, &sqlite3_finalize);
  double bytes = 0;
  for (const auto& r : rows) {
    sqlite3_bind_int64(st, 1, r.id);
    sqlite3_bind_text(st, 2, r.sku.data(), static_cast<int>(r.sku.size()), SQLITE_STATIC);
    sqlite3_bind_int(st, 3, r.qty);
    sqlite3_bind_double(st, 4, r.price);
    sqlite3_bind_text(st, 5, r.comment.data(), static_cast<int>(r.comment.size()), SQLITE_STATIC);
    check(sqlite3_step(st), raw, "insert");
    sqlite3_reset(st);
    bytes += static_cast<double>(rowBytes(r));
  }
  stmt.reset();
  check(sqlite3_exec(raw, "COMMIT", nullptr, nullptr, nullptr), raw, "commit");
  const double secs = since(start);
  const auto after = usageOf(::getpid());
  const auto n = static_cast<int64_t>(rows.size());
  return {"sqlite-raw",      n, bytes, -1, secs, secs, n, after.cpu_s - before.cpu_s,
          after.peak_rss_kb, ""};
}

}  // namespace ksink::bench
