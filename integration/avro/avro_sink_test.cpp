// Avro into the sinks, end to end with real parts: records written by Confluent's own serializer
// (Python's confluent-kafka AvroSerializer, integration/avro/python) through a real schema
// registry and a real broker into `ksink` processes with value.converter=AvroConverter.
//   - PostgreSQL: every Avro type lands as the value it was given, row for row (decimal text, days,
//     millis, hex bytes, arrays, maps and unions as jsonb); a record without the magic byte goes
//     to the dead-letter queue while the rest is written; a second schema version, produced while
//     the sink is stopped, adds its column after the restart (auto.evolve).
//   - SQLite: the same records, every column compared in SQLite's spelling.
//   - A registry that hangs while the sink starts: nothing is written, skipped or committed until
//     it answers; then every row arrives.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "child_process.h"
#include "command_output.h"
#include "polling.h"
#include "sqlite_query.h"
#include "test_kafka.h"
#include "test_postgres.h"
#include "test_schema_registry.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The columns produce.py prints, as SQL renders them for a comparison in text.
constexpr std::string_view kPgColumns =
    "id, i, f, d, ok, s, encode(b, 'hex'), maybe, amount, day - date '1970-01-01', "
    "(extract(epoch from tm) * 1000)::bigint, (extract(epoch from ts) * 1000)::bigint, us, uid, "
    "color, encode(hash, 'hex'), array_to_string(tags, '|'), attrs::text, either::text";

class AvroSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-avro-sink");
    topic_ = uniqueName("avro");
    name_ = uniqueName("avrosink");
    dlq_ = topic_ + "-dlq";
    RealKafka::shared().createTopic(topic_, 1);
  }

  // Writes records [first, first + count) with produce.py; returns the rows it printed.
  std::vector<std::string> produce(const std::string& registry, int first, int count,
                                   int version = 1, int bad_at = -1) {
    static const std::string python =
        test::scriptOutput(fmt::format("'{}/integration/avro/python/env.sh'", KSINK_SOURCE_DIR));
    const auto printed = test::scriptOutput(
        fmt::format("'{}' '{}/integration/avro/python/produce.py' --bootstrap '{}' --registry '{}' "
                    "--topic '{}' --first {} --count {} --version {} --bad-at {} 2>/dev/null",
                    python, KSINK_SOURCE_DIR, RealKafka::shared().bootstrap(), registry, topic_,
                    first, count, version, bad_at));
    std::vector<std::string> rows;
    std::istringstream lines(printed);
    for (std::string line; std::getline(lines, line);) rows.push_back(line);
    return rows;
  }

  std::unique_ptr<ChildProcess> startKsink(const std::string& connector_class,
                                           const std::string& url, const std::string& registry,
                                           const std::map<std::string, std::string>& props = {}) {
    const auto worker = dir_ / "worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nlisteners=\noffset.flush.interval.ms=500\n"
        "consumer.session.timeout.ms=6000\nconsumer.heartbeat.interval.ms=500\n"
        "key.converter=io.confluent.connect.avro.AvroConverter\n"
        "key.converter.schema.registry.url={}\n"
        "value.converter=io.confluent.connect.avro.AvroConverter\n"
        "value.converter.schema.registry.url={}\n",
        RealKafka::shared().bootstrap(), registry, registry);
    const auto connector = dir_ / "connector.properties";
    std::ofstream out(connector);
    out << fmt::format(
        "name={}\nconnector.class={}\ntopics={}\nconnection.url={}\nerrors.tolerance=all\n"
        "errors.deadletterqueue.topic.name={}\nerrors.deadletterqueue.topic.replication.factor=1\n"
        "errors.deadletterqueue.context.headers.enable=true\n"
        "auto.create=true\nauto.evolve=true\ninsert.mode=upsert\npk.mode=record_value\n"
        "pk.fields=id\n",
        name_, connector_class, topic_, url, dlq_);
    for (const auto& [k, v] : props) out << k << "=" << v << "\n";
    out.close();
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / "ksink.log");
  }

  static std::string joined(const PgTestSchema::Rows& rows) {
    std::string out;
    for (const auto& row : rows) {
      for (size_t i = 0; i < row.size(); ++i) out += (i ? "\t" : "") + row[i].value_or("\\N");
      out += "\n";
    }
    return out;
  }
  static std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) out += line + "\n";
    return out;
  }

  // The next offset the PostgreSQL sink stored for the topic (-1: none).
  int64_t pgStored(PgTestSchema& db) {
    if (db.scalar("SELECT to_regclass('ksink_offsets') IS NOT NULL") != "t") return -1;
    const auto rows = db.query(
        fmt::format("SELECT next_offset FROM ksink_offsets WHERE connector = '{}' AND topic = '{}'",
                    name_, topic_));
    return rows.empty() ? -1 : std::stoll(rows.at(0).at(0).value_or("-1"));
  }

  // Records in the dead-letter queue (0 while it does not exist).
  int64_t dlqEnd() {
    try {
      return RealKafka::shared().endOffset({dlq_, 0});
    } catch (const std::exception&) {
      return 0;
    }
  }

  fs::path dir_;
  std::string topic_, name_, dlq_;
};

