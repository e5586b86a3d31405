// The PostgreSQL sink in-process against a real PostgreSQL server and a real Kafka broker: every
// insert mode and pk mode, deletes, auto.create / auto.evolve, every column type, schema envelope
// and schemaless input, bad records and bad configurations. Each test checks the rows in its table
// and the offsets stored beside them (and, where it matters, the group's committed offsets).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <functional>
#include <latch>
#include <map>
#include <regex>
#include <thread>

#include "fake_sink_task_context.h"
#include "ksink/ksink.h"
#include "ksink/postgres/postgres_sink_task.h"
#include "polling.h"
#include "running_sink.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
using Rows = PgTestSchema::Rows;
using Props = std::map<std::string, std::string>;

class PostgresSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = TestPostgres::shared().freshSchema("sink");
    topic_ = uniqueName("pgt");
    name_ = uniqueName("pgsink");
  }

  Props props(Props extra) const {
    Props p{{"name", name_},
            {"connector.class", "postgres"},
            {"topics", topic_},
            {"bootstrap.servers", RealKafka::shared().bootstrap()},
            {"connection.url", schema_->url()},
            {"offset.flush.interval.ms", "500"},
            {"consumer.override.session.timeout.ms", "10000"},
            {"value.converter.schemas.enable", "false"},
            {"key.converter", "string"},
            {"auto.create", "true"}};
    for (auto& [k, v] : extra) p[k] = v;
    return p;
  }

  // Runs the sink until `table` holds `rows` rows, then stops it gracefully.
  void runUntilRows(Props extra, int64_t rows, const std::string& table = "") {
    RunningSink sink(props(std::move(extra)));
    const auto t = table.empty() ? topic_ : table;
    const bool reached = waitUntil(
        [&] { return sink.done() || (tableExists(t) && schema_->count(t) >= rows); }, 60s);
    sink.stop();
    ASSERT_TRUE(reached) << "timed out; rows: " << (tableExists(t) ? schema_->count(t) : -1);
    ASSERT_EQ(sink.error(), "");
  }

  bool tableExists(const std::string& table) {
    return schema_->scalar(fmt::format("SELECT to_regclass('{}.\"{}\"') IS NOT NULL",
                                       schema_->name(), table)) == "t";
  }

  // The next offsets stored in ksink_offsets for this connector, by partition.
  std::map<int, int64_t> storedOffsets() {
    std::map<int, int64_t> out;
    if (!tableExists("ksink_offsets")) return out;
    for (const auto& row : schema_->query(fmt::format(
             "SELECT \"partition\", next_offset FROM ksink_offsets WHERE connector = '{}' AND "
             "topic = '{}'",
             name_, topic_)))
      out[std::stoi(*row[0])] = std::stoll(*row[1]);
    return out;
  }

  Rows select(const std::string& sql) { return schema_->query(sql); }

  std::unique_ptr<PgTestSchema> schema_;
  std::string topic_;
  std::string name_;
};

std::optional<std::string> s(const char* v) {
  return std::string(v);
}

// Letters that TOAST compression cannot shrink below an index entry's size limit.
std::string incompressible(size_t n) {
  std::string out;
  uint32_t x = 12345;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245 + 12345;
    out.push_back(static_cast<char>('a' + (x >> 16) % 26));
  }
  return out;
}

TEST_F(PostgresSinkTest, InsertModeWritesEveryRecordOnceAndStoresTheOffsetsBesideTheRows) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 3);
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 300; ++i)
    messages.push_back({i % 3, "k" + std::to_string(i),
                        fmt::format(R"({{"id":{},"name":"n{}","amount":{}.5}})", i, i, i)});
  kafka.produce(topic_, messages);

  runUntilRows({}, 300);
  EXPECT_EQ(schema_->count(topic_), 300);
  EXPECT_EQ(schema_->scalar(fmt::format("SELECT count(DISTINCT id) FROM \"{}\"", topic_)), "300");
  EXPECT_EQ(select(fmt::format("SELECT name, amount FROM \"{}\" WHERE id = 7", topic_)),
            (Rows{{s("n7"), s("7.5")}}));
  EXPECT_EQ(storedOffsets(), (std::map<int, int64_t>{{0, 100}, {1, 100}, {2, 100}}));
  // The group's offsets follow the destination's (preCommit returns what committed).
  const OffsetMap end{{{topic_, 0}, 100}, {{topic_, 1}, 100}, {{topic_, 2}, 100}};
  EXPECT_EQ(kafka.committed("connect-" + name_, topic_, 3), end);
}

TEST_F(PostgresSinkTest, SchemaEnvelopeCreatesTypedColumnsIncludingLogicalTypes) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  const std::string schema = R"({"type":"struct","fields":[
    {"field":"id","type":"int32","optional":false},
    {"field":"big","type":"int64","optional":true},
    {"field":"small","type":"int16","optional":true},
    {"field":"ratio","type":"float","optional":true},
    {"field":"score","type":"double","optional":true},
    {"field":"ok","type":"boolean","optional":true},
    {"field":"label","type":"string","optional":true},
    {"field":"blob","type":"bytes","optional":true},
    {"field":"price","type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}},
    {"field":"day","type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date"},
    {"field":"at","type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time"},
    {"field":"ts","type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp"},
    {"field":"tags","type":"array","items":{"type":"string","optional":true},"optional":true},
    {"field":"attrs","type":"map","keys":{"type":"string"},"values":{"type":"int32"},"optional":true}
  ]})";
  const std::string payload =
      R"({"id":1,"big":9000000000,"small":-3,"ratio":0.5,"score":2.25,"ok":true,"label":"tab\tand \"quote\"",)"
      R"("blob":"AAH/","price":"BOI=","day":19782,"at":45296789,"ts":1709214307250,)"
      R"("tags":["a","b c",null],"attrs":{"x":1}})";
  const std::string nulls =
      R"({"id":2,"big":null,"small":null,"ratio":null,"score":null,"ok":null,)"
      R"("label":null,"blob":null,"price":null,"day":null,"at":null,"ts":null,)"
      R"("tags":null,"attrs":null})";
  kafka.produce(topic_,
                {{0, std::nullopt, fmt::format(R"({{"schema":{},"payload":{}}})", schema, payload)},
                 {0, std::nullopt, fmt::format(R"({{"schema":{},"payload":{}}})", schema, nulls)}});

  runUntilRows({{"value.converter.schemas.enable", "true"}}, 2);
  const auto types = select(fmt::format(
      "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE "
      "table_schema = '{}' AND table_name = '{}' ORDER BY ordinal_position",
      schema_->name(), topic_));
  EXPECT_EQ(types, (Rows{{s("id"), s("integer"), s("NO")},
                         {s("big"), s("bigint"), s("YES")},
                         {s("small"), s("smallint"), s("YES")},
                         {s("ratio"), s("real"), s("YES")},
                         {s("score"), s("double precision"), s("YES")},
                         {s("ok"), s("boolean"), s("YES")},
                         {s("label"), s("text"), s("YES")},
                         {s("blob"), s("bytea"), s("YES")},
                         {s("price"), s("numeric"), s("YES")},
                         {s("day"), s("date"), s("YES")},
                         {s("at"), s("time without time zone"), s("YES")},
                         {s("ts"), s("timestamp with time zone"), s("YES")},
                         {s("tags"), s("ARRAY"), s("YES")},
                         {s("attrs"), s("jsonb"), s("YES")}}));
  schema_->exec("SET TimeZone = 'UTC'");
  EXPECT_EQ(
      select(fmt::format(
          "SELECT big::text, small::text, ratio::text, score::text, ok::text, label, "
          "encode(blob, 'hex'), price::text, day::text, at::text, ts::text, tags::text, "
          "attrs::text FROM \"{}\" WHERE id = 1",
          topic_)),
      (Rows{{s("9000000000"), s("-3"), s("0.5"), s("2.25"), s("true"), s("tab\tand \"quote\""),
             s("0001ff"), s("12.50"), s("2024-02-29"), s("12:34:56.789"),
             s("2024-02-29 13:45:07.25+00"), s("{a,\"b c\",NULL}"), s("{\"x\": 1}")}}));
  EXPECT_EQ(schema_->count(topic_, "id = 2 AND big IS NULL AND label IS NULL AND tags IS NULL"), 1);
}

