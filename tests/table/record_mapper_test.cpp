// RecordMapper: records → rows per pk.mode, whitelist, tombstones and upsert reduction.
#include "ksink/record_mapper.h"

#include <gtest/gtest.h>

#include <set>

namespace ksink {
namespace {

TableSinkConfig tableConfig(std::map<std::string, std::string> values) {
  values.emplace("name", "c");
  return TableSinkConfig::parse(Config(std::move(values)));
}

RecordMapper mapper(std::map<std::string, std::string> values) {
  auto with_converters = values;
  with_converters.emplace("value.converter", "json");
  with_converters.emplace("value.converter.schemas.enable", "false");
  with_converters.emplace("key.converter", "json");
  with_converters.emplace("key.converter.schemas.enable", "false");
  return RecordMapper(tableConfig(values), Config(with_converters));
}

SinkRecord record(int64_t offset, std::optional<std::string_view> key,
                  std::optional<std::string_view> value, std::string_view topic = "orders") {
  return SinkRecord(topic, 3, offset, 1000, key, value);
}

std::vector<std::string> columnNames(const RecordMapper::Row& row) {
  std::vector<std::string> out;
  for (const auto& c : row.layout->columns) out.push_back(c.name);
  return out;
}

TEST(RecordMapperTest, PkModeNoneWritesTheValueFieldsToTheFormattedTable) {
  auto m = mapper({{"table.name.format", "kafka_${topic}"}});
  const auto r = record(5, std::nullopt, R"({"id":1,"name":"a"})");
  const auto row = m.map(r);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->layout->table, "kafka_orders");
  EXPECT_EQ(columnNames(*row), (std::vector<std::string>{"id", "name"}));
  EXPECT_EQ(row->layout->key_count, 0u);
  EXPECT_EQ(row->values[1], Value::string("a"));
  EXPECT_EQ(row->record, &r);
}

TEST(RecordMapperTest, PkModeKafkaPrependsTopicPartitionOffset) {
  auto m = mapper({{"pk.mode", "kafka"}});
  const auto row = m.map(record(5, std::nullopt, R"({"id":1})"));
  EXPECT_EQ(columnNames(*row), (std::vector<std::string>{"__connect_topic", "__connect_partition",
                                                         "__connect_offset", "id"}));
  EXPECT_EQ(row->layout->key_count, 3u);
  EXPECT_EQ(row->values[0], Value::string("orders"));
  EXPECT_EQ(row->values[1], Value::integer(3));
  EXPECT_EQ(row->values[2], Value::integer(5));
}

TEST(RecordMapperTest, PkModeRecordKeyTakesAPrimitiveKeyOrTheKeyStructFields) {
  auto primitive = mapper({{"pk.mode", "record_key"}, {"pk.fields", "order_id"}});
  auto row = primitive.map(record(1, "17", R"({"name":"a"})"));
  EXPECT_EQ(columnNames(*row), (std::vector<std::string>{"order_id", "name"}));
  EXPECT_EQ(row->values[0], Value::integer(17));

  auto fields = mapper({{"pk.mode", "record_key"}});
  row = fields.map(record(1, R"({"a":1,"b":"x"})", R"({"a":9,"name":"n"})"));
  EXPECT_EQ(columnNames(*row), (std::vector<std::string>{"a", "b", "name"}));
  EXPECT_EQ(row->values[0], Value::integer(1)) << "the key's column wins over the value field";
}

TEST(RecordMapperTest, PkModeRecordValueUsesTheNamedValueFields) {
  auto m = mapper({{"pk.mode", "record_value"}, {"pk.fields", "id"}});
  const auto row = m.map(record(1, std::nullopt, R"({"name":"a","id":4})"));
  EXPECT_EQ(columnNames(*row), (std::vector<std::string>{"id", "name"}));
  EXPECT_TRUE(row->layout->columns[0].primary_key);
  EXPECT_FALSE(row->layout->columns[1].primary_key);
}

TEST(RecordMapperTest, WhitelistKeepsOnlyTheNamedValueFields) {
  auto m = mapper({{"fields.whitelist", "b, c"}});
  const auto row = m.map(record(1, std::nullopt, R"({"a":1,"b":2,"c":3})"));
  EXPECT_EQ(columnNames(*row), (std::vector<std::string>{"b", "c"}));
}

TEST(RecordMapperTest, TombstonesAreSkippedOrBecomeDeletes) {
  auto skip = mapper({});
  EXPECT_FALSE(skip.map(record(1, "1", std::nullopt)));

  auto del = mapper({{"pk.mode", "record_key"}, {"pk.fields", "id"}, {"delete.enabled", "true"}});
  const auto row = del.map(record(1, "7", std::nullopt));
  ASSERT_TRUE(row);
  EXPECT_TRUE(row->is_delete);
  EXPECT_EQ(columnNames(*row), (std::vector<std::string>{"id"}));
  EXPECT_EQ(row->values, (std::vector<Value>{Value::integer(7)}));
}

TEST(RecordMapperTest, RowsOfTheSameShapeShareALayout) {
  auto m = mapper({});
  const auto a = m.map(record(1, std::nullopt, R"({"id":1})"));
  const auto b = m.map(record(2, std::nullopt, R"({"id":2})"));
  const auto c = m.map(record(3, std::nullopt, R"({"id":"x"})"));
  EXPECT_EQ(a->layout.get(), b->layout.get());
  EXPECT_NE(a->layout.get(), c->layout.get()) << "a different inferred type is another layout";
}

// Field names may hold any byte, the layout cache's old separator (U+001F) included: a name that
// contains it is one column, never two, in either order of arrival.
TEST(RecordMapperTest, FieldNamesHoldingTheUnitSeparatorNeverShareALayoutWithTwoFields) {
  for (const bool joined_first : {true, false}) {
    auto m = mapper({});
    const auto joined_record = record(1, std::nullopt, R"({"x\u001fdy":2})");
    const auto split_record = record(2, std::nullopt, R"({"x":1.5,"y":2})");
    std::optional<RecordMapper::Row> joined, split;
    if (joined_first) {
      joined = m.map(joined_record);
      split = m.map(split_record);
    } else {
      split = m.map(split_record);
      joined = m.map(joined_record);
    }
    ASSERT_TRUE(joined && split);
    EXPECT_NE(joined->layout.get(), split->layout.get());
    EXPECT_EQ(columnNames(*joined), (std::vector<std::string>{std::string("x\x1f"
                                                                          "dy")}));
    EXPECT_EQ(columnNames(*split), (std::vector<std::string>{"x", "y"}));
    ASSERT_EQ(joined->values.size(), 1u);
    EXPECT_EQ(joined->values[0], Value::integer(2));
  }
}

TEST(RecordMapperTest, BadRecordsComeBackWithTheRecordAndDoNotStopTheBatch) {
  auto m = mapper({{"pk.mode", "record_key"}, {"pk.fields", "id"}});
  const std::vector<SinkRecord> records = {
      record(1, "1", R"({"a":1})"), record(2, std::nullopt, R"({"a":2})"),
      record(3, "3", R"({"a":)"), record(4, "4", R"({"a":4})")};
  const auto batch = m.map(std::span(records));
  ASSERT_EQ(batch.rows.size(), 2u);
  EXPECT_EQ(batch.rows[1].record->offset(), 4);
  ASSERT_EQ(batch.failures.size(), 2u);
  EXPECT_EQ(batch.failures[0].record->offset(), 2);
  EXPECT_EQ(batch.failures[1].record->offset(), 3);
  EXPECT_THROW(std::rethrow_exception(batch.failures[0].error), ConversionError);
}

TEST(RecordMapperTest, UpsertReducesTheBatchToTheLastRowPerKey) {
  auto m = mapper({{"insert.mode", "upsert"},
                   {"pk.mode", "record_key"},
                   {"pk.fields", "id"},
                   {"delete.enabled", "true"}});
  const std::vector<SinkRecord> records = {
      record(1, "1", R"({"v":"a"})"), record(2, "2", R"({"v":"b"})"),
      record(3, "1", R"({"v":"c"})"), record(4, "2", std::nullopt),
      record(5, "1", R"({"v":"d"})", "other")};
  const auto batch = m.map(std::span(records));
  ASSERT_EQ(batch.rows.size(), 3u);
  EXPECT_EQ(batch.rows[0].record->offset(), 3);  // key 1: the last write
  EXPECT_EQ(batch.rows[1].record->offset(), 4);  // key 2: written, then deleted → delete
  EXPECT_TRUE(batch.rows[1].is_delete);
  EXPECT_EQ(batch.rows[2].record->offset(), 5);  // same key, other table
}

// Issue 36: a batch must give what applying its records one by one gives, whatever their columns.
TEST(RecordMapperTest, AWriteAbsorbsTheColumnsItLacksFromTheEarlierWriteOfItsKey) {
  for (const auto* mode : {"upsert", "update"}) {
    SCOPED_TRACE(mode);
    auto m = mapper({{"insert.mode", mode}, {"pk.mode", "record_key"}, {"pk.fields", "id"}});
    const std::vector<SinkRecord> records = {
        record(1, "7", R"({"name":"g","email":"g@x"})"), record(2, "7", R"({"name":"g2"})"),
        record(3, "7", R"({"email":null,"phone":"555"})"), record(4, "8", R"({"name":"h"})")};
    const auto batch = m.map(std::span(records));
    ASSERT_EQ(batch.rows.size(), 2u);
    const auto& merged = batch.rows[0];
    EXPECT_EQ(merged.record->offset(), 3);  // the last write's coordinates
    EXPECT_EQ(columnNames(merged), (std::vector<std::string>{"id", "name", "email", "phone"}));
    EXPECT_EQ(merged.values, (std::vector<Value>{Value::integer(7), Value::string("g2"), Value(),
                                                 Value::string("555")}));
    EXPECT_EQ(batch.rows[1].record->offset(), 4);
    EXPECT_EQ(columnNames(batch.rows[1]), (std::vector<std::string>{"id", "name"}));
  }
}

TEST(RecordMapperTest, AWriteAfterADeleteOfItsKeyStaysBehindItWithItsOwnColumns) {
  auto m = mapper({{"insert.mode", "upsert"},
                   {"pk.mode", "record_key"},
                   {"pk.fields", "id"},
                   {"delete.enabled", "true"}});
  const std::vector<SinkRecord> records = {record(1, "8", R"({"name":"h","email":"h@x"})"),
                                           record(2, "8", std::nullopt),
                                           record(3, "8", R"({"name":"h2"})"),
                                           record(4, "8", R"({"note":"n"})"),
                                           record(5, "9", std::nullopt),
                                           record(6, "9", std::nullopt)};
  const auto batch = m.map(std::span(records));
  std::vector<int64_t> offsets;
  for (const auto& row : batch.rows) offsets.push_back(row.record->offset());
  // Key 8: the delete, then one write holding what came after it; key 9: one delete.
  EXPECT_EQ(offsets, (std::vector<int64_t>{2, 4, 6}));
  EXPECT_TRUE(batch.rows[0].is_delete);
  EXPECT_EQ(columnNames(batch.rows[1]), (std::vector<std::string>{"id", "name", "note"}));
  EXPECT_EQ(batch.rows[1].values[1], Value::string("h2"));
}

TEST(RecordMapperTest, AChainOfWritesLackingTheSameColumnSharesOneMergedLayout) {
  auto m = mapper({{"insert.mode", "upsert"}, {"pk.mode", "record_key"}, {"pk.fields", "id"}});
  const std::vector<SinkRecord> records = {
      record(1, "1", R"({"a":1,"b":2})"), record(2, "1", R"({"a":3})"),
      record(3, "1", R"({"a":4})"), record(4, "1", R"({"a":5})")};
  const auto batch = m.map(std::span(records));
  ASSERT_EQ(batch.rows.size(), 1u);
  EXPECT_EQ(batch.rows[0].values,
            (std::vector<Value>{Value::integer(1), Value::integer(5), Value::integer(2)}));
  // The records it stands for, each reported should the row be rejected.
  std::vector<int64_t> offsets;
  batch.rows[0].forEachRecord([&](const SinkRecord& r) { offsets.push_back(r.offset()); });
  EXPECT_EQ(offsets, (std::vector<int64_t>{1, 2, 3, 4}));
  const std::vector<SinkRecord> again = {record(5, "2", R"({"a":1,"b":2})"),
                                         record(6, "2", R"({"a":3})"),
                                         record(7, "2", R"({"a":4})")};
  EXPECT_EQ(m.map(std::span(again)).rows[0].layout, batch.rows[0].layout)
      << "one merged layout, not one per write";
}

TEST(RecordMapperTest, RowsOfTheSameTwoShapesShareTheirMergedLayout) {
  auto m = mapper({{"insert.mode", "upsert"}, {"pk.mode", "record_key"}, {"pk.fields", "id"}});
  const std::vector<SinkRecord> records = {
      record(1, "1", R"({"a":1,"b":2})"), record(2, "1", R"({"a":3})"),
      record(3, "2", R"({"a":1,"b":2})"), record(4, "2", R"({"a":4})")};
  const auto batch = m.map(std::span(records));
  ASSERT_EQ(batch.rows.size(), 2u);
  EXPECT_EQ(batch.rows[0].layout, batch.rows[1].layout);
  EXPECT_EQ(batch.rows[1].values,
            (std::vector<Value>{Value::integer(2), Value::integer(4), Value::integer(2)}));
}

TEST(RecordMapperTest, UpsertKeysCompareByTypeAndEveryKeyField) {
  auto m = mapper({{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "a,b"}});
  const std::vector<SinkRecord> records = {
      record(1, std::nullopt, R"({"a":1,"b":"x","v":1})"),
      record(2, std::nullopt, R"({"a":"1","b":"x","v":2})"),  // a is text: another key
      record(3, std::nullopt, R"({"a":1,"b":"y","v":3})"),    // b differs: another key
      record(4, std::nullopt, R"({"a":1.5,"b":"x","v":4})"),
      record(5, std::nullopt, R"({"a":1,"b":"x","v":5})"),     // same as offset 1
      record(6, std::nullopt, R"({"a":1.5,"b":"x","v":6})")};  // same as offset 4
  const auto batch = m.map(std::span(records));
  std::vector<int64_t> offsets;
  for (const auto& row : batch.rows) offsets.push_back(row.record->offset());
  EXPECT_EQ(offsets, (std::vector<int64_t>{2, 3, 5, 6}));
}

TEST(RecordMapperTest, InsertModeKeepsEveryRow) {
  auto m = mapper({{"pk.mode", "record_key"}, {"pk.fields", "id"}});
  const std::vector<SinkRecord> records = {record(1, "1", R"({"v":"a"})"),
                                           record(2, "1", R"({"v":"b"})")};
  EXPECT_EQ(m.map(std::span(records)).rows.size(), 2u);
}

TEST(RecordMapperTest, SchemaEnvelopeColumnsCarryTheFieldSchemas) {
  TableSinkConfig config = tableConfig({{"pk.mode", "kafka"}});
  RecordMapper m(config, Config(std::map<std::string, std::string>{{"value.converter", "json"}}));
  const auto row = m.map(record(
      1, std::nullopt,
      R"({"schema":{"type":"struct","fields":[{"field":"n","type":"int16","optional":false}]},"payload":{"n":3}})"));
  ASSERT_EQ(row->layout->columns.size(), 4u);
  EXPECT_EQ(row->layout->columns[3].schema->type, Schema::Type::kInt16);
  EXPECT_FALSE(row->layout->columns[3].schema->optional);
  EXPECT_FALSE(row->layout->schemaless);
}

TEST(TableSinkConfigTest, ConfluentCrossKeyRulesAreEnforced) {
  EXPECT_THROW(tableConfig({{"delete.enabled", "true"}, {"pk.mode", "record_value"}}),
               ConfigException);
  EXPECT_THROW(tableConfig({{"insert.mode", "upsert"}}), ConfigException);
  EXPECT_THROW(tableConfig({{"pk.mode", "kafka"}, {"pk.fields", "a,b"}}), ConfigException);
  EXPECT_THROW(tableConfig({{"insert.mode", "merge"}}), ConfigException);
  EXPECT_THROW(tableConfig({{"batch.size", "0"}}), ConfigException);
  const auto ok =
      tableConfig({{"insert.mode", "upsert"}, {"pk.mode", "kafka"}, {"batch.size", "10"}});
  EXPECT_EQ(ok.pk_fields.size(), 3u);
  EXPECT_EQ(ok.batch_size, 10);
  EXPECT_EQ(ok.connector_name, "c");
  EXPECT_EQ(ok.tableName("a.b"), "a.b");
}

}  // namespace
}  // namespace ksink

