// Change data capture end to end, with parts no one here wrote: a real Debezium PostgreSQL source
// (Kafka Connect 4.1.1, pgoutput) streams a table of the test server through the real broker, and
// `ksink` processes keep a copy of it — configured either as Debezium documents the Confluent JDBC
// sink (transforms=unwrap with ExtractNewRecordState) or as the Debezium JDBC sink itself — in
// PostgreSQL and in SQLite. After a snapshot, inserts, updates, deletes, a kill -9 of ksink
// mid-stream, a column added at the source and (Debezium JDBC sink style, truncate.enabled=true)
// a TRUNCATE, the copy equals the source row by row. The same with Avro (into PostgreSQL): Debezium
// writes through Apicurio Registry's AvroConverter in Confluent's wire format to a real registry,
// and ksink reads with value.converter=io.confluent.connect.avro.AvroConverter.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "child_process.h"
#include "debezium_source.h"
#include "polling.h"
#include "sqlite_query.h"
#include "test_kafka.h"
#include "test_postgres.h"
#include "test_schema_registry.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

enum class Style { kConfluentWithUnwrap, kDebeziumJdbcSink };
enum class Destination { kPostgres, kSqlite };
enum class Format { kJson, kAvro };

struct Case {
  Style style;
  Destination destination;
  Format format = Format::kJson;
};

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  return fmt::format(
      "{}Into{}{}",
      info.param.style == Style::kConfluentWithUnwrap ? "ConfluentWithUnwrap" : "DebeziumJdbcSink",
      info.param.destination == Destination::kPostgres ? "Postgres" : "Sqlite",
      info.param.format == Format::kAvro ? "WithAvro" : "");
}

// Debezium's converters for Avro: Apicurio's, writing Confluent's wire format (a zero byte, the
// 4-byte content id that Confluent's API serves at /schemas/ids/{id}) to the test registry.
std::map<std::string, std::string> apicurioAvroConverters() {
  auto native = TestSchemaRegistry::url();
  native.replace(native.find("/apis/ccompat/v7"), std::string::npos, "/apis/registry/v2");
  std::map<std::string, std::string> out;
  for (const std::string side : {"key", "value"}) {
    const auto p = side + ".converter";
    out[p] = "io.apicurio.registry.utils.converter.AvroConverter";
    out[p + ".apicurio.registry.url"] = native;
    out[p + ".apicurio.registry.auto-register"] = "true";
    out[p + ".apicurio.registry.as-confluent"] = "true";
    out[p + ".apicurio.registry.use-id"] = "contentId";
    out[p + ".apicurio.registry.headers.enabled"] = "false";
    out[p + ".apicurio.registry.id-handler"] = "io.apicurio.registry.serde.Legacy4ByteIdHandler";
  }
  return out;
}

// The source's rows, one line per row, as both databases spell the values.
using Rows = std::vector<std::string>;

class DebeziumMirrorTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-dbz-mirror");
    source_ = TestPostgres::shared().freshSchema("dbzsrc");
    slot_ = DebeziumSource::uniqueSlotName();
    name_ = uniqueName("mirror");
    source_->exec(
        "CREATE TABLE customers (id int4 PRIMARY KEY, name text NOT NULL, balance numeric(12,2), "
        "active boolean, visits int8, signed_up timestamptz, last_seen timestamp, born date, "
        "token uuid, prefs jsonb)");
    if (GetParam().destination == Destination::kPostgres)
      copy_ = TestPostgres::shared().freshSchema("dbzdst");
    else
      sqlite_file_ = dir_ / "copy.db";
  }

  void TearDown() override {
    if (ksink_) ksink_->signal(SIGKILL);
  }

  void insert(int first, int end) {
    std::string sql = "INSERT INTO customers VALUES ";
    for (int i = first; i < end; ++i)
      sql += fmt::format(
          "{}({}, 'customer {}', {}.{:02}, {}, {}, "
          "timestamptz '2024-03-01 10:15:30.123456+00' + interval '{} minutes', "
          "timestamp '2023-12-31 23:59:59.000001' + interval '{} seconds', "
          "date '1970-01-01' + {}, '00000000-0000-4000-8000-{:012}', '{{\"n\": {}}}')",
          i == first ? "" : ",", i, i, i * 7 - 300, i % 100, i % 2 == 0 ? "true" : "false",
          i * 1000, i * 37, i * 3, i * 50, i, i);
    source_->exec(sql);
  }

  std::string connectorProperties() const {
    const auto url = GetParam().destination == Destination::kPostgres
                         ? copy_->url()
                         : "jdbc:sqlite:" + sqlite_file_.string();
    const auto topic = dbz_->topic(source_->name() + ".customers");
    if (GetParam().style == Style::kConfluentWithUnwrap)
      return fmt::format(
          "name={}\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\ntopics={}\n"
          "connection.url={}\ntransforms=unwrap\n"
          "transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState\n"
          "transforms.unwrap.drop.tombstones=false\n"
          "pk.mode=record_key\ninsert.mode=upsert\ndelete.enabled=true\nauto.create=true\n"
          "auto.evolve=true\ntable.name.format=customers\n",
          name_, topic, url);
    return fmt::format(
        "name={}\nconnector.class=io.debezium.connector.jdbc.JdbcSinkConnector\ntopics={}\n"
        "connection.url={}\ninsert.mode=upsert\ndelete.enabled=true\n"
        "primary.key.mode=record_key\nschema.evolution=basic\ntruncate.enabled=true\n"
        "collection.name.format=${{source.table}}\n",
        name_, topic, url);
  }

  void startKsink(const std::string& tag) {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\noffset.flush.interval.ms=1000\nlisteners=\n"
        "consumer.session.timeout.ms=6000\nconsumer.heartbeat.interval.ms=500\n{}",
        RealKafka::shared().bootstrap(),
        GetParam().format == Format::kJson
            ? ""
            : fmt::format("key.converter=io.confluent.connect.avro.AvroConverter\n"
                          "key.converter.schema.registry.url={0}\n"
                          "value.converter=io.confluent.connect.avro.AvroConverter\n"
                          "value.converter.schema.registry.url={0}\n",
                          TestSchemaRegistry::url()));
    const auto connector = dir_ / (tag + "-connector.properties");
    std::ofstream(connector) << connectorProperties();
    ksink_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / (tag + ".log"));
  }

  // The rows in the same spelling on both sides: numeric at scale 2, booleans as 0/1, times as
  // ISO text in UTC with microseconds, json by a member's value.
  static constexpr const char* kPgColumns =
      "id, name, balance::text, active::int, visits, "
      "to_char(signed_up AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), "
      "to_char(last_seen, 'YYYY-MM-DD HH24:MI:SS.US'), born::text, token::text, prefs->>'n'";

  Rows sourceRows(bool with_email) {
    Rows out;
    for (const auto& r :
         source_->query(fmt::format("SELECT {}{} FROM customers ORDER BY id", kPgColumns,
                                    with_email ? ", coalesce(email, 'NULL')" : "")))
      out.push_back(line(r));
    return out;
  }

  Rows copyRows(bool with_email) {
    Rows out;
    try {
      if (GetParam().destination == Destination::kPostgres) {
        for (const auto& r :
             copy_->query(fmt::format("SELECT {}{} FROM customers ORDER BY id", kPgColumns,
                                      with_email ? ", coalesce(email, 'NULL')" : "")))
          out.push_back(line(r));
      } else {
        for (const auto& r : ksink::testing::queryRows(
                 sqlite_file_.string(),
                 // SQLite has no exact decimal type: NUMERIC affinity keeps -300.00 as the
                 // integer -300, so the values are compared at the source's scale.
                 // Times are ISO text there; strftime respells the zoned one.
                 fmt::format(
                     "SELECT id, name, printf('%.2f', balance), active, visits, "
                     "strftime('%Y-%m-%d %H:%M:%f', signed_up) || substr(signed_up, 24, 3), "
                     "last_seen, born, token, json_extract(prefs, '$.n'){} FROM customers "
                     "ORDER BY id",
                     with_email ? ", coalesce(email, 'NULL')" : "")))
          out.push_back(fmt::format("{}", fmt::join(r, "|")));
      }
    } catch (const std::exception&) {
      return {};  // no table (or column) yet
    }
    return out;
  }

  static std::string line(const std::vector<std::optional<std::string>>& row) {
    std::vector<std::string> cells;
    for (const auto& v : row) cells.push_back(v.value_or("NULL"));
    return fmt::format("{}", fmt::join(cells, "|"));
  }

  // Waits for the copy to equal the source, and says how they differ when it does not.
  void expectMirrored(bool with_email) {
    Rows expected = sourceRows(with_email), got;
    const bool same = waitUntil(
        [&] {
          got = copyRows(with_email);
          return got == expected;
        },
        90s, 250ms);
    EXPECT_TRUE(same) << "source " << expected.size() << " rows, copy " << got.size()
                      << " rows; first source row: " << (expected.empty() ? "" : expected[0])
                      << "; first copy row: " << (got.empty() ? "" : got[0]) << "\nksink log:\n"
                      << (ksink_ ? ksink_->log() : "") << "\nDebezium:\n"
                      << dbz_->logTail(20);
  }

  fs::path dir_;
  std::unique_ptr<PgTestSchema> source_, copy_;
  fs::path sqlite_file_;
  std::string slot_, name_;
  std::unique_ptr<DebeziumSource> dbz_;
  std::unique_ptr<ChildProcess> ksink_;
};