TEST_F(PostgresSinkTest, EveryColumnTypeOfAnExistingTableIsWritten) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  schema_->exec(fmt::format(
      "CREATE TABLE \"{}\" (b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric, "
      "t text, v varchar(20), by bytea, d date, tm time, ts timestamp, tz timestamptz, u uuid, "
      "j json, jb jsonb, ia int4[], ta text[])",
      topic_));
  // Schemaless JSON: strings go into uuid, json(b), numeric, date, time and timestamp columns,
  // numbers into every numeric type, epoch milliseconds into timestamps.
  const std::vector<RealKafka::Message> messages{
      {0, std::nullopt,
       R"({"b":true,"i2":12,"i4":-34,"i8":5000000000,"f4":1.5,"f8":-2.75,"n":"123.456",)"
       R"("t":"text","v":"short","by":"raw bytes","d":"2024-02-29","tm":"23:59:58",)"
       R"("ts":1709214307250,"tz":1709214307250,"u":"123e4567-e89b-12d3-a456-426614174000",)"
       R"("j":{"a":[1,2]},"jb":"{\"k\": \"v\"}","ia":[1,2,3],"ta":["x","y z"]})"},
      {0, std::nullopt,
       R"({"b":false,"i2":-1,"i4":7,"i8":-1,"f4":0,"f8":1e300,"n":1.25,"t":"é ✓","v":"",)"
       R"("by":"","d":"1999-12-31","tm":"00:00:00","ts":"2024-01-01 10:00:00",)"
       R"("tz":"2024-01-01T10:00:00+02:00","u":"{123E4567-E89B-12D3-A456-426614174000}",)"
       R"("j":"[true]","jb":{"nested":{"deep":null}},"ia":[],"ta":[null]})"},
      // Only values with a binary form: this row goes by binary COPY.
      {0, std::nullopt,
       R"({"i2":3,"b":true,"n":"-0.001","u":"123e4567-e89b-12d3-a456-426614174000",)"
       R"("jb":"{\"k\": 1}","j":{"x":null},"ia":[4,null],"ta":["q"],"ts":0,"tz":0,"by":"b"})"}};
  kafka.produce(topic_, messages);

  runUntilRows({{"auto.create", "false"}}, 3);
  schema_->exec("SET TimeZone = 'UTC'");
  const std::string cols =
      "b::text, i2::text, i4::text, i8::text, f4::text, f8::text, n::text, t, v, "
      "convert_from(by, 'UTF8'), d::text, tm::text, ts::text, tz::text, u::text, j::text, "
      "jb::text, ia::text, ta::text";
  EXPECT_EQ(select(fmt::format("SELECT {} FROM \"{}\" WHERE i2 = 12", cols, topic_)),
            (Rows{{s("true"), s("12"), s("-34"), s("5000000000"), s("1.5"), s("-2.75"),
                   s("123.456"), s("text"), s("short"), s("raw bytes"), s("2024-02-29"),
                   s("23:59:58"), s("2024-02-29 13:45:07.25"), s("2024-02-29 13:45:07.25+00"),
                   s("123e4567-e89b-12d3-a456-426614174000"), s("{\"a\":[1,2]}"),
                   s("{\"k\": \"v\"}"), s("{1,2,3}"), s("{x,\"y z\"}")}}));
  EXPECT_EQ(select(fmt::format("SELECT {} FROM \"{}\" WHERE i2 = -1", cols, topic_)),
            (Rows{{s("false"), s("-1"), s("7"), s("-1"), s("0"), s("1e+300"), s("1.25"), s("é ✓"),
                   s(""), s(""), s("1999-12-31"), s("00:00:00"), s("2024-01-01 10:00:00"),
                   s("2024-01-01 08:00:00+00"), s("123e4567-e89b-12d3-a456-426614174000"),
                   s("[true]"), s("{\"nested\": {\"deep\": null}}"), s("{}"), s("{NULL}")}}));
  EXPECT_EQ(
      select(fmt::format("SELECT n::text, u::text, jb::text, j::text, ia::text, ta::text, "
                         "ts::text, tz::text, convert_from(by, 'UTF8') FROM \"{}\" WHERE i2 = 3",
                         topic_)),
      (Rows{{s("-0.001"), s("123e4567-e89b-12d3-a456-426614174000"), s("{\"k\": 1}"),
             s("{\"x\":null}"), s("{4,NULL}"), s("{q}"), s("1970-01-01 00:00:00"),
             s("1970-01-01 00:00:00+00"), s("b")}}));
}

