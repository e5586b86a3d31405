// Debezium's data types through the PostgreSQL sink into a real server: records in the JSON
// envelope as Debezium's PostgreSQL connector writes them (decimal.handling.mode=precise,
// time.precision.mode=adaptive), tables made by auto.create, every column read back with its type
// and its value as the server prints it. Once by binary COPY, once by the text fallback, once with
// a db.timezone that must not move wall-clock timestamps.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

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

// One column: its field schema in the envelope, the payload values of row 1 (every value set) and
// row 2, and what the server reports for it: pg_typeof(col)::text and col::text of row 1.
struct Column {
  std::string name;
  std::string schema;  // the field's schema JSON without "field"
  std::string value;   // row 1's payload JSON
  std::string type;
  std::optional<std::string> text;
  std::string value2 = "null";  // row 2's
  std::optional<std::string> text2 = std::nullopt;
};

constexpr const char* kVsd =
    R"("type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},)"
    R"({"type":"bytes","optional":false,"field":"value"}],"optional":true,)"
    R"("name":"io.debezium.data.VariableScaleDecimal","version":1,"doc":"Variable scaled decimal")";

std::string optional(std::string_view type, std::string_view name) {
  return fmt::format(R"("type":"{}","optional":true,"name":"{}","version":1)", type, name);
}

std::string arrayOf(std::string_view items) {
  return fmt::format(R"("type":"array","optional":true,"items":{{{}}})", items);
}

