// The table sources against their limit and their peer, in one run: a PostgreSQL table of N rows
// into a topic of one partition.
//
//   copy-raw            the limit: this process reads the table with COPY (SELECT …) TO STDOUT
//                       through libpq and produces each row as the record ksink's source writes
//                       for it (key and value in Connect's JSON envelope with schemas, the same
//                       bytes) through raw librdkafka with the source producer's settings
//                       (acks=all, idempotence, murmur2), from connecting to the last
//                       acknowledgement
//   ksink-bulk          `ksink run` with Confluent's JdbcSourceConnector keys at their defaults
//   ksink-incrementing  (batch.max.rows=100, offsets in a standalone file), mode=bulk and
//                       mode=incrementing on the primary key, from launch to the Nth record
//   ksink-incrementing-eos-poll, ksink-incrementing-eos-interval
//                       the same incrementing read exactly once (offsets in a topic, in the
//                       records' transactions): a transaction per poll() or every 250 ms
//   debezium            the Debezium 3.5.0 PostgreSQL source's initial snapshot of the table in
//                       Kafka Connect 4.1.1 standalone, JVM defaults (bench/peer/connect-sink.sh,
//                       KSINK_PEER_CONNECTOR=postgres), from launch to the Nth record
//
// Progress is the topic's end offset, polled every 20 ms; CPU and peak RSS (VmHWM) are read from
// /proc before a process is stopped. Each case's topic is deleted after it (Debezium's records
// with their schemas are ~3 GB a million). Rounds alternate the cases; the summary gives each
// figure's median and the min–max of the ratio to the limit, and ksink's launch-to-last rate over
// the peer's.
//
//   table_source_benchmark [--rows N] [--rounds R] [--no-peer] [--ksink-property key=value]...
// The broker: KSINK_TEST_BOOTSTRAP, PostgreSQL: KSINK_TEST_PG_URL; each started here when unset
// (tests/support).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "debezium_source.h"
#include "ksink/detail/json_string.h"
#include "ksink/iso_time_reader.h"
#include "measurement.h"
#include "process_usage.h"
#include "report.h"
#include "source_process.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kLimit = "copy-raw";
constexpr const char* kColumns = "id, customer, qty, price, note, updated_at";

// ~100 bytes of row; a third of the notes NULL; timestamps a millisecond apart.
void createTable(it::PgTestSchema& schema, int64_t rows) {
  schema.exec(
      "CREATE TABLE orders (id bigint PRIMARY KEY, customer text NOT NULL, qty integer NOT NULL, "
      "price double precision NOT NULL, note text, updated_at timestamp NOT NULL)");
  schema.exec(fmt::format(
      "INSERT INTO orders SELECT i, 'customer-' || (i % 1000), i % 100, (i % 10000) / 100.0, "
      "CASE WHEN i % 3 = 0 THEN NULL ELSE 'note about order ' || i END, "
      "timestamp '2026-01-01' + i * interval '1 millisecond' FROM generate_series(1, {}) i",
      rows));
  schema.exec("VACUUM ANALYZE orders");
}

// The envelopes' schema parts, as the JDBC source's records carry them (checked against ksink's
// records by hand: `kcat -C -t <topic> -c 1`).
constexpr std::string_view kKeyPrefix =
    R"({"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"}],)"
    R"("optional":false},"payload":{"id":)";
constexpr std::string_view kValuePrefix =
    R"({"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"},)"
    R"({"type":"string","optional":false,"field":"customer"},)"
    R"({"type":"int32","optional":false,"field":"qty"},)"
    R"({"type":"double","optional":false,"field":"price"},)"
    R"({"type":"string","optional":true,"field":"note"},)"
    R"({"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp",)"
    R"("version":1,"field":"updated_at"}],"optional":false,"name":"orders"},"payload":{"id":)";

int64_t epochMillis(std::string_view timestamp) {
  IsoTimeReader r(timestamp);
  int64_t days = 0, nanos = 0;
  if (!r.date(days) || !r.literal(' ') || !r.time(nanos) || !r.done())
    throw std::runtime_error(fmt::format("COPY gave the timestamp '{}'", timestamp));
  return days * 86400000 + nanos / 1000000;
}