TEST_F(PostgresSinkTest, UpsertKeepsTheLastValuePerRecordKey) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 2);
  std::vector<RealKafka::Message> messages;
  // 10 keys, 6 versions each, a key always on the same partition.
  for (int version = 0; version < 6; ++version)
    for (int k = 0; k < 10; ++k)
      messages.push_back({k % 2, "key" + std::to_string(k),
                          fmt::format(R"({{"version":{},"note":"k{}v{}"}})", version, k, version)});
  kafka.produce(topic_, messages);

  RunningSink sink(
      props({{"insert.mode", "upsert"}, {"pk.mode", "record_key"}, {"pk.fields", "id"}}));
  ASSERT_TRUE(waitUntil(
      [&] {
        return storedOffsets() == std::map<int, int64_t>{{0, 30}, {1, 30}};
      },
      60s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(schema_->count(topic_), 10);
  EXPECT_EQ(schema_->count(topic_, "version = 5"), 10);
  EXPECT_EQ(select(fmt::format("SELECT note FROM \"{}\" WHERE id = 'key3'", topic_)),
            (Rows{{s("k3v5")}}));
  EXPECT_EQ(schema_->scalar(fmt::format(
                "SELECT string_agg(a.attname, ',') FROM pg_index i JOIN pg_attribute a ON "
                "a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND "
                "i.indrelid = '{}.\"{}\"'::regclass",
                schema_->name(), topic_)),
            "id");
}

// Issue 36, item 2: records of one key with other columns, and deletes between them, in one batch
// (the staged path, keeping a key's delete ahead of its later write).
TEST_F(PostgresSinkTest, ABatchGivesWhatApplyingItsRecordsOneByOneGives) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  // Key 6's write opens the segment that 8's last write (of the same columns) must not join.
  kafka.produce(topic_, {{0, "6", R"({"name":"f"})"},
                         {0, "7", R"({"name":"g","email":"g@x"})"},
                         {0, "7", R"({"name":"g2"})"},
                         {0, "8", R"({"name":"h1","email":"e1"})"},
                         {0, "8", std::nullopt},
                         {0, "8", R"({"name":"h2"})"},
                         {0, "9", R"({"name":"i","email":"i@x"})"},
                         {0, "9", R"({"phone":"555"})"}});
  for (const std::string mode : {"upsert", "update"}) {
    SCOPED_TRACE(mode);
    name_ = uniqueName("pgsink");  // a group of its own: each mode reads the topic from its start
    schema_->exec(fmt::format(
        "DROP TABLE IF EXISTS \"{0}\"; DROP TABLE IF EXISTS ksink_offsets; "
        "CREATE TABLE \"{0}\" (id text PRIMARY KEY, name text, email text, phone text); "
        "INSERT INTO \"{0}\" VALUES ('7', 'old', 'o@x', NULL), ('8', 'h', 'h@x', '1')",
        topic_));
    RunningSink sink(props({{"insert.mode", mode},
                            {"pk.mode", "record_key"},
                            {"pk.fields", "id"},
                            {"delete.enabled", "true"}}));
    ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 8}}; }, 60s));
    sink.stop();
    EXPECT_EQ(sink.error(), "");
    const auto rows =
        select(fmt::format("SELECT id, name, email, phone FROM \"{}\" ORDER BY id", topic_));
    if (mode == "upsert")
      EXPECT_EQ(rows, (Rows{{s("6"), s("f"), std::nullopt, std::nullopt},
                            {s("7"), s("g2"), s("g@x"), std::nullopt},
                            {s("8"), s("h2"), std::nullopt, std::nullopt},
                            {s("9"), s("i"), s("i@x"), s("555")}}));
    else  // an update after its key's delete, or of a key never written, changes nothing
      EXPECT_EQ(rows, (Rows{{s("7"), s("g2"), s("g@x"), std::nullopt}}));
  }
}

TEST_F(PostgresSinkTest, UpsertByRecordValueFieldsUpdatesRowsWrittenBefore) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  schema_->exec(
      fmt::format("CREATE TABLE \"{}\" (region text, id int8, qty int4, "
                  "PRIMARY KEY (region, id))",
                  topic_));
  schema_->exec(fmt::format("INSERT INTO \"{}\" VALUES ('eu', 1, 100), ('us', 1, 200)", topic_));
  kafka.produce(topic_, {{0, std::nullopt, R"({"region":"eu","id":1,"qty":1})"},
                         {0, std::nullopt, R"({"region":"eu","id":2,"qty":2})"},
                         {0, std::nullopt, R"({"region":"eu","id":1,"qty":3})"}});
  RunningSink sink(props({{"insert.mode", "upsert"},
                          {"pk.mode", "record_value"},
                          {"pk.fields", "region,id"},
                          {"auto.create", "false"}}));
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 3}}; }, 60s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(
      select(fmt::format("SELECT region, id::text, qty::text FROM \"{}\" ORDER BY 1, 2", topic_)),
      (Rows{{s("eu"), s("1"), s("3")}, {s("eu"), s("2"), s("2")}, {s("us"), s("1"), s("200")}}));
}

// Upserts of new keys stream straight into the table, pipelined; once keys exist the server
// refuses such a batch (23505) after put() returned, and it comes again to be staged.
TEST_F(PostgresSinkTest, UpsertsStreamNewKeysAndStageBatchesWhoseKeysExist) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  auto produce = [&](int first, int last, int qty) {
    std::vector<RealKafka::Message> messages;
    for (int id = first; id < last; ++id)
      messages.push_back({0, std::nullopt, fmt::format(R"({{"id":{},"qty":{}}})", id, qty)});
    kafka.produce(topic_, messages);
  };
  produce(0, 3000, 1);
  RunningSink sink(
      props({{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}}));
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 3000}}; }, 60s));
  produce(1500, 4500, 2);  // half of them keys the table has
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 6000}}; }, 60s));
  // The group's offsets follow once the pipelined outcomes are read (preCommit).
  EXPECT_TRUE(waitUntil(
      [&] {
        return kafka.committed("connect-" + name_, topic_, 1) == OffsetMap{{{topic_, 0}, 6000}};
      },
      30s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(schema_->count(topic_), 4500);
  EXPECT_EQ(schema_->count(topic_, "id < 1500 AND qty = 1"), 1500);
  EXPECT_EQ(schema_->count(topic_, "id >= 1500 AND qty = 2"), 3000);
}

TEST_F(PostgresSinkTest, UpdateModeChangesExistingRowsAndInsertsNone) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  schema_->exec(fmt::format("CREATE TABLE \"{}\" (id int8 PRIMARY KEY, status text)", topic_));
  schema_->exec(fmt::format("INSERT INTO \"{}\" VALUES (1, 'new'), (2, 'new')", topic_));
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":1,"status":"paid"})"},
                         {0, std::nullopt, R"({"id":3,"status":"paid"})"},
                         {0, std::nullopt, R"({"id":1,"status":"shipped"})"}});
  RunningSink sink(props({{"insert.mode", "update"},
                          {"pk.mode", "record_value"},
                          {"pk.fields", "id"},
                          {"auto.create", "false"}}));
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 3}}; }, 60s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(select(fmt::format("SELECT id::text, status FROM \"{}\" ORDER BY id", topic_)),
            (Rows{{s("1"), s("shipped")}, {s("2"), s("new")}}));
}