namespace ksink {
namespace {

std::set<std::string> refusedTableKeys(std::map<std::string, std::string> values) {
  try {
    tableConfig(std::move(values));
    return {};
  } catch (const ConfigException& e) {
    std::set<std::string> keys;
    for (const auto& p : e.problems()) keys.insert(p.key);
    return keys;
  }
}

// Confluent JDBC sink keys that would change what lands in the table are refused unless they ask
// for what ksink does; tuning keys are accepted (and logged as ignored).
TEST(TableSinkConfigTest, JdbcSinkKeysKsinkDoesNotImplementAreRefusedTuningKeysAccepted) {
  EXPECT_EQ(
      refusedTableKeys({{"quote.sql.identifiers", "never"},
                        {"table.types", "TABLE,VIEW"},
                        {"dialect.name", "MySqlDatabaseDialect"},
                        {"timestamp.fields.list", "created"},
                        {"timestamp.precision.mode", "nanoseconds"},
                        {"date.timezone", "UTC"},
                        {"table.name.normalize", "true"},
                        {"topics.to.tables.mapping", "a:b"}}),
      (std::set<std::string>{"quote.sql.identifiers", "table.types", "dialect.name",
                             "timestamp.fields.list", "timestamp.precision.mode", "date.timezone",
                             "table.name.normalize", "topics.to.tables.mapping"}));
  EXPECT_TRUE(refusedTableKeys({{"quote.sql.identifiers", "always"},
                                {"table.types", "TABLE,PARTITIONED_TABLE"},
                                {"dialect.name", "PostgreSqlDatabaseDialect"},
                                {"timestamp.precision.mode", "microseconds"},
                                {"date.timezone", "DB_TIMEZONE"},
                                {"max.retries", "10"},
                                {"connection.attempts", "3"},
                                {"connection.backoff.ms", "10000"}})
                  .empty());
}

// The table sinks convert records themselves and read no header through a converter: any
// header.converter is accepted and logged as ignored (the runtime serves it for other sinks).
TEST(TableSinkConfigTest, HeaderConverterIsAcceptedAndNamedAsIgnored) {
  const std::map<std::string, std::string> values{
      {"header.converter", "org.apache.kafka.connect.converters.ByteArrayConverter"}};
  EXPECT_TRUE(refusedTableKeys(values).empty());
  const auto ignored = TableSinkConfig::configDef().ignoredIn(values);
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_NE(ignored[0].find("header.converter"), std::string::npos) << ignored[0];
}

}  // namespace
}  // namespace ksink