// One COPY text line: id, customer, qty, price, note, updated_at (tab-separated, \N for NULL; the
// table's text has no characters COPY escapes).
void writeRecord(std::string_view line, std::string& key, std::string& value) {
  std::string_view f[6];
  size_t at = 0;
  for (int i = 0; i < 6; ++i) {
    const size_t end = std::min(line.find(i == 5 ? '\n' : '\t', at), line.size());
    f[i] = line.substr(at, end - at);
    at = end + 1;
  }
  key.assign(kKeyPrefix);
  key.append(f[0]).append("}}");
  value.assign(kValuePrefix);
  value.append(f[0]).append(",\"customer\":");
  detail::appendJsonString(value, f[1]);
  value.append(",\"qty\":").append(f[2]).append(",\"price\":").append(f[3]).append(",\"note\":");
  if (f[4] == "\\N")
    value.append("null");
  else
    detail::appendJsonString(value, f[4]);
  value.append(",\"updated_at\":").append(fmt::format_int(epochMillis(f[5])).str()).append("}}");
}

Measurement copyRaw(const std::string& url, const std::string& bootstrap, const std::string& topic,
                    int64_t rows) {
  resetSelfPeakRss();
  const auto before = usageOf(::getpid());
  const auto start = Clock::now();
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(url.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) throw std::runtime_error(PQerrorMessage(conn.get()));
  RawProducer producer(bootstrap, 16384);
  const auto sql = fmt::format("COPY (SELECT {} FROM orders) TO STDOUT", kColumns);
  std::unique_ptr<PGresult, decltype(&PQclear)> begun(PQexec(conn.get(), sql.c_str()), &PQclear);
  if (PQresultStatus(begun.get()) != PGRES_COPY_OUT)
    throw std::runtime_error(PQerrorMessage(conn.get()));
  std::string key, value;
  double bytes = 0;
  int64_t sent = 0;
  char* line = nullptr;
  for (int n; (n = PQgetCopyData(conn.get(), &line, 0)) > 0; PQfreemem(line)) {
    writeRecord({line, static_cast<size_t>(n)}, key, value);
    producer.send(topic, key, value);
    bytes += static_cast<double>(value.size());
    ++sent;
  }
  std::unique_ptr<PGresult, decltype(&PQclear)> ended(PQgetResult(conn.get()), &PQclear);
  if (PQresultStatus(ended.get()) != PGRES_COMMAND_OK || sent != rows)
    throw std::runtime_error(
        fmt::format("COPY ended after {} rows: {}", sent, PQerrorMessage(conn.get())));
  producer.flush();
  const auto end = Clock::now();
  const auto after = usageOf(::getpid());
  const double seconds = std::chrono::duration<double>(end - start).count();
  return {
      kLimit, rows, bytes, 0, seconds, seconds, rows, after.cpu_s - before.cpu_s, after.peak_rss_kb,
      ""};
}

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int run(int argc, char** argv) {
  CLI::App app{"Table sources: ksink's JDBC source against COPY + raw librdkafka and Debezium"};
  int64_t rows = 1000000;
  SourceBenchOptions options;
  app.add_option("--rows", rows, "rows in the table");
  options.addTo(app, "Debezium");
  CLI11_PARSE(app, argc, argv);

  auto& kafka = it::RealKafka::shared();
  auto& postgres = it::TestPostgres::shared();
  auto schema = postgres.freshSchema("tsbench");
  const auto dir = it::freshDir("table-source-bench");
  createTable(*schema, rows);
  const std::string peer = KSINK_SOURCE_DIR "/bench/peer/connect-sink.sh";

  std::vector<Round> all;
  for (int r = 0; r < options.rounds; ++r) {
    Round round;
    const auto raw_topic = it::uniqueName("tsrc-raw");
    kafka.createTopic(raw_topic, 1);
    round.push_back(copyRaw(schema->url(), kafka.bootstrap(), raw_topic, rows));
    kafka.deleteTopic(raw_topic);
    const double bytes = round.back().bytes;

    for (const std::string mode : {"bulk", "incrementing"}) {
      const auto name = it::uniqueName("tsrc-" + mode);
      const auto topic = name + "-orders";
      kafka.createTopic(topic, 1);
      round.push_back(runKsinkSource(
          "ksink-" + mode, dir / fmt::format("ksink-{}-{}", mode, r),
          fmt::format(
              "name={}\nconnector.class=io.confluent.connect.jdbc.JdbcSourceConnector\n"
              "connection.url={}\nmode={}\nincrementing.column.name=id\ntable.whitelist=orders\n"
              "schema.pattern={}\ntopic.prefix={}-\n{}\n",
              name, postgres.url(), mode, schema->name(), name,
              fmt::join(options.ksink_properties, "\n")),
          topic, rows, bytes, kLimit));
      kafka.deleteTopic(topic);
    }
    // Exactly once, mode=incrementing (the mode that declares it).
    for (const auto& [eos, worker] : exactlyOnceCases()) {
      const auto name = it::uniqueName("tsrc-" + eos);
      const auto topic = name + "-orders";
      kafka.createTopic(topic, 1);
      round.push_back(runKsinkSource(
          "ksink-incrementing-" + eos, dir / fmt::format("ksink-{}-{}", eos, r),
          fmt::format("name={}\nconnector.class=io.confluent.connect.jdbc.JdbcSourceConnector\n"
                      "connection.url={}\nmode=incrementing\nincrementing.column.name=id\n"
                      "table.whitelist=orders\nschema.pattern={}\ntopic.prefix={}-\n{}\n",
                      name, postgres.url(), schema->name(), name,
                      fmt::join(options.ksink_properties, "\n")),
          topic, rows, bytes, kLimit, worker));
      kafka.deleteTopic(topic);
    }

    if (!options.no_peer) {
      const auto prefix = it::uniqueName("tsrc-dbz");
      const auto table = schema->name() + ".orders";
      const auto pwd = dir / fmt::format("debezium-{}", r);
      it::DebeziumSource debezium(
          pwd, kafka.bootstrap(), it::PgSourceSettings::fromUrl(postgres.url()), prefix, {table},
          it::DebeziumSource::uniqueSlotName(), {{"poll.interval.ms", "500"}});
      kafka.createTopic(debezium.topic(table), 1);
      round.push_back(watchSource(
          "debezium",
          {peer, pwd.string(), kafka.bootstrap(), debezium.writeConnectorProperties().string()},
          pwd / "peer.log", debezium.topic(table), rows, 0, kLimit,
          {"KSINK_PEER_CONNECTOR=postgres"}));
      kafka.deleteTopic(debezium.topic(table));
    }
    printRound(fmt::format("round {} of {}: {} rows, {:.1f} MB of values", r + 1, options.rounds,
                           rows, bytes / 1e6),
               round);
    all.push_back(std::move(round));
  }
  printSummary(all);
  if (!options.no_peer) {
    fmt::print("\nlaunch to last record, ksink over Debezium (median of the rounds' ratios):\n");
    for (const std::string mode : {"ksink-bulk", "ksink-incrementing"}) {
      std::vector<double> ratios;
      for (const auto& round : all) {
        const Measurement *ours = nullptr, *theirs = nullptr;
        for (const auto& m : round) {
          if (m.name == mode) ours = &m;
          if (m.name == "debezium") theirs = &m;
        }
        if (ours && theirs && theirs->launchRate() > 0)
          ratios.push_back(ours->launchRate() / theirs->launchRate());
      }
      const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
      if (!ratios.empty())
        fmt::print("  {:<20}{:.1f}x ({:.1f}-{:.1f})\n", mode, medianOf(ratios), *lo, *hi);
    }
  }
  return 0;
}

}  // namespace
}  // namespace ksink::bench

int main(int argc, char** argv) {
  return ksink::bench::benchmarkMain("table_source_benchmark", ksink::bench::run, argc, argv);
}