TEST_F(PostgresSinkTest, KafkaPkModeKeysRowsByTopicPartitionAndOffset) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 2);
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 40; ++i)
    messages.push_back({i % 2, std::nullopt, fmt::format(R"({{"i":{}}})", i)});
  kafka.produce(topic_, messages);
  runUntilRows({{"insert.mode", "upsert"}, {"pk.mode", "kafka"}}, 40);
  EXPECT_EQ(schema_->scalar(fmt::format(
                "SELECT count(DISTINCT (__connect_topic, __connect_partition, __connect_offset)) "
                "FROM \"{}\" WHERE __connect_topic = '{}'",
                topic_, topic_)),
            "40");
  EXPECT_EQ(select(fmt::format("SELECT __connect_partition::text, __connect_offset::text FROM "
                               "\"{}\" WHERE i = 5",
                               topic_)),
            (Rows{{s("1"), s("2")}}));
}

TEST_F(PostgresSinkTest, TombstonesDeleteRowsWhenDeleteIsEnabled) {
  auto& kafka = RealKafka::shared();
  std::vector<RealKafka::Message> messages;
  for (int k = 0; k < 10; ++k)
    messages.push_back({0, "k" + std::to_string(k), fmt::format(R"({{"n":{}}})", k)});
  // k1 deleted; k2 deleted, then written again; k3 deleted (in upsert mode after a new value,
  // which the batch's reduction must not resurrect).
  messages.push_back({0, "k1", std::nullopt});
  messages.push_back({0, "k2", std::nullopt});
  messages.push_back({0, "k2", R"({"n":22})"});
  auto upsert_messages = messages;
  upsert_messages.push_back({0, "k3", R"({"n":33})"});
  upsert_messages.push_back({0, "k3", std::nullopt});
  messages.push_back({0, "k3", std::nullopt});
  for (const auto* mode : {"upsert", "insert"}) {
    SCOPED_TRACE(mode);
    topic_ = uniqueName("pgt");
    name_ = uniqueName("pgsink");
    kafka.createTopic(topic_, 1);
    const auto& produced = std::string(mode) == "upsert" ? upsert_messages : messages;
    kafka.produce(topic_, produced);
    const auto end = static_cast<int64_t>(produced.size());
    RunningSink sink(props({{"insert.mode", mode},
                            {"pk.mode", "record_key"},
                            {"pk.fields", "id"},
                            {"delete.enabled", "true"}}));
    ASSERT_TRUE(waitUntil(
        [&] {
          return storedOffsets() == std::map<int, int64_t>{{0, end}};
        },
        60s));
    sink.stop();
    EXPECT_EQ(sink.error(), "");
    EXPECT_EQ(select(fmt::format("SELECT id, n::text FROM \"{}\" ORDER BY id", topic_)),
              (Rows{{s("k0"), s("0")},
                    {s("k2"), s("22")},
                    {s("k4"), s("4")},
                    {s("k5"), s("5")},
                    {s("k6"), s("6")},
                    {s("k7"), s("7")},
                    {s("k8"), s("8")},
                    {s("k9"), s("9")}}));
  }
}

TEST_F(PostgresSinkTest, AutoEvolveAddsNullableColumnsForNewFields) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":1})"}});
  runUntilRows({{"auto.evolve", "true"}}, 1);
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":2,"color":"red","weight":1.5})"}});
  runUntilRows({{"auto.evolve", "true"}}, 2);
  EXPECT_EQ(
      select(fmt::format("SELECT id::text, color, weight::text FROM \"{}\" ORDER BY id", topic_)),
      (Rows{{s("1"), std::nullopt, std::nullopt}, {s("2"), s("red"), s("1.5")}}));
  EXPECT_EQ(schema_->scalar(fmt::format(
                "SELECT data_type FROM information_schema.columns WHERE table_schema = '{}' AND "
                "table_name = '{}' AND column_name = 'weight'",
                schema_->name(), topic_)),
            "double precision");
}

TEST_F(PostgresSinkTest, FieldsWhitelistWritesOnlyTheListedFields) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":1,"secret":"x","name":"a"})"}});
  runUntilRows({{"fields.whitelist", "id,name"}}, 1);
  EXPECT_EQ(select(fmt::format("SELECT * FROM \"{}\"", topic_)), (Rows{{s("1"), s("a")}}));
}

TEST_F(PostgresSinkTest, TableNameFormatWithASchemaAndAJdbcUrl) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":1})"}});
  // postgresql://user@host:port/db → jdbc:postgresql://host:port/db?user=user
  const std::regex uri(R"(^postgres(?:ql)?://([^@/]+)@([^/]+)/([^?]+).*$)");
  std::smatch m;
  const auto& server = TestPostgres::shared().url();
  ASSERT_TRUE(std::regex_match(server, m, uri))
      << "KSINK_TEST_PG_URL must be a libpq URI: " << server;
  const auto jdbc = fmt::format("jdbc:postgresql://{}/{}?user={}&ApplicationName=ksink-test",
                                m[2].str(), m[3].str(), m[1].str());
  runUntilRows(
      {{"connection.url", jdbc}, {"table.name.format", schema_->name() + ".kafka_${topic}"}}, 1,
      "kafka_" + topic_);
  EXPECT_EQ(schema_->count("kafka_" + topic_), 1);
}

TEST_F(PostgresSinkTest, DbTimezoneConvertsInstantsForTimestampColumnsWithoutZone) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  schema_->exec(
      fmt::format("CREATE TABLE \"{}\" (id int8, local timestamp, utc timestamptz)", topic_));
  // 2024-07-01 12:00:00 UTC = 08:00 in New York (EDT).
  kafka.produce(topic_,
                {{0, std::nullopt, R"({"id":1,"local":1719835200000,"utc":1719835200000})"}});
  runUntilRows({{"db.timezone", "America/New_York"}, {"auto.create", "false"}}, 1);
  schema_->exec("SET TimeZone = 'UTC'");
  EXPECT_EQ(select(fmt::format("SELECT local::text, utc::text FROM \"{}\"", topic_)),
            (Rows{{s("2024-07-01 08:00:00"), s("2024-07-01 12:00:00+00")}}));
}

// Bad input with errors.tolerance=none: the task fails naming the record; nothing from that
// record on is committed, in the table or in Kafka.
TEST_F(PostgresSinkTest, ABadValueFailsTheTaskNamingTheRecordAndCommitsNothingPastIt) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  schema_->exec(fmt::format("CREATE TABLE \"{}\" (id int4, qty int4)", topic_));
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":1,"qty":1})"}});
  runUntilRows({{"auto.create", "false"}}, 1);
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":2,"qty":2})"},
                         {0, std::nullopt, R"({"id":3,"qty":"lots"})"},
                         {0, std::nullopt, R"({"id":4,"qty":4})"}});
  RunningSink sink(props({{"auto.create", "false"}}));
  ASSERT_TRUE(waitUntil([&] { return sink.done(); }, 60s));
  const auto error = sink.error();
  EXPECT_NE(error.find(fmt::format("topic {}, partition 0, offset 2", topic_)), std::string::npos)
      << error;
  EXPECT_NE(error.find("22P02"), std::string::npos) << error;
  EXPECT_LE(storedOffsets().at(0), 2);
  EXPECT_EQ(schema_->count(topic_, "id >= 3"), 0);
  // The group may hold no commit at all (the first run's final commit is best-effort); what it
  // must never hold is an offset past the bad record.
  for (const auto& [tp, offset] : kafka.committed("connect-" + name_, topic_, 1))
    EXPECT_LE(offset, 2) << fmt::format("{}", tp);
}