// 2024-03-01 10:15:30.123456 in each of Debezium's units.
std::vector<Column> debeziumColumns() {
  return {
      {"d", optional("int32", "io.debezium.time.Date"), "19783", "date", "2024-03-01", "-1",
       "1969-12-31"},
      {"t_ms", optional("int32", "io.debezium.time.Time"), "36930123", "time without time zone",
       "10:15:30.123"},
      {"t_us", optional("int64", "io.debezium.time.MicroTime"), "36930123456",
       "time without time zone", "10:15:30.123456", "86400000000", "24:00:00"},
      // Nanoseconds: PostgreSQL keeps microseconds, the rest is truncated (not rounded).
      {"t_ns", optional("int64", "io.debezium.time.NanoTime"), "36930123456789",
       "time without time zone", "10:15:30.123456"},
      {"ts_ms", optional("int64", "io.debezium.time.Timestamp"), "1709288130123",
       "timestamp without time zone", "2024-03-01 10:15:30.123"},
      {"ts_us", optional("int64", "io.debezium.time.MicroTimestamp"), "1709288130123456",
       "timestamp without time zone", "2024-03-01 10:15:30.123456", "-1",
       "1969-12-31 23:59:59.999999"},
      {"ts_ns", optional("int64", "io.debezium.time.NanoTimestamp"), "1709288130123456789",
       "timestamp without time zone", "2024-03-01 10:15:30.123456", "-1",
       "1969-12-31 23:59:59.999999"},
      {"tstz", optional("string", "io.debezium.time.ZonedTimestamp"),
       R"("2024-03-01T10:15:30.123456Z")", "timestamp with time zone",
       "2024-03-01 10:15:30.123456+00", R"("2024-03-01T11:45:30.5+01:30")",
       "2024-03-01 10:15:30.5+00"},
      {"ttz", optional("string", "io.debezium.time.ZonedTime"), R"("10:15:30.123Z")",
       "time with time zone", "10:15:30.123+00", R"("10:15:30.123456-08:00")",
       "10:15:30.123456-08"},
      {"u", optional("string", "io.debezium.data.Uuid"),
       R"("123e4567-e89b-12d3-a456-426614174000")", "uuid", "123e4567-e89b-12d3-a456-426614174000"},
      {"j", optional("string", "io.debezium.data.Json"), R"("{\"a\": [1, 2.50], \"b\": null}")",
       "jsonb", R"({"a": [1, 2.50], "b": null})"},
      {"x", optional("string", "io.debezium.data.Xml"), R"("<a b=\"1\">x &amp; y</a>")", "xml",
       R"(<a b="1">x &amp; y</a>)"},
      {"e",
       R"("type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,)"
       R"("parameters":{"allowed":"red,green"})",
       R"("green")", "text", "green"},
      {"es",
       R"("type":"string","optional":true,"name":"io.debezium.data.EnumSet","version":1,)"
       R"("parameters":{"allowed":"red,green"})",
       R"("red,green")", "text", "red,green"},
      // The source's b'1000000101' in a bit(10) column: little-endian bytes 05 02.
      {"bits",
       R"("type":"bytes","optional":true,"name":"io.debezium.data.Bits","version":1,)"
       R"("parameters":{"length":"10"})",
       R"("BQI=")", "bit varying", "1000000101", R"("AA==")", "0000000000"},
      {"vsd", kVsd, R"({"scale":9,"value":"J+QbMka+ybFuOYEV"})", "numeric",
       "12345678901234567890.123456789", R"({"scale":3,"value":"/38="})", "-0.129"},
      {"vsd_zero", kVsd, R"({"scale":0,"value":"AA=="})", "numeric", "0"},
      {"dec",
       R"("type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",)"
       R"("version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"})",
       R"("BOI=")", "numeric", "12.50"},
      // decimal.handling.mode=string and =double: no logical name.
      {"dec_str", R"("type":"string","optional":true)", R"("12.345")", "text", "12.345"},
      {"dec_dbl", R"("type":"double","optional":true)", "12.345", "double precision", "12.345"},
      {"a_ts", arrayOf(optional("int64", "io.debezium.time.MicroTimestamp")),
       "[1709288130123456,null]", "timestamp without time zone[]",
       R"({"2024-03-01 10:15:30.123456",NULL})"},
      {"a_d", arrayOf(optional("int32", "io.debezium.time.Date")), "[19783,0]", "date[]",
       "{2024-03-01,1970-01-01}"},
      {"a_t", arrayOf(optional("int64", "io.debezium.time.MicroTime")), "[36930123456]",
       "time without time zone[]", "{10:15:30.123456}"},
      {"a_tstz", arrayOf(optional("string", "io.debezium.time.ZonedTimestamp")),
       R"(["2024-03-01T10:15:30.123456Z"])", "timestamp with time zone[]",
       R"({"2024-03-01 10:15:30.123456+00"})"},
      {"a_u", arrayOf(optional("string", "io.debezium.data.Uuid")),
       R"(["123e4567-e89b-12d3-a456-426614174000"])", "uuid[]",
       "{123e4567-e89b-12d3-a456-426614174000}"},
      {"a_j", arrayOf(optional("string", "io.debezium.data.Json")), R"(["{\"k\": 1}"])", "jsonb[]",
       R"({"{\"k\": 1}"})"},
      {"a_vsd", arrayOf(kVsd), R"([{"scale":3,"value":"/38="},{"scale":1,"value":"Dw=="}])",
       "numeric[]", "{-0.129,1.5}"},
  };
}

class PostgresDebeziumTypesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = TestPostgres::shared().freshSchema("dbz");
    topic_ = uniqueName("dbzt");
    name_ = uniqueName("dbzsink");
  }

  // Writes rows 1 and 2 of every column (plus `force`, a ZonedTimestamp column whose values pick
  // the COPY format: one without a binary form sends the whole batch as text), then compares.
  void writeAndCompare(const std::string& force1, const std::string& force2, Props extra = {}) {
    auto columns = debeziumColumns();
    std::string fields = R"({"type":"int32","optional":false,"field":"id"})";
    for (const auto& c : columns)
      fields += fmt::format(R"(,{{{},"field":"{}"}})", c.schema, c.name);
    fields += fmt::format(R"(,{{{},"field":"force"}})",
                          optional("string", "io.debezium.time.ZonedTimestamp"));
    const std::string schema = fmt::format(
        R"({{"type":"struct","name":"dbserver1.public.t.Value","optional":false,"fields":[{}]}})",
        fields);
    auto row = [&](int id, bool first, const std::string& force) {
      std::string payload = fmt::format(R"({{"id":{})", id);
      for (const auto& c : columns)
        payload += fmt::format(R"(,"{}":{})", c.name, first ? c.value : c.value2);
      payload += fmt::format(R"(,"force":"{}"}})", force);
      return fmt::format(R"({{"schema":{},"payload":{}}})", schema, payload);
    };
    auto& kafka = RealKafka::shared();
    kafka.createTopic(topic_, 1);
    kafka.produce(topic_, {{0, std::nullopt, row(1, true, force1)},
                           {0, std::nullopt, row(2, false, force2)}});

    Props props{{"name", name_},
                {"connector.class", "postgres"},
                {"topics", topic_},
                {"bootstrap.servers", kafka.bootstrap()},
                {"connection.url", schema_->url()},
                {"offset.flush.interval.ms", "500"},
                {"consumer.override.session.timeout.ms", "10000"},
                {"key.converter", "string"},
                {"value.converter.schemas.enable", "true"},
                {"auto.create", "true"}};
    for (auto& [k, v] : extra) props[k] = v;
    {
      RunningSink sink(props);
      const bool reached = waitUntil(
          [&] {
            return sink.done() ||
                   (schema_->scalar(fmt::format("SELECT to_regclass('{}.\"{}\"') IS NOT NULL",
                                                schema_->name(), topic_)) == "t" &&
                    schema_->count(topic_) >= 2);
          },
          60s);
      ASSERT_TRUE(reached) << "timed out";
      ASSERT_EQ(sink.error(), "");
    }

    schema_->exec("SET TimeZone = 'UTC'");
    std::string select;
    for (const auto& c : columns)
      select += fmt::format("{}pg_typeof(\"{}\")::text, \"{}\"::text", select.empty() ? "" : ", ",
                            c.name, c.name);
    const auto rows =
        schema_->query(fmt::format("SELECT {} FROM \"{}\" ORDER BY id", select, topic_));
    ASSERT_EQ(rows.size(), 2u);
    for (size_t i = 0; i < columns.size(); ++i) {
      const auto& c = columns[i];
      EXPECT_EQ(rows[0][2 * i], c.type) << c.name;
      EXPECT_EQ(rows[0][2 * i + 1], c.text) << c.name;
      EXPECT_EQ(rows[1][2 * i + 1], c.text2) << c.name << " (row 2)";
    }
  }

  std::unique_ptr<PgTestSchema> schema_;
  std::string topic_;
  std::string name_;
};

TEST_F(PostgresDebeziumTypesTest, EveryTypeKeepsItsValueByBinaryCopy) {
  // Every value here has a binary form (tests/sinks/postgres/column_encoder_test.cpp checks each
  // kind).
  writeAndCompare("2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z");
}

TEST_F(PostgresDebeziumTypesTest, EveryTypeKeepsItsValueByTextCopy) {
  // "infinity" has no binary timestamptz form the sink writes: the batch goes as text COPY.
  writeAndCompare("infinity", "-infinity");
  EXPECT_EQ(schema_->query(fmt::format("SELECT force::text FROM \"{}\" ORDER BY id", topic_)),
            (Rows{{std::string("infinity")}, {std::string("-infinity")}}));
}

TEST_F(PostgresDebeziumTypesTest, WallClockTimestampsIgnoreTheSessionZone) {
  // db.timezone converts instants for `timestamp` columns; Debezium's Timestamp, MicroTimestamp
  // and NanoTimestamp are the source's wall time already and must not move.
  writeAndCompare("2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z",
                  {{"db.timezone", "America/New_York"}});
}

}  // namespace
}  // namespace ksink::it
