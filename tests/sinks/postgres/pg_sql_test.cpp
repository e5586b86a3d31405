// The statements the PostgreSQL sink sends: identifiers always quoted, values never inlined.
#include "pg_sql.h"

#include <gtest/gtest.h>

#include "pg_row_writer.h"
#include "pg_types.h"
#include "table_id.h"

namespace ksink::postgres {
namespace {

const TableId kOrders{std::nullopt, "Orders"};
const TableId kQualified{"sales", "order\"lines"};

TEST(PgSql, SavepointsAreNamedAndARollbackToOneReleasesIt) {
  EXPECT_EQ(PgSql::savepoint("ksink_isolate"), "SAVEPOINT ksink_isolate");
  EXPECT_EQ(PgSql::rollbackToSavepoint("ksink_upsert"),
            "ROLLBACK TO SAVEPOINT ksink_upsert; RELEASE SAVEPOINT ksink_upsert");
}

TEST(PgSql, SessionSettingsBoundLockWaitsAndQuoteTheTimeZoneAsALiteral) {
  EXPECT_EQ(PgSql::sessionSettings("Europe/Paris"),
            "SET idle_in_transaction_session_timeout = '20s'; SET lock_timeout = '10s'; "
            "SET TimeZone = 'Europe/Paris'");
  EXPECT_NE(PgSql::sessionSettings("x'; DROP TABLE t; --").find("'x''; DROP TABLE t; --'"),
            std::string::npos);
}

TEST(TableId, QuotesEveryPartAndDoublesEmbeddedQuotes) {
  EXPECT_EQ(kOrders.quoted(), R"("Orders")");
  EXPECT_EQ(kQualified.quoted(), R"("sales"."order""lines")");
  EXPECT_EQ(quoteIdentifier("a b"), R"("a b")");
}

TEST(TableId, OnlyADotInTheFormatSeparatesTheSchema) {
  EXPECT_EQ(TableId::parse("orders.v1", "${topic}"), (TableId{std::nullopt, "orders.v1"}));
  EXPECT_EQ(TableId::parse("analytics.orders.v1", "analytics.${topic}"),
            (TableId{"analytics", "orders.v1"}));
  EXPECT_EQ(TableId::parse("s.t", "s.t"), (TableId{"s", "t"}));
  EXPECT_EQ(TableId::parse("kafka_orders", "kafka_${topic}"),
            (TableId{std::nullopt, "kafka_orders"}));
}

TEST(PgSql, CreateTableDeclaresNotNullDefaultsAndThePrimaryKey) {
  const std::vector<PgSql::ColumnDef> columns{
      {"id", "bigint", true, ""}, {"Name", "text", false, ""}, {"n", "integer", true, "42"}};
  const std::vector<std::string> key{"id"};
  EXPECT_EQ(PgSql::createTable(kOrders, columns, key),
            R"(CREATE TABLE IF NOT EXISTS "Orders" ("id" bigint NOT NULL, "Name" text, )"
            R"("n" integer DEFAULT 42 NOT NULL, PRIMARY KEY ("id")))");
  EXPECT_EQ(PgSql::createTable(kOrders, std::span(columns).first(2), {}),
            R"(CREATE TABLE IF NOT EXISTS "Orders" ("id" bigint NOT NULL, "Name" text))");
}

TEST(PgSql, AnAddedColumnIsNotNullOnlyWithADefault) {
  EXPECT_EQ(PgSql::addColumn(kQualified, {"note", "text", true, ""}),
            R"(ALTER TABLE "sales"."order""lines" ADD COLUMN IF NOT EXISTS "note" text)");
  EXPECT_EQ(PgSql::addColumn(kQualified, {"tier", "integer", true, "1"}),
            R"(ALTER TABLE "sales"."order""lines" ADD COLUMN IF NOT EXISTS "tier" integer )"
            R"(DEFAULT 1 NOT NULL)");
  EXPECT_EQ(PgSql::addColumn(kQualified, {"s", "text", false, "'it''s'"}),
            R"(ALTER TABLE "sales"."order""lines" ADD COLUMN IF NOT EXISTS "s" text )"
            R"(DEFAULT 'it''s')");
}

TEST(PgSql, CopyNamesTheColumnsAndTheFormat) {
  const std::vector<std::string> columns{"id", "v"};
  EXPECT_EQ(PgSql::copyFrom(kOrders.quoted(), columns, true),
            R"(COPY "Orders" ("id", "v") FROM STDIN (FORMAT binary))");
  EXPECT_EQ(PgSql::copyFrom(kOrders.quoted(), columns, false),
            R"(COPY "Orders" ("id", "v") FROM STDIN)");
}

TEST(PgSql, StagingCopiesTheColumnTypesAndCanStageTimestampsWithTimeZone) {
  const std::vector<std::string> columns{"id", "at"};
  EXPECT_EQ(PgSql::createStaging("pg_temp.ksink_stage_0", kOrders, columns, {false, true}),
            R"(CREATE TEMP TABLE IF NOT EXISTS pg_temp.ksink_stage_0 ON COMMIT DELETE ROWS AS )"
            R"(SELECT "id", "at"::timestamptz AS "at" FROM "Orders" WITH NO DATA)");
}

constexpr std::string_view kNestedLoops =
    "SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; ";
constexpr std::string_view kDefaultJoins =
    "; SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT";

TEST(PgSql, UpsertUpdatesExistingKeysThenInsertsTheMissingOnes) {
  const std::vector<std::string> columns{"k1", "k2", "a"};
  EXPECT_EQ(PgSql::upsertFromStaging(kOrders, "s", columns, 2),
            std::string(kNestedLoops) +
                R"(UPDATE "Orders" AS ksink_t SET "a" = ksink_s."a" FROM s AS ksink_s WHERE )"
                R"(ksink_t."k1" = ksink_s."k1" AND ksink_t."k2" = ksink_s."k2"; )"
                R"(INSERT INTO "Orders" ("k1", "k2", "a") SELECT ksink_s."k1", ksink_s."k2", )"
                R"(ksink_s."a" FROM s AS ksink_s WHERE NOT EXISTS (SELECT 1 FROM "Orders" AS )"
                R"(ksink_t WHERE ksink_t."k1" = ksink_s."k1" AND ksink_t."k2" = ksink_s."k2"))" +
                std::string(kDefaultJoins));
}

TEST(PgSql, UpsertOfKeyOnlyRowsOnlyInsertsTheMissingKeys) {
  const std::vector<std::string> columns{"k"};
  EXPECT_EQ(PgSql::upsertFromStaging(kOrders, "s", columns, 1),
            std::string(kNestedLoops) +
                R"(INSERT INTO "Orders" ("k") SELECT ksink_s."k" FROM s AS ksink_s WHERE NOT )"
                R"(EXISTS (SELECT 1 FROM "Orders" AS ksink_t WHERE ksink_t."k" = ksink_s."k"))" +
                std::string(kDefaultJoins));
}

TEST(PgSql, UpdateAndDeleteJoinTheStagingTableOnTheKey) {
  const std::vector<std::string> columns{"k", "a"};
  EXPECT_EQ(
      PgSql::updateFromStaging(kOrders, "s", columns, 1),
      std::string(kNestedLoops) +
          R"(UPDATE "Orders" AS ksink_t SET "a" = ksink_s."a" FROM s AS ksink_s WHERE ksink_t."k" = ksink_s."k")" +
          std::string(kDefaultJoins));
  const std::vector<std::string> keys{"k1", "k2"};
  EXPECT_EQ(
      PgSql::deleteFromStaging(kOrders, "s", keys),
      std::string(kNestedLoops) +
          R"(DELETE FROM "Orders" AS ksink_t USING s AS ksink_s WHERE ksink_t."k1" = ksink_s."k1" AND ksink_t."k2" = ksink_s."k2")" +
          std::string(kDefaultJoins));
}

TEST(PgSql, OffsetsAreUpdatedOnlyWhenTheStoredValueIsTheExpectedOne) {
  const auto cas = PgSql::compareAndSetOffset();
  EXPECT_NE(cas.find(R"(UPDATE "ksink_offsets" SET next_offset = $4)"), std::string::npos) << cas;
  EXPECT_NE(cas.find("AND next_offset = $5"), std::string::npos) << cas;
  EXPECT_NE(PgSql::insertOffsetIfAbsent().find("ON CONFLICT DO NOTHING"), std::string::npos);
}

TEST(PgTypes, ColumnTypesFollowTheConnectSchema) {
  using T = Schema::Type;
  auto of = [](T t) { return PgTypes::columnType(*Schema::of(t)); };
  EXPECT_EQ(of(T::kInt8), "smallint");
  EXPECT_EQ(of(T::kInt32), "integer");
  EXPECT_EQ(of(T::kInt64), "bigint");
  EXPECT_EQ(of(T::kFloat32), "real");
  EXPECT_EQ(of(T::kFloat64), "double precision");
  EXPECT_EQ(of(T::kBoolean), "boolean");
  EXPECT_EQ(of(T::kString), "text");
  EXPECT_EQ(of(T::kBytes), "bytea");
  EXPECT_EQ(of(T::kMap), "jsonb");
  Schema ts;
  ts.type = T::kInt64;
  ts.name = std::string(Schema::kTimestampName);
  EXPECT_EQ(PgTypes::columnType(ts), "timestamptz");
  Schema decimal;
  decimal.type = T::kBytes;
  decimal.name = std::string(Schema::kDecimalName);
  EXPECT_EQ(PgTypes::columnType(decimal), "numeric");
  Schema array;
  array.type = T::kArray;
  array.value_schema = Schema::of(T::kString);
  EXPECT_EQ(PgTypes::columnType(array), "text[]");
  array.value_schema = Schema::of(T::kStruct);
  EXPECT_EQ(PgTypes::columnType(array), "jsonb");
}

TEST(PgTypes, DebeziumTypesGetTheSourceColumnTypes) {
  using T = Schema::Type;
  auto of = [](T type, std::string_view name) {
    Schema s;
    s.type = type;
    s.name = std::string(name);
    return PgTypes::columnType(s);
  };
  EXPECT_EQ(of(T::kInt32, "io.debezium.time.Date"), "date");
  EXPECT_EQ(of(T::kInt32, "io.debezium.time.Time"), "time");
  EXPECT_EQ(of(T::kInt64, "io.debezium.time.MicroTime"), "time");
  EXPECT_EQ(of(T::kInt64, "io.debezium.time.NanoTime"), "time");
  EXPECT_EQ(of(T::kInt64, "io.debezium.time.Timestamp"), "timestamp");
  EXPECT_EQ(of(T::kInt64, "io.debezium.time.MicroTimestamp"), "timestamp");
  EXPECT_EQ(of(T::kInt64, "io.debezium.time.NanoTimestamp"), "timestamp");
  EXPECT_EQ(of(T::kString, "io.debezium.time.ZonedTimestamp"), "timestamptz");
  EXPECT_EQ(of(T::kString, "io.debezium.time.ZonedTime"), "timetz");
  EXPECT_EQ(of(T::kString, "io.debezium.data.Uuid"), "uuid");
  EXPECT_EQ(of(T::kString, "io.debezium.data.Json"), "jsonb");
  EXPECT_EQ(of(T::kString, "io.debezium.data.Xml"), "xml");
  EXPECT_EQ(of(T::kString, "io.debezium.data.Enum"), "text");
  EXPECT_EQ(of(T::kString, "io.debezium.data.EnumSet"), "text");
  EXPECT_EQ(of(T::kBytes, "io.debezium.data.Bits"), "bit varying");
  EXPECT_EQ(of(T::kStruct, "io.debezium.data.VariableScaleDecimal"), "numeric");
  // decimal.handling.mode=string and =double carry no logical name.
  EXPECT_EQ(of(T::kString, ""), "text");
  EXPECT_EQ(of(T::kFloat64, ""), "double precision");
  // A name on the wrong type is no logical type.
  EXPECT_EQ(of(T::kString, "io.debezium.time.MicroTimestamp"), "text");
  Schema array;
  array.type = T::kArray;
  auto element = std::make_shared<Schema>();
  element->type = T::kInt64;
  element->name = "io.debezium.time.MicroTimestamp";
  array.value_schema = element;
  EXPECT_EQ(PgTypes::columnType(array), "timestamp[]");
  auto vsd = std::make_shared<Schema>();
  vsd->type = T::kStruct;
  vsd->name = "io.debezium.data.VariableScaleDecimal";
  array.value_schema = vsd;
  EXPECT_EQ(PgTypes::columnType(array), "numeric[]");
}

// Issue 36: under the Debezium class, the Debezium JDBC sink's DDL types (from its 3.5.0 jars).
TEST(PgTypes, DebeziumStyleDeclaresTheDebeziumSinksTypes) {
  using T = Schema::Type;
  constexpr auto kDebezium = TableSinkConfig::TableStyle::kDebezium;
  auto of = [&](T type, std::string_view name, SchemaParameters parameters = {}) {
    Schema s;
    s.type = type;
    s.name = std::string(name);
    s.parameters = std::move(parameters);
    return PgTypes::columnType(s, kDebezium);
  };
  EXPECT_EQ(of(T::kBytes, Schema::kDecimalName, {{"scale", "2"}}), "decimal(38,2)");
  EXPECT_EQ(
      of(T::kBytes, Schema::kDecimalName, {{"scale", "3"}, {"connect.decimal.precision", "10"}}),
      "decimal(10,3)");
  EXPECT_EQ(
      of(T::kBytes, Schema::kDecimalName, {{"scale", "2"}, {"connect.decimal.precision", "50"}}),
      "decimal(38,2)");
  EXPECT_EQ(of(T::kBytes, Schema::kDecimalName, {{"scale", "0"}}), "decimal(38,0)")
      << "not Debezium's decimal(38,-1), which rounds to tens";
  EXPECT_EQ(of(T::kBytes, Schema::kDecimalName, {{"scale", "-3"}}), "decimal(38,0)");
  EXPECT_EQ(of(T::kInt32, Schema::kTimeName), "time(6)");
  EXPECT_EQ(of(T::kInt64, Schema::kTimestampName), "timestamp(6)");
  EXPECT_EQ(of(T::kInt64, "io.debezium.time.MicroTimestamp"), "timestamp(6)");
  EXPECT_EQ(of(T::kString, "io.debezium.time.ZonedTimestamp"), "timestamp(6) with time zone");
  EXPECT_EQ(of(T::kString, "io.debezium.time.ZonedTime"), "time(6) with time zone");
  EXPECT_EQ(of(T::kString, "io.debezium.data.Json"), "json");
  EXPECT_EQ(of(T::kStruct, "io.debezium.data.VariableScaleDecimal"), "numeric");
  EXPECT_EQ(of(T::kInt32, Schema::kDateName), "date");
  EXPECT_EQ(of(T::kFloat32, ""), "real");
  EXPECT_EQ(of(T::kMap, ""), "jsonb");
}

// Issue 36, item 3: a field's default in the DDL, as a literal of its column type.
TEST(PgTypes, DefaultsAreLiteralsOfTheColumnType) {
  using T = Schema::Type;
  auto with = [](T type, Value v, std::string_view name = "", SchemaParameters p = {}) {
    Schema s;
    s.type = type;
    s.name = std::string(name);
    s.parameters = std::move(p);
    s.default_value = std::make_shared<const Value>(std::move(v));
    return PgTypes::defaultLiteral(s);
  };
  EXPECT_EQ(with(T::kInt32, Value::integer(42)), "42");
  EXPECT_EQ(with(T::kInt64, Value::integer(-7)), "-7");
  EXPECT_EQ(with(T::kFloat64, Value::floating(0.5)), "0.5");
  EXPECT_EQ(with(T::kFloat32, Value::floating(static_cast<float>(0.1))), "0.1");
  EXPECT_EQ(with(T::kBoolean, Value::boolean(true)), "true");
  EXPECT_EQ(with(T::kString, Value::string("it's")), "'it''s'");
  EXPECT_EQ(with(T::kBytes, Value::bytes("\x01\xab")), "'\\x01ab'");
  EXPECT_EQ(with(T::kBytes, Value::bytes("\x04\xd2"), Schema::kDecimalName, {{"scale", "2"}}),
            "12.34");
  EXPECT_EQ(with(T::kBytes, Value::bytes("\x01"), Schema::kDecimalName, {{"scale", "8"}}), "1E-8");
  EXPECT_EQ(with(T::kInt32, Value::integer(3), Schema::kDateName), "'1970-01-04'");
  EXPECT_EQ(with(T::kInt32, Value::integer(3723004), Schema::kTimeName), "'01:02:03.004'");
  EXPECT_EQ(with(T::kInt64, Value::integer(1700000000123), Schema::kTimestampName),
            "'2023-11-14 22:13:20.123+00'");
  EXPECT_EQ(with(T::kArray, Value::array({})), std::nullopt);
  EXPECT_EQ(with(T::kInt64, Value::integer(5), "io.debezium.time.MicroTimestamp"), std::nullopt);
  EXPECT_EQ(PgTypes::defaultLiteral(*Schema::of(T::kInt32)), std::nullopt);
}

TEST(PgTypes, OnlyInstantsAreConvertedViaTheSessionZone) {
  using T = Schema::Type;
  Schema instant;
  instant.type = T::kInt64;
  instant.name = std::string(Schema::kTimestampName);
  Schema wall;
  wall.type = T::kInt64;
  wall.name = std::string(Schema::kMicroTimestampName);
  EXPECT_TRUE(PgTypes::convertedViaZone(PgTypes::kTimestamp, instant, true));
  EXPECT_TRUE(PgTypes::convertedViaZone(PgTypes::kTimestamp, *Schema::of(T::kInt64), true));
  EXPECT_FALSE(PgTypes::convertedViaZone(PgTypes::kTimestamp, wall, true));
  EXPECT_FALSE(PgTypes::convertedViaZone(PgTypes::kTimestamptz, instant, true));
  EXPECT_FALSE(PgTypes::convertedViaZone(PgTypes::kTimestamp, instant, false));
}

}  // namespace
}  // namespace ksink::postgres

namespace ksink::postgres {
namespace {

// Staging tables are found by their table and columns: column names may hold any byte, so the
// signature counts its parts instead of separating them (U+001F once did, and "@tz" marked a
// converted column).
TEST(PgRowWriterStaging, SignaturesOfDifferentColumnsNeverReadAlike) {
  PgTable table;
  table.id = TableId::parse("t", "${topic}");
  const auto signature = [&](std::vector<std::string> columns, std::vector<bool> tz) {
    PgRowWriter::Target target;
    target.columns = std::move(columns);
    target.as_timestamptz = std::move(tz);
    return PgRowWriter::stagingSignature(table, target);
  };
  EXPECT_NE(signature({"x\x1fy"}, {false}), signature({"x", "y"}, {false, false}));
  EXPECT_NE(signature({"x@tz"}, {false}), signature({"x"}, {true}));
  EXPECT_NE(signature({"x"}, {false}), signature({"x"}, {true}));
  EXPECT_EQ(signature({"a", "b"}, {false, true}), signature({"a", "b"}, {false, true}));
}

}  // namespace
}  // namespace ksink::postgres