TEST_F(PostgresSinkTest, MalformedJsonFailsTheTaskNamingTheRecord) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":1})"}, {0, std::nullopt, R"({"id":)"}});
  RunningSink sink(props({}));
  ASSERT_TRUE(waitUntil([&] { return sink.done(); }, 60s));
  const auto error = sink.error();
  EXPECT_NE(error.find(fmt::format("topic {}, partition 0, offset 1", topic_)), std::string::npos)
      << error;
  EXPECT_LE(storedOffsets()[0], 1);
  EXPECT_EQ(tableExists(topic_) ? schema_->count(topic_, "id > 1") : 0, 0);
}

// Counts the records that reach the chain: one per successful conversion.
class CountConversions : public Transformation {
 public:
  static inline std::atomic<int> count{0};
  const ConfigDef& configDef() const override {
    static const ConfigDef def;
    return def;
  }
  void configure(const Config&) override {}
  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    ++count;
    return record;
  }
};

// The stream path converts records one by one and gives up part-way (here at the first record,
// whose table the general path must create, and at the malformed last one); the general path then
// takes the rows it converted instead of converting them again. A transform counts conversions:
// without that, the first record is converted twice (41).
TEST_F(PostgresSinkTest, ARecordIsConvertedOnceWhenTheStreamPathGivesUp) {
  TransformationRegistry::global().addTransformation(
      {"CountConversions"}, [] { return std::make_unique<CountConversions>(); });
  CountConversions::count = 0;
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 40; ++i)
    messages.push_back({0, std::nullopt, fmt::format(R"({{"id":{},"v":"x"}})", i)});
  messages.push_back({0, std::nullopt, R"({"id":40,)"});  // malformed: the stream path gives up
  kafka.produce(topic_, messages);
  RunningSink sink(props({{"errors.tolerance", "all"},
                          {"transforms", "count"},
                          {"transforms.count.type", "CountConversions"}}));
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 41}}; }, 60s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(schema_->count(topic_), 40);
  EXPECT_EQ(CountConversions::count.load(), 40);
}

// With errors.tolerance=all and a dead-letter queue, bad records (type mismatch, constraint
// violation, oversized value, malformed JSON, missing key field) go there; every good record is
// written, and the offsets cover everything.
TEST_F(PostgresSinkTest, BadRecordsGoToTheDeadLetterQueueAndTheRestIsWritten) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  const auto dlq = uniqueName("dlq");
  kafka.createTopic(dlq, 1);
  schema_->exec(
      fmt::format("CREATE TABLE \"{}\" (id int4 PRIMARY KEY, qty int4 CHECK (qty >= 0), "
                  "code text)",
                  topic_));
  schema_->exec(fmt::format("CREATE INDEX ON \"{}\" (code)", topic_));
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 50; ++i) {
    std::string value = fmt::format(R"({{"id":{},"qty":{},"code":"c"}})", i, i);
    if (i == 5) value = R"({"id":5,"qty":"five"})";                                         // 22P02
    if (i == 17) value = R"({"id":17,"qty":-1})";                                           // 23514
    if (i == 23) value = R"({"id":3,"qty":3})";                                             // 23505
    if (i == 31) value = fmt::format(R"({{"id":31,"code":"{}"}})", incompressible(12000));  // 54000
    if (i == 42) value = R"({"id":42,)";  // malformed
    messages.push_back({0, std::nullopt, value});
  }
  kafka.produce(topic_, messages);
  RunningSink sink(props({{"auto.create", "false"},
                          {"errors.tolerance", "all"},
                          {"errors.deadletterqueue.topic.name", dlq},
                          {"errors.deadletterqueue.topic.replication.factor", "1"}}));
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 50}}; }, 60s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(schema_->count(topic_), 45);
  EXPECT_EQ(schema_->count(topic_, "id IN (5, 17, 31, 42)"), 0);
  EXPECT_EQ(select(fmt::format("SELECT qty::text FROM \"{}\" WHERE id = 3", topic_)),
            (Rows{{s("3")}}));
  EXPECT_EQ(kafka.endOffset({dlq, 0}), 5);
}

// A bad record in a batch written through a staging table (upsert, update, or inserts converted
// by the server for db.timezone): the rollback that isolates it must not take the staging table
// with it. The bad record goes to the DLQ, the rest of the batch is written, the offsets move on.
TEST_F(PostgresSinkTest, ABadRecordInAStagedBatchGoesToTheDeadLetterQueue) {
  auto& kafka = RealKafka::shared();
  const std::vector<Props> modes{
      {{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}},
      {{"insert.mode", "update"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}},
      {{"insert.mode", "insert"}, {"db.timezone", "Europe/Paris"}}};
  for (const auto& mode : modes) {
    SCOPED_TRACE(mode.at("insert.mode"));
    topic_ = uniqueName("pgt");
    name_ = uniqueName("pgsink");
    kafka.createTopic(topic_, 1);
    const auto dlq = uniqueName("dlq");
    kafka.createTopic(dlq, 1);
    schema_->exec(fmt::format(
        "CREATE TABLE \"{}\" (id int4 PRIMARY KEY, qty int4 CHECK (qty >= 0), at timestamp)",
        topic_));
    if (mode.at("insert.mode") != "insert")  // keys that exist: the batch is staged
      schema_->exec(fmt::format(
          "INSERT INTO \"{}\" SELECT i, 100, NULL FROM generate_series(0, 19) i", topic_));
    std::vector<RealKafka::Message> messages;
    for (int i = 0; i < 20; ++i)
      messages.push_back(
          {0, std::nullopt,
           fmt::format(R"({{"schema":{{"type":"struct","fields":[)"
                       R"({{"field":"id","type":"int32"}},{{"field":"qty","type":"int32"}},)"
                       R"({{"field":"at","type":"int64","optional":true,)"
                       R"("name":"org.apache.kafka.connect.data.Timestamp"}}]}},)"
                       R"("payload":{{"id":{},"qty":{},"at":1700000000000}}}})",
                       i, i == 7 ? -1 : i)});
    kafka.produce(topic_, messages);
    Props extra = mode;
    extra.insert({{"auto.create", "false"},
                  {"value.converter.schemas.enable", "true"},
                  {"errors.tolerance", "all"},
                  {"errors.deadletterqueue.topic.name", dlq},
                  {"errors.deadletterqueue.topic.replication.factor", "1"}});
    RunningSink sink(props(extra));
    const bool stored = waitUntil(
        [&] {
          return sink.done() || storedOffsets() == std::map<int, int64_t>{{0, 20}};
        },
        60s);
    sink.stop();
    ASSERT_TRUE(stored);
    EXPECT_EQ(sink.error(), "");
    EXPECT_EQ(storedOffsets(), (std::map<int, int64_t>{{0, 20}}));
    EXPECT_EQ(kafka.endOffset({dlq, 0}), 1);
    EXPECT_EQ(schema_->count(topic_), mode.at("insert.mode") == "insert" ? 19 : 20);
    EXPECT_EQ(schema_->count(topic_, "qty = id AND at IS NOT NULL"), 19);
    EXPECT_EQ(schema_->count(topic_, "id = 7 AND qty = 7"), 0);
  }
}