TEST_P(DebeziumMirrorTest, TheCopyEqualsTheSourceThroughChangesAKillAndANewColumn) {
  insert(0, 200);                                                            // the snapshot
  std::map<std::string, std::string> extra{{"skipped.operations", "none"}};  // truncates too
  if (GetParam().format == Format::kAvro) extra.merge(apicurioAvroConverters());
  dbz_ = std::make_unique<DebeziumSource>(
      dir_ / "connect", RealKafka::shared().bootstrap(),
      PgSourceSettings::fromUrl(TestPostgres::shared().url()), slot_,
      std::vector<std::string>{source_->name() + ".customers"}, slot_, extra);
  dbz_->start();
  startKsink("run1");
  expectMirrored(false);
  if (HasFailure()) return;
  if (GetParam().format == Format::kAvro) {
    // The change events really are Confluent-framed Avro: a zero byte, then the schema's id.
    const auto events = test::readPartition(RealKafka::shared().bootstrap(),
                                            dbz_->topic(source_->name() + ".customers"), 0, 1, 10s);
    ASSERT_EQ(events.size(), 1u);
    ASSERT_TRUE(events[0].key && events[0].value);
    EXPECT_EQ(events[0].key->at(0), '\0');
    EXPECT_EQ(events[0].value->at(0), '\0');
    EXPECT_NE(events[0].value->find("customer 0"), std::string::npos);  // Avro's string bytes
    EXPECT_EQ(events[0].value->find("\"payload\""), std::string::npos);
  }

  // Streaming: inserts, updates (some of a key twice), deletes, then kill -9 mid-stream.
  insert(200, 400);
  source_->exec("UPDATE customers SET balance = balance + 1, visits = visits + 1 WHERE id % 3 = 0");
  source_->exec("UPDATE customers SET name = name || ' (vip)' WHERE id % 30 = 0");
  source_->exec("DELETE FROM customers WHERE id % 7 = 3");
  ksink_->signal(SIGKILL);
  ksink_->wait(10s);
  source_->exec("UPDATE customers SET active = NOT active WHERE id < 50");
  insert(400, 450);
  source_->exec("DELETE FROM customers WHERE id BETWEEN 420 AND 425");
  startKsink("run2");
  expectMirrored(false);
  if (HasFailure()) return;

  // A column added at the source reaches the copy with the next change events.
  source_->exec("ALTER TABLE customers ADD COLUMN email text");
  source_->exec("UPDATE customers SET email = 'c' || id || '@example.com' WHERE id % 5 = 0");
  insert(450, 460);
  expectMirrored(true);
  if (GetParam().style == Style::kDebeziumJdbcSink) {
    // truncate.enabled=true: a TRUNCATE at the source empties the copy, and rows inserted after
    // it land in the emptied table.
    source_->exec("TRUNCATE customers");
    insert(500, 505);
    expectMirrored(true);
    EXPECT_EQ(sourceRows(true).size(), 5u);
  }
  if (GetParam().destination == Destination::kPostgres) {
    // The copy keeps the source's types; the Debezium class declares the Debezium JDBC sink's
    // (json for Debezium's Json).
    EXPECT_EQ(copy_->scalar("SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY "
                            "ordinal_position) FROM information_schema.columns WHERE "
                            "table_schema = current_schema() AND table_name = 'customers'"),
              fmt::format("id integer, name text, balance numeric, active boolean, visits bigint, "
                          "signed_up timestamp with time zone, last_seen timestamp without time "
                          "zone, born date, token uuid, prefs {}, email text",
                          GetParam().style == Style::kDebeziumJdbcSink ? "json" : "jsonb"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Styles, DebeziumMirrorTest,
    ::testing::Values(Case{Style::kConfluentWithUnwrap, Destination::kPostgres},
                      Case{Style::kDebeziumJdbcSink, Destination::kPostgres},
                      Case{Style::kConfluentWithUnwrap, Destination::kSqlite},
                      Case{Style::kDebeziumJdbcSink, Destination::kSqlite},
                      Case{Style::kConfluentWithUnwrap, Destination::kPostgres, Format::kAvro},
                      Case{Style::kDebeziumJdbcSink, Destination::kPostgres, Format::kAvro}),
    caseName);

}  // namespace
}  // namespace ksink::it
