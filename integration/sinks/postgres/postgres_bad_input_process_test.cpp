// Records that once stopped, misrouted or exhausted a PostgreSQL connector, sent through the
// `ksink` binary as a user would (a real broker, a real server): a bad record in a staged batch
// goes to the dead-letter queue while the rest is written; a routed delete reaches the routed
// table; a Decimal with a huge scale is a bad record refused at once; field names holding U+001F
// keep their own columns. The checks are the tables, the stored offsets and the DLQ's end offset.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <string>

#include "child_process.h"
#include "polling.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class PostgresBadInputProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-pg-bad");
    topic_ = uniqueName("bad");
    name_ = uniqueName("pgbad");
    dlq_ = topic_ + "-dlq";
    schema_ = TestPostgres::shared().freshSchema("bad");
    RealKafka::shared().createTopic(topic_, 1);
  }

  // Runs ksink with the connector keys `props` (plus name, topics, connection.url and a DLQ under
  // errors.tolerance=all) until every record of the topic is stored, then stops it with SIGTERM,
  // which must exit 0.
  void runUntilStored(const std::map<std::string, std::string>& props) {
    const auto worker = dir_ / "worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nlisteners=\noffset.flush.interval.ms=500\n"
        "consumer.session.timeout.ms=6000\nconsumer.heartbeat.interval.ms=500\n",
        RealKafka::shared().bootstrap());
    const auto connector = dir_ / "connector.properties";
    std::ofstream out(connector);
    out << fmt::format(
        "name={}\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\ntopics={}\n"
        "connection.url={}\nerrors.tolerance=all\nerrors.deadletterqueue.topic.name={}\n"
        "errors.deadletterqueue.topic.replication.factor=1\n",
        name_, topic_, schema_->url(), dlq_);
    for (const auto& [k, v] : props) out << k << "=" << v << "\n";
    out.close();
    ChildProcess ksink({KSINK_BIN, "run", worker.string(), connector.string()}, dir_ / "ksink.log");
    const int64_t end = RealKafka::shared().endOffset({topic_, 0});
    EXPECT_TRUE(waitUntil([&] { return stored() == end; }, 60s))
        << "stored " << stored() << " of " << end << "\n"
        << ksink.log();
    ksink.signal(SIGTERM);
    EXPECT_EQ(ksink.wait(30s), 0) << ksink.log();
    log_ = ksink.log();
  }

  // The next offset ksink_offsets holds for the topic's partition 0 (-1: none).
  int64_t stored() {
    if (schema_->scalar("SELECT to_regclass('ksink_offsets') IS NOT NULL") != "t") return -1;
    const auto rows = schema_->query(
        fmt::format("SELECT next_offset FROM ksink_offsets WHERE connector = '{}' AND topic = '{}'",
                    name_, topic_));
    return rows.empty() ? -1 : std::stoll(*rows.at(0).at(0));
  }

  int64_t dlqRecords() {
    try {
      return RealKafka::shared().endOffset({dlq_, 0});
    } catch (const std::exception&) {
      return 0;  // never created: nothing was sent to it
    }
  }

  fs::path dir_;
  std::string topic_, name_, dlq_, log_;
  std::unique_ptr<PgTestSchema> schema_;
};

// Issue: a CHECK violation in an update batch (staged through a temporary table) rolled the
// staging table back with the batch, and the isolating retry failed for good (42P01 / 3F000).
TEST_F(PostgresBadInputProcessTest, ABadRecordInAStagedUpdateBatchGoesToTheDlqAndTheRestIsWritten) {
  schema_->exec(fmt::format(R"(CREATE TABLE "{}" (id int8 PRIMARY KEY, v int8 CHECK (v >= 0)))"
                            R"(; INSERT INTO "{}" SELECT i, 0 FROM generate_series(1, 5) i)",
                            topic_, topic_));
  std::vector<RealKafka::Message> messages;
  for (int i = 1; i <= 5; ++i)
    messages.push_back(
        {0, std::nullopt, fmt::format(R"({{"id":{},"v":{}}})", i, i == 3 ? -1 : 10 * i)});
  RealKafka::shared().produce(topic_, messages);

  runUntilStored({{"insert.mode", "update"},
                  {"pk.mode", "record_value"},
                  {"pk.fields", "id"},
                  {"value.converter.schemas.enable", "false"}});
  const auto rows = schema_->query(fmt::format(R"(SELECT id, v FROM "{}" ORDER BY id)", topic_));
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::string> expected{"10", "20", "0", "40", "50"};
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(*rows[i][1], expected[i]) << "id " << i + 1;
  EXPECT_EQ(dlqRecords(), 1);
}