// Schemaless records of many shapes each need a staging table of their own: the session keeps
// at most PgRowWriter::kMaxStagingTables of them (and one batch's), dropping the rest.
TEST_F(PostgresSinkTest, StagingTablesOfManyShapesStayBounded) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  constexpr int kShapes = 150, kRecords = 300;
  std::string columns;
  for (int f = 0; f < kShapes; ++f) columns += fmt::format(", f{} int4", f);
  schema_->exec(fmt::format("CREATE TABLE \"{}\" (id int4 PRIMARY KEY{})", topic_, columns));
  schema_->exec(
      fmt::format("INSERT INTO \"{}\" (id) SELECT generate_series(0, {})", topic_, kRecords - 1));
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < kRecords; ++i)
    messages.push_back(
        {0, std::nullopt, fmt::format(R"({{"id":{},"f{}":{}}})", i, i % kShapes, i)});
  kafka.produce(topic_, messages);
  RunningSink sink(props({{"insert.mode", "update"},
                          {"pk.mode", "record_value"},
                          {"pk.fields", "id"},
                          {"batch.size", "10"},
                          {"consumer.max.poll.records", "10"}}));
  ASSERT_TRUE(waitUntil(
      [&] {
        return sink.done() || storedOffsets() == std::map<int, int64_t>{{0, kRecords}};
      },
      120s));
  const auto staging = std::stoi(
      *schema_->scalar("SELECT count(*) FROM pg_class WHERE relpersistence = 't' AND relname LIKE "
                       "'ksink\\_stage\\_%'"));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_LE(staging, 64 + 10) << "staging tables left in the sink's session";
  EXPECT_GT(staging, 0);
  std::string written;
  for (int f = 0; f < kShapes; ++f) written += fmt::format(" + coalesce(f{}, 0)", f);
  EXPECT_EQ(schema_->count(topic_, fmt::format("0{} = id", written)), kRecords);
}

// A bad record whose dead-letter queue write the broker refuses (the DLQ topic takes no message
// that large) is safe nowhere: the task fails, and the database stores no offset past it, so the
// next run reads it again.
TEST_F(PostgresSinkTest, ABadRecordTheDeadLetterQueueRefusesIsNotSkipped) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  const auto dlq = uniqueName("dlq");
  kafka.createTopic(dlq, 1, {{"max.message.bytes", "64"}});
  schema_->exec(fmt::format("CREATE TABLE \"{}\" (id int4 PRIMARY KEY, qty int4)", topic_));
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 20; ++i)
    messages.push_back({0, std::nullopt,
                        i == 7 ? fmt::format(R"({{"id":7,"qty":"{}"}})", std::string(200, 'x'))
                               : fmt::format(R"({{"id":{},"qty":{}}})", i, i)});
  kafka.produce(topic_, messages);
  RunningSink sink(props({{"auto.create", "false"},
                          {"errors.tolerance", "all"},
                          {"errors.deadletterqueue.topic.name", dlq},
                          {"errors.deadletterqueue.topic.replication.factor", "1"}}));
  ASSERT_TRUE(waitUntil([&] { return sink.done(); }, 60s)) << "stored " << storedOffsets().size();
  EXPECT_NE(sink.error().find("dead-letter queue"), std::string::npos) << sink.error();
  EXPECT_EQ(kafka.endOffset({dlq, 0}), 0);
  const auto stored = storedOffsets();
  EXPECT_LE(stored.contains(0) ? stored.at(0) : 0, 7);
  EXPECT_EQ(schema_->count(topic_, "id >= 7"), 0);
  const auto committed = kafka.committed("connect-" + name_, topic_, 1);
  const TopicPartition tp{topic_, 0};
  EXPECT_LE(committed.contains(tp) ? committed.at(tp) : 0, 7);
}

// The sink's PostgreSQL backend stops answering (SIGSTOP: its socket stays open and acknowledges,
// so only a timeout can tell). Within connection.read.timeout.ms the sink drops the connection,
// reconnects and writes on while the old backend is still stopped; nothing is lost or doubled.
TEST_F(PostgresSinkTest, ABackendThatStopsAnsweringIsDroppedWithinTheReadTimeout) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  auto batch = [&](int first) {
    std::vector<RealKafka::Message> messages;
    for (int i = first; i < first + 50; ++i)
      messages.push_back({0, std::nullopt, fmt::format(R"({{"id":{}}})", i)});
    kafka.produce(topic_, messages);
  };
  batch(0);
  // Its own application_name: other tests' sinks may be connected to the same database.
  const std::string application = uniqueName("ksink");
  RunningSink sink(props({{"connection.url", TestPostgres::withParameter(
                                                 schema_->url(), "application_name", application)},
                          {"connection.read.timeout.ms", "2000"},
                          {"retry.backoff.ms", "200"}}));
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 50}}; }, 60s));
  const auto found = schema_->scalar(fmt::format(
      "SELECT pid::text FROM pg_stat_activity WHERE application_name = '{}'", application));
  ASSERT_TRUE(found) << "no ksink backend";
  const std::string pid = *found;
  ASSERT_EQ(::kill(std::stoi(pid), SIGSTOP), 0) << "cannot stop backend " << pid;
  batch(50);
  const bool written = waitUntil(
      [&] {
        return storedOffsets() == std::map<int, int64_t>{{0, 100}};
      },
      30s);
  ::kill(std::stoi(pid), SIGCONT);
  ASSERT_TRUE(written) << "the sink waited on the stopped backend";
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(schema_->count(topic_), 100);
  EXPECT_EQ(schema_->scalar(fmt::format("SELECT count(DISTINCT id)::text FROM \"{}\"", topic_)),
            std::optional<std::string>("100"));
}