TEST_F(AvroSinkTest, EveryAvroTypeLandsInPostgresRowForRowThroughABadRecordAndANewVersion) {
  auto db = TestPostgres::shared().freshSchema("avro");
  const auto& registry = TestSchemaRegistry::url();
  auto expected = produce(registry, 0, 40, 1, 17);
  ASSERT_EQ(expected.size(), 39u);
  auto ksink = startKsink("io.confluent.connect.jdbc.JdbcSinkConnector", db->url(), registry);
  EXPECT_TRUE(waitUntil([&] { return pgStored(*db) == 40; }, 60s)) << ksink->log();
  EXPECT_EQ(joined(db->query(fmt::format("SELECT {} FROM \"{}\" ORDER BY id", kPgColumns, topic_))),
            joined(expected));
  EXPECT_EQ(dlqEnd(), 1);

  // Stopped; version 2 of the value schema adds `note` meanwhile. The restarted sink reads the
  // new id from the registry and adds the column; older rows hold null there.
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
  const auto v2 = produce(registry, 40, 10, 2);
  ksink = startKsink("io.confluent.connect.jdbc.JdbcSinkConnector", db->url(), registry);
  EXPECT_TRUE(waitUntil([&] { return pgStored(*db) == 50; }, 60s)) << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
  for (auto& row : expected) row += "\t\\N";
  expected.insert(expected.end(), v2.begin(), v2.end());
  EXPECT_EQ(
      joined(db->query(fmt::format("SELECT {}, note FROM \"{}\" ORDER BY id", kPgColumns, topic_))),
      joined(expected));
}

TEST_F(AvroSinkTest, TheSameRecordsLandInSqlite) {
  const auto& registry = TestSchemaRegistry::url();
  const auto printed = produce(registry, 0, 30);
  const auto file = (dir_ / "sink.db").string();
  auto ksink = startKsink("sqlite", "sqlite://" + file, registry);
  const auto stored = [&]() -> int64_t {
    if (!fs::exists(file)) return -1;
    try {
      const auto rows = testing::queryRows(
          file, fmt::format("SELECT next_offset FROM ksink_offsets WHERE topic = '{}'", topic_));
      return rows.empty() ? -1 : std::stoll(rows[0][0]);
    } catch (const std::exception&) {
      return -1;  // not created yet
    }
  };
  EXPECT_TRUE(waitUntil([&] { return stored() == 30; }, 60s)) << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
  // Every column, in SQLite's spelling brought to produce.py's: dates and times are ISO text
  // there (counted back to days and milliseconds), booleans 0/1, decimals numeric, arrays, maps
  // and unions JSON text (compared without jsonb's spaces).
  std::string expected, actual;
  for (const auto& line : printed) {
    std::string row;
    std::istringstream cells(line);
    int column = 0;
    for (std::string cell; std::getline(cells, cell, '\t'); ++column) {
      if (column == 17 || column == 18) std::erase(cell, ' ');
      row += (column ? "|" : "") + (cell == "\\N" ? std::string("NULL") : cell);
    }
    expected += row + "\n";
  }
  const auto number = [](const char* c) {
    return fmt::format(
        "CASE WHEN {0} = CAST({0} AS INTEGER) THEN CAST(CAST({0} AS INTEGER) AS TEXT) "
        "ELSE CAST({0} AS TEXT) END",
        c);
  };
  const auto millis = [](const std::string& text) {
    return fmt::format("CAST(round((julianday({}) - 2440587.5) * 86400000) AS INTEGER)", text);
  };
  const auto sql = fmt::format(
      "SELECT id, i, {}, {}, CASE ok WHEN 1 THEN 't' ELSE 'f' END, s, lower(hex(b)), maybe, "
      "printf('%.2f', amount), CAST(julianday(day) - 2440587.5 AS INTEGER), {}, {}, us, uid, "
      "color, lower(hex(hash)), coalesce((SELECT group_concat(value, '|') FROM json_each(tags)), "
      "''), attrs, either FROM \"{}\" ORDER BY id",
      number("f"), number("d"), millis("'1970-01-01 ' || tm"), millis("ts"), topic_);
  for (const auto& r : testing::queryRows(file, sql))
    actual += fmt::format("{}\n", fmt::join(r, "|"));
  EXPECT_EQ(actual, expected);
}

TEST_F(AvroSinkTest, ARegistryThatHangsHoldsTheRecordsBackUntilItAnswersAndLosesNone) {
  auto db = TestPostgres::shared().freshSchema("avrooutage");
  SchemaRegistryProcess own(freshDir("ksink-registry-sink"));
  const auto registry = own.start();
  const auto expected = produce(registry, 0, 25);
  own.pause();
  auto ksink = startKsink(
      "io.confluent.connect.jdbc.JdbcSinkConnector", db->url(), registry,
      {{"value.converter.http.read.timeout.ms", "1000"}, {"errors.retry.delay.max.ms", "1000"}});
  // The records wait: no row, no offset stored or committed, nothing in the dead-letter queue.
  EXPECT_TRUE(waitUntil([&] { return ksink->log().find("retrying in") != std::string::npos; }, 30s))
      << ksink->log();
  std::this_thread::sleep_for(4s);
  EXPECT_EQ(pgStored(*db), -1);
  EXPECT_EQ(db->scalar(fmt::format("SELECT to_regclass('\"{}\"') IS NULL", topic_)), "t");
  EXPECT_EQ(dlqEnd(), 0);
  EXPECT_TRUE(RealKafka::shared().committed("connect-" + name_, topic_, 1).empty());
  own.resume();
  EXPECT_TRUE(waitUntil([&] { return pgStored(*db) == 25; }, 60s)) << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
  EXPECT_EQ(joined(db->query(fmt::format("SELECT {} FROM \"{}\" ORDER BY id", kPgColumns, topic_))),
            joined(expected));
  EXPECT_EQ(dlqEnd(), 0);
}

}  // namespace
}  // namespace ksink::it