// Issue: route.by.field routed the change but not the delete, which hit the source topic's table.
TEST_F(PostgresBadInputProcessTest, ARoutedDeleteRemovesTheRowFromTheRoutedTableOnly) {
  const auto routed = uniqueName("archive");
  // Both tables hold a row with key 1; only the routed one's is the row the delete is about.
  for (const auto& table : {topic_, routed})
    schema_->exec(fmt::format(R"(CREATE TABLE "{}" (id int8 PRIMARY KEY, status text))"
                              R"(; INSERT INTO "{}" VALUES (1, '{}'))",
                              table, table, table));
  const std::string row_schema = R"({"type":"struct","optional":true,"name":"r","fields":[)"
                                 R"({"field":"id","type":"int64","optional":false},)"
                                 R"({"field":"status","type":"string","optional":true}]})";
  const auto envelope = [&](const std::string& op, const std::string& before,
                            const std::string& after) {
    return fmt::format(
        R"({{"schema":{{"type":"struct","optional":false,"name":"shop.public.orders.Envelope",)"
        R"("fields":[)"
        R"({{"field":"before",{0}}},{{"field":"after",{0}}},)"
        R"({{"field":"op","type":"string","optional":false}}]}},)"
        R"("payload":{{"before":{1},"after":{2},"op":"{3}"}}}})",
        row_schema.substr(1, row_schema.size() - 2), before, after, op);
  };
  const std::string key = R"({"schema":{"type":"struct","optional":false,"fields":[)"
                          R"({"field":"id","type":"int64","optional":false}]},"payload":{"id":1}})";
  const auto row = fmt::format(R"({{"id":1,"status":"{}"}})", routed);
  RealKafka::shared().produce(topic_, {{0, key, envelope("c", "null", row)},
                                       {0, key, envelope("d", row, "null")},
                                       {0, key, std::nullopt}});

  runUntilStored({{"insert.mode", "upsert"},
                  {"pk.mode", "record_key"},
                  {"delete.enabled", "true"},
                  {"auto.create", "true"},
                  {"transforms", "unwrap"},
                  {"transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState"},
                  {"transforms.unwrap.route.by.field", "status"},
                  {"errors.log.enable", "true"}});
  EXPECT_EQ(schema_->count(routed), 0) << "the routed row survived its delete\n" << log_;
  EXPECT_EQ(schema_->count(topic_), 1) << "a row of the source topic's table was deleted";
  EXPECT_EQ(dlqRecords(), 0);
}

// Issue: scale 2000000000 made the decimal text 2 GB and hung the task past its graceful stop.
TEST_F(PostgresBadInputProcessTest, ADecimalWithAHugeScaleIsABadRecordAndTheTaskStopsOnTime) {
  const auto decimal = [](const std::string& scale, const std::string& base64) {
    return fmt::format(
        R"({{"schema":{{"type":"struct","optional":false,"fields":[)"
        R"({{"field":"id","type":"int64","optional":false}},)"
        R"({{"field":"d","type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",)"
        R"("version":1,"parameters":{{"scale":"{}"}}}}]}},"payload":{{"id":1,"d":"{}"}}}})",
        scale, base64);
  };
  RealKafka::shared().produce(topic_, {{0, std::nullopt, decimal("2", "AQ==")},
                                       {0, std::nullopt, decimal("2000000000", "AQ==")},
                                       {0, std::nullopt, decimal("3", "Ag==")}});
  runUntilStored({{"insert.mode", "insert"}, {"auto.create", "true"}});
  EXPECT_EQ(schema_->query(fmt::format(R"(SELECT d::text FROM "{}" ORDER BY d)", topic_)),
            (PgTestSchema::Rows{{"0.002"}, {"0.01"}}));
  EXPECT_EQ(dlqRecords(), 1);
}

// Issue: {"x\u001fdy":2} and {"x":1.5,"y":2} shared one layout: wrong columns, or a failed task.
TEST_F(PostgresBadInputProcessTest, FieldNamesHoldingTheUnitSeparatorKeepTheirOwnColumns) {
  RealKafka::shared().produce(
      topic_, {{0, std::nullopt, "{\"x\\u001fdy\":2}"}, {0, std::nullopt, R"({"x":1.5,"y":2})"}});
  runUntilStored({{"insert.mode", "insert"},
                  {"auto.create", "true"},
                  {"auto.evolve", "true"},
                  {"value.converter.schemas.enable", "false"}});
  EXPECT_EQ(schema_->query(fmt::format("SELECT \"x\x1f"
                                       "dy\"::text, x::text, y::text FROM \"{}\" ORDER BY \"x\x1f"
                                       "dy\" NULLS LAST",
                                       topic_)),
            (PgTestSchema::Rows{{"2", std::nullopt, std::nullopt}, {std::nullopt, "1.5", "2"}}));
  EXPECT_EQ(dlqRecords(), 0);
}

}  // namespace
}  // namespace ksink::it