// Records only the server can reject (a CHECK constraint, a duplicate primary key) in batches of
// the pipelined insert path, where the rejection arrives after put() returned: the batch comes
// again and is written by the path that isolates bad records.
TEST_F(PostgresSinkTest, RecordsTheServerRejectsAfterAPipelinedCopyGoToTheDeadLetterQueue) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  const auto dlq = uniqueName("dlq");
  kafka.createTopic(dlq, 1);
  schema_->exec(
      fmt::format("CREATE TABLE \"{}\" (id int4 PRIMARY KEY, qty int4 CHECK (qty >= 0))", topic_));
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 3000; ++i) {
    int id = i, qty = i;
    if (i == 1717) qty = -1;  // 23514
    if (i == 2323) id = 3;    // 23505
    messages.push_back({0, std::nullopt, fmt::format(R"({{"id":{},"qty":{}}})", id, qty)});
  }
  kafka.produce(topic_, messages);
  RunningSink sink(props({{"auto.create", "false"},
                          {"errors.tolerance", "all"},
                          {"errors.deadletterqueue.topic.name", dlq},
                          {"errors.deadletterqueue.topic.replication.factor", "1"}}));
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 3000}}; }, 60s));
  EXPECT_TRUE(waitUntil(
      [&] {
        return kafka.committed("connect-" + name_, topic_, 1) == OffsetMap{{{topic_, 0}, 3000}};
      },
      30s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(schema_->count(topic_), 2998);
  EXPECT_EQ(schema_->count(topic_, "id IN (1717, 2323)"), 0);
  EXPECT_EQ(kafka.endOffset({dlq, 0}), 2);
}

// Batches that span tables (two topics in one connector) cannot be pipelined: they stream one
// COPY after another and commit in place. Every record lands once, in its topic's table.
TEST_F(PostgresSinkTest, InsertBatchesSpanningTablesAreWrittenOnce) {
  auto& kafka = RealKafka::shared();
  const auto other = uniqueName("pgt");
  kafka.createTopic(topic_, 1);
  kafka.createTopic(other, 1);
  for (int round = 0; round < 3; ++round)  // interleaved, so batches hold both topics
    for (const auto& t : {topic_, other}) {
      std::vector<RealKafka::Message> messages;
      for (int i = 0; i < 1000; ++i)
        messages.push_back(
            {0, std::nullopt, fmt::format(R"({{"i":{},"t":"{}"}})", round * 1000 + i, t)});
      kafka.produce(t, messages);
    }
  RunningSink sink(
      props({{"topics", topic_ + "," + other}, {"consumer.max.poll.records", "4000"}}));
  const std::string progress = fmt::format(
      "SELECT count(*) FROM ksink_offsets WHERE connector = '{}' AND next_offset = 3000", name_);
  ASSERT_TRUE(waitUntil(
      [&] { return tableExists("ksink_offsets") && schema_->scalar(progress) == "2"; }, 60s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  for (const auto& t : {topic_, other}) {
    EXPECT_EQ(schema_->scalar(fmt::format(
                  "SELECT count(*) || '/' || count(DISTINCT i) || '/' || min(t) || max(t) FROM "
                  "\"{}\"",
                  t)),
              fmt::format("3000/3000/{}{}", t, t));
  }
}

TEST_F(PostgresSinkTest, ARecordTheServerRejectsAfterAPipelinedCopyFailsTheTaskNamingIt) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  schema_->exec(fmt::format("CREATE TABLE \"{}\" (id int4, qty int4 CHECK (qty >= 0))", topic_));
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 3000; ++i)
    messages.push_back(
        {0, std::nullopt, fmt::format(R"({{"id":{},"qty":{}}})", i, i == 1717 ? -1 : i)});
  kafka.produce(topic_, messages);
  RunningSink sink(props({{"auto.create", "false"}}));
  ASSERT_TRUE(waitUntil([&] { return sink.done(); }, 60s));
  const auto error = sink.error();
  EXPECT_NE(error.find(fmt::format("topic {}, partition 0, offset 1717", topic_)),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("23514"), std::string::npos) << error;
  EXPECT_LE(storedOffsets()[0], 1717);
  EXPECT_EQ(schema_->count(topic_, "id >= 1717"), 0);
  for (const auto& [tp, offset] : kafka.committed("connect-" + name_, topic_, 1))
    EXPECT_LE(offset, 1717) << fmt::format("{}", tp);
}

TEST_F(PostgresSinkTest, AnUpsertRecordWithoutItsKeyFieldGoesToTheDeadLetterQueue) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  const auto dlq = uniqueName("dlq");
  kafka.createTopic(dlq, 1);
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":1,"v":"a"})"},
                         {0, std::nullopt, R"({"v":"no id"})"},
                         {0, std::nullopt, R"({"id":2,"v":"b"})"}});
  RunningSink sink(props({{"insert.mode", "upsert"},
                          {"pk.mode", "record_value"},
                          {"pk.fields", "id"},
                          {"errors.tolerance", "all"},
                          {"errors.deadletterqueue.topic.name", dlq},
                          {"errors.deadletterqueue.topic.replication.factor", "1"}}));
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == std::map<int, int64_t>{{0, 3}}; }, 60s));
  sink.stop();
  EXPECT_EQ(sink.error(), "");
  EXPECT_EQ(select(fmt::format("SELECT id::text, v FROM \"{}\" ORDER BY id", topic_)),
            (Rows{{s("1"), s("a")}, {s("2"), s("b")}}));
  EXPECT_EQ(kafka.endOffset({dlq, 0}), 1);
}

// Two tasks believing they own the same partition (the zombie case without the timing): the
// compare-and-set on ksink_offsets lets exactly one of them write each range of offsets.
TEST_F(PostgresSinkTest, ATaskWhosePartitionWasWrittenByAnotherWritesNothingAndRewinds) {
  const auto config = RunningSink::makeConfig(props({}));
  const TopicPartition tp{topic_, 0};
  std::vector<std::string> values;
  for (int i = 0; i < 15; ++i) values.push_back(fmt::format(R"({{"i":{},"by":"?"}})", i));
  auto records = [&](int first, int last, const char* by) {
    std::vector<SinkRecord> out;
    for (int i = first; i < last; ++i) {
      values[static_cast<size_t>(i)] = fmt::format(R"({{"i":{},"by":"{}"}})", i, by);
      out.emplace_back(topic_, 0, i, std::nullopt, std::nullopt, values[static_cast<size_t>(i)]);
    }
    return out;
  };
  testing::FakeSinkTaskContext context_a, context_b;
  postgres::PostgresSinkTask a, b;
  a.initialize(context_a);
  b.initialize(context_b);
  a.start(config);
  b.start(config);
  a.open({tp});
  b.open({tp});

  b.put(records(0, 10, "b"));  // b writes first
  a.put(records(0, 10, "a"));  // a is now the zombie: nothing of it is written
  EXPECT_EQ(context_a.rewinds, (OffsetMap{{tp, 10}}));
  EXPECT_EQ(select(fmt::format("SELECT count(*), min(by), max(by) FROM \"{}\"", topic_)),
            (Rows{{s("10"), s("b"), s("b")}}));
  EXPECT_EQ(a.preCommit({{tp, 10}}), (OffsetMap{{tp, 10}}));

  a.put(records(10, 15, "a"));  // from the stored offset on, a writes legitimately...
  b.put(records(10, 15, "b"));  // ...and b, now behind, is fenced in turn
  EXPECT_EQ(context_b.rewinds, (OffsetMap{{tp, 15}}));
  EXPECT_EQ(select(fmt::format("SELECT by, count(*), count(DISTINCT i) FROM \"{}\" GROUP BY by "
                               "ORDER BY by",
                               topic_)),
            (Rows{{s("a"), s("5"), s("5")}, {s("b"), s("10"), s("10")}}));
  EXPECT_EQ(storedOffsets(), (std::map<int, int64_t>{{0, 15}}));
  a.stop();
  b.stop();
}

// A batch of inserts into one table is one COPY, whatever its partitions and however its
// schemaless values differ in JSON kind: a statement-level trigger counts the statements.
TEST_F(PostgresSinkTest, ABatchOfInsertsIsOneCopyStatement) {
  schema_->exec("CREATE TABLE statements (n int NOT NULL)");
  schema_->exec("INSERT INTO statements VALUES (0)");
  schema_->exec(
      fmt::format("CREATE TABLE \"{0}\" (i bigint, price double precision);"
                  "CREATE FUNCTION {1}.count_statement() RETURNS trigger LANGUAGE plpgsql AS "
                  "$$BEGIN UPDATE {1}.statements SET n = n + 1; RETURN NULL; END$$;"
                  "CREATE TRIGGER counted AFTER INSERT ON \"{0}\" FOR EACH STATEMENT "
                  "EXECUTE FUNCTION {1}.count_statement()",
                  topic_, schema_->name()));
  const auto config = RunningSink::makeConfig(props({}));
  std::vector<std::string> values;
  for (int i = 0; i < 3000; ++i)  // a whole and a fractional price, in turn
    values.push_back(i % 2 ? fmt::format(R"({{"i":{},"price":{}.5}})", i, i)
                           : fmt::format(R"({{"i":{},"price":{}}})", i, i));
  auto batch = [&](int first, int last) {
    std::vector<SinkRecord> out;
    for (int i = first; i < last; ++i)  // two partitions, interleaved
      out.emplace_back(topic_, i % 2, i / 2, std::nullopt, std::nullopt,
                       values[static_cast<size_t>(i)]);
    return out;
  };
  testing::FakeSinkTaskContext context;
  postgres::PostgresSinkTask task;
  task.initialize(context);
  task.start(config);
  task.open({{topic_, 0}, {topic_, 1}});
  task.put(batch(0, 2000));
  task.put(batch(2000, 3000));
  const OffsetMap written{{{topic_, 0}, 1500}, {{topic_, 1}, 1500}};
  EXPECT_EQ(task.preCommit(written), written);  // reads the last batch's outcome
  task.stop();
  EXPECT_EQ(schema_->count(topic_), 3000);
  EXPECT_EQ(schema_->count(topic_, "price <> floor(price)"), 1500);
  EXPECT_EQ(schema_->scalar("SELECT n FROM statements"), "2");
  EXPECT_EQ(storedOffsets(), (std::map<int, int64_t>{{0, 1500}, {1, 1500}}));
}

// Tasks of one connector starting together on a database that has neither ksink_offsets nor the
// topic's table: each one's CREATE may lose the race to another's, and every task still starts
// and writes.
TEST_F(PostgresSinkTest, TasksStartingTogetherOnAFreshDatabaseAllStartAndWrite) {
  constexpr int kTasks = 4;
  for (int round = 0; round < 6; ++round) {
    SetUp();  // a fresh schema, topic and connector each round
    const auto config = RunningSink::makeConfig(props({}));
    std::latch go(kTasks);
    std::vector<std::string> errors(kTasks);
    std::vector<std::thread> tasks;
    const std::string value = R"({"i":1})";
    for (int p = 0; p < kTasks; ++p)
      tasks.emplace_back([&, p] {
        try {
          testing::FakeSinkTaskContext context;
          postgres::PostgresSinkTask task;
          task.initialize(context);
          go.arrive_and_wait();
          task.start(config);
          task.open({{topic_, p}});
          const std::vector<SinkRecord> records{{topic_, p, 0, std::nullopt, std::nullopt, value}};
          task.put(records);
          task.stop();
        } catch (const std::exception& e) {
          errors[static_cast<size_t>(p)] = e.what();
        }
      });
    for (auto& t : tasks) t.join();
    EXPECT_EQ(errors, std::vector<std::string>(kTasks)) << "round " << round;
    EXPECT_EQ(schema_->count(topic_), kTasks) << "round " << round;
    EXPECT_EQ(storedOffsets(), (std::map<int, int64_t>{{0, 1}, {1, 1}, {2, 1}, {3, 1}}))
        << "round " << round;
  }
}

TEST_F(PostgresSinkTest, AMissingTableWithoutAutoCreateFailsAtStartWithTheReason) {
  RealKafka::shared().createTopic(topic_, 1);
  RunningSink sink(props({{"auto.create", "false"}}));
  ASSERT_TRUE(waitUntil([&] { return sink.done(); }, 30s));
  const auto error = sink.error();
  EXPECT_NE(error.find(fmt::format("table {} for topic {} does not exist", topic_, topic_)),
            std::string::npos)
      << error;
  EXPECT_EQ(schema_->count("ksink_offsets"), 0);
}

TEST_F(PostgresSinkTest, AnUnreachableServerFailsAtStartWithTheReason) {
  RealKafka::shared().createTopic(topic_, 1);
  // One attempt: the retries at start are PostgresStatusTest's.
  RunningSink sink(props({{"connection.url", "postgresql://nobody:s3cret@127.0.0.1:1/db"},
                          {"connection.attempts", "1"}}));
  ASSERT_TRUE(waitUntil([&] { return sink.done(); }, 30s));
  const auto error = sink.error();
  EXPECT_NE(
      error.find("cannot connect to PostgreSQL at postgresql://nobody:[hidden]@127.0.0.1:1/db"),
      std::string::npos)
      << error;
  EXPECT_EQ(error.find("s3cret"), std::string::npos) << error;
  EXPECT_EQ(RealKafka::shared().committed("connect-" + name_, topic_, 1), OffsetMap{});
}

TEST_F(PostgresSinkTest, AMalformedUrlIsRejectedBeforeAnythingStarts) {
  try {
    RunningSink::makeConfig(props({{"connection.url", "postgresql://h/db?bogus=1"}}));
    FAIL() << "accepted a malformed connection.url";
  } catch (const ConfigException& e) {
    ASSERT_EQ(e.problems().size(), 1u) << e.what();
    EXPECT_EQ(e.problems()[0].key, "connection.url");
    EXPECT_NE(e.problems()[0].reason.find("bogus"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ksink::it
