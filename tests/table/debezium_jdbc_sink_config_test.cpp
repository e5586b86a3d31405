// The Debezium JDBC sink's configuration served by the table sinks: its keys mapped to ours, the
// envelope read natively (c/r/u → upsert of the new row, d → delete, table from
// collection.name.format), and the keys ksink cannot serve refused by name.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <deque>
#include <set>

#include "ksink/config_exception.h"
#include "ksink/record_mapper.h"
#include "ksink/table_sink_config.h"

namespace ksink {
namespace {

std::map<std::string, std::string> debezium(std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> values{
      {"name", "mirror"},
      {"connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector"},
      {"connection.url", "jdbc:postgresql://db:5432/copy"},
      {"connection.username", "app"},
      {"connection.password", "secret"},
      {"insert.mode", "upsert"},
      {"delete.enabled", "true"},
      {"primary.key.mode", "record_key"},
      {"schema.evolution", "basic"},
  };
  for (auto& [k, v] : extra) values.insert_or_assign(k, v);
  return values;
}

std::string changeEvent(std::string_view op, std::string_view before, std::string_view after) {
  constexpr std::string_view row =
      R"("type":"struct","optional":true,"name":"db.public.orders.Value","fields":[)"
      R"({"field":"id","type":"int32","optional":false},{"field":"note","type":"string","optional":true}])";
  return fmt::format(
      R"({{"schema":{{"type":"struct","name":"db.public.orders.Envelope","fields":[)"
      R"({{"field":"before",{0}}},{{"field":"after",{0}}},)"
      R"({{"field":"source","type":"struct","fields":[{{"field":"schema","type":"string"}},)"
      R"({{"field":"table","type":"string"}}]}},{{"field":"op","type":"string"}}]}},)"
      R"("payload":{{"before":{1},"after":{2},"source":{{"schema":"public","table":"orders"}},)"
      R"("op":"{3}"}}}})",
      row, before, after, op);
}

TEST(DebeziumJdbcSinkConfig, ItsKeysBecomeTheTableSinksOwn) {
  const auto adapted = TableSinkConfig::fromDebeziumJdbcSink(debezium());
  EXPECT_EQ(adapted.at("pk.mode"), "record_key");
  EXPECT_EQ(adapted.at("auto.create"), "true");
  EXPECT_EQ(adapted.at("auto.evolve"), "true");
  EXPECT_EQ(adapted.at("connection.user"), "app");
  EXPECT_EQ(adapted.at("connection.password"), "secret");
  EXPECT_FALSE(adapted.contains("primary.key.mode"));
  EXPECT_FALSE(adapted.contains("schema.evolution"));
  const auto config = TableSinkConfig::parse(Config(adapted));
  EXPECT_EQ(config.insert_mode, TableSinkConfig::InsertMode::kUpsert);
  EXPECT_TRUE(config.delete_enabled);
}

TEST(DebeziumJdbcSinkConfig, KeysItCannotServeAndConfluentKeysAreRefusedByName) {
  try {
    TableSinkConfig::fromDebeziumJdbcSink(debezium({{"truncate.enabled", "sometimes"},
                                                    {"primary.key.mode", "record_header"},
                                                    {"pk.mode", "record_key"},
                                                    {"database.time_zone", "Europe/Paris"},
                                                    {"schema.evolution", "advanced"}}));
    FAIL() << "accepted";
  } catch (const ConfigException& e) {
    std::set<std::string> keys;
    for (const auto& p : e.problems()) keys.insert(p.key);
    EXPECT_EQ(keys, (std::set<std::string>{"truncate.enabled", "primary.key.mode", "pk.mode",
                                           "database.time_zone", "schema.evolution"}))
        << e.what();
  }
  // Tuning keys are accepted (and logged as ignored).
  const auto tuned = TableSinkConfig::fromDebeziumJdbcSink(
      debezium({{"connection.pool.max_size", "10"}, {"hibernate.c3p0.idle_test_period", "5"}}));
  EXPECT_FALSE(tuned.contains("connection.pool.max_size"));
}

// Issue 36, item 6: the Debezium sink's field filters, as its FieldFilterFactory matches them.
TEST(DebeziumJdbcSinkConfig, FieldIncludeAndExcludeListsChooseTheColumns) {
  auto mapperWith = [](std::map<std::string, std::string> extra) {
    auto values = TableSinkConfig::fromDebeziumJdbcSink(debezium(std::move(extra)));
    for (const auto side : {"key", "value"})
      values[fmt::format("{}.converter.schemas.enable", side)] = "false";
    const Config config(values);
    return RecordMapper(TableSinkConfig::parse(config), config);
  };
  auto columns = [](RecordMapper& m, std::string_view topic) {
    const SinkRecord r(topic, 0, 0, 1, R"({"id":1,"k2":"x"})", R"({"id":1,"a":1,"b":2,"c":3})");
    std::vector<std::string> out;
    for (const auto& c : m.map(r)->layout->columns) out.push_back(c.name);
    return out;
  };
  auto include = mapperWith({{"field.include.list", "id, a, orders:b"}});
  EXPECT_EQ(columns(include, "orders"), (std::vector<std::string>{"id", "a", "b"}));
  EXPECT_EQ(columns(include, "other"), (std::vector<std::string>{"id", "a"}));
  auto exclude = mapperWith({{"field.exclude.list", "orders:c,k2"}});
  EXPECT_EQ(columns(exclude, "orders"), (std::vector<std::string>{"id", "a", "b"}))
      << "a key field excluded too, without primary.key.fields";
  EXPECT_EQ(columns(exclude, "other"), (std::vector<std::string>{"id", "a", "b", "c"}));
  auto keyed = mapperWith({{"field.exclude.list", "k2"}, {"primary.key.fields", "id,k2"}});
  EXPECT_EQ(columns(keyed, "orders"), (std::vector<std::string>{"id", "k2", "a", "b", "c"}))
      << "primary.key.fields wins over the filter for the key";
  EXPECT_THROW(mapperWith({{"field.include.list", "a"}, {"field.exclude.list", "b"}}),
               ConfigException);
}

// A `<topic>:<field>` entry names the topic as the record has it, not the table the collection
// naming makes of it (dots as underscores); primary.key.mode=kafka's topic column likewise.
TEST(DebeziumJdbcSinkConfig, TopicEntriesAndTheKafkaTopicColumnSeeTheTopicNotTheTable) {
  auto values =
      TableSinkConfig::fromDebeziumJdbcSink(debezium({{"field.include.list", "db.public.orders:b"},
                                                      {"primary.key.mode", "kafka"},
                                                      {"insert.mode", "insert"},
                                                      {"delete.enabled", "false"}}));
  for (const auto side : {"key", "value"})
    values[fmt::format("{}.converter.schemas.enable", side)] = "false";
  const Config config(values);
  RecordMapper m(TableSinkConfig::parse(config), config);
  const SinkRecord r("db.public.orders", 0, 5, 1, R"({"id":1})", R"({"id":1,"a":1,"b":2})");
  const auto row = m.map(r);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->layout->table, "db_public_orders");
  std::vector<std::string> columns;
  for (const auto& c : row->layout->columns) columns.push_back(c.name);
  EXPECT_EQ(columns, (std::vector<std::string>{"__connect_topic", "__connect_partition",
                                               "__connect_offset", "b"}));
  EXPECT_EQ(row->values[0], Value::string("db.public.orders"));
}

class DebeziumEnvelope : public ::testing::Test {
 protected:
  RecordMapper mapper(std::map<std::string, std::string> extra = {}) {
    auto values = TableSinkConfig::fromDebeziumJdbcSink(debezium(std::move(extra)));
    values["key.converter.schemas.enable"] = "false";
    const Config config(values);
    return RecordMapper(TableSinkConfig::parse(config), config);
  }
  const SinkRecord& record(std::optional<std::string> value, int64_t offset) {
    texts_.push_back(value.value_or(""));
    return records_.emplace_back(
        "db.public.orders", 0, offset, 1, R"({"id":7})",
        value ? std::optional<std::string_view>(texts_.back()) : std::nullopt);
  }
  std::deque<std::string> texts_;
  std::deque<SinkRecord> records_;
};

TEST_F(DebeziumEnvelope, ChangesBecomeRowsAndDeletesOfTheTableNamedAfterTheTopic) {
  auto m = mapper();
  const auto& created = record(changeEvent("c", "null", R"({"id":7,"note":"a"})"), 0);
  auto row = m.map(created);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->layout->table, "db_public_orders");  // dots as underscores, as Debezium's
  EXPECT_FALSE(row->is_delete);
  ASSERT_EQ(row->layout->columns.size(), 2u);
  EXPECT_EQ(row->layout->columns[0].name, "id");
  EXPECT_TRUE(row->layout->columns[0].primary_key);
  EXPECT_EQ(row->values[1], Value::string("a"));
  EXPECT_EQ(row->record, &created);

  const auto deleted = m.map(record(changeEvent("d", R"({"id":7,"note":"a"})", "null"), 1));
  ASSERT_TRUE(deleted);
  EXPECT_TRUE(deleted->is_delete);
  EXPECT_EQ(deleted->values[0], Value::integer(7));
  // The tombstone after the delete deletes again (nothing is left), as the Debezium sink does.
  const auto tombstone = m.map(record(std::nullopt, 2));
  ASSERT_TRUE(tombstone);
  EXPECT_TRUE(tombstone->is_delete);
  EXPECT_FALSE(m.map(record(changeEvent("t", "null", "null"), 3))) << "truncate skipped";
}

// Issue 36, item 1: a topic of plain rows has only tombstones to delete with.
TEST_F(DebeziumEnvelope, ATombstoneInATopicOfPlainRowsDeletesByKeyWhenDeletesAreEnabled) {
  auto m = mapper();
  const auto written = m.map(record(
      R"({"schema":{"type":"struct","name":"row","fields":[{"field":"id","type":"int32"},)"
      R"({"field":"note","type":"string","optional":true}]},"payload":{"id":7,"note":"plain"}})",
      0));
  ASSERT_TRUE(written);
  EXPECT_FALSE(written->is_delete);
  const auto deleted = m.map(record(std::nullopt, 1));
  ASSERT_TRUE(deleted) << "the tombstone was dropped";
  EXPECT_TRUE(deleted->is_delete);
  EXPECT_EQ(deleted->values[0], Value::integer(7));

  auto keeping = mapper({{"delete.enabled", "false"}});
  EXPECT_FALSE(keeping.map(record(std::nullopt, 2))) << "skipped, as the Debezium sink skips it";
}

TEST_F(DebeziumEnvelope, WithTruncateEnabledATruncateEventEmptiesTheTableFirst) {
  auto m = mapper({{"truncate.enabled", "true"}});
  const std::vector<std::string> values{changeEvent("c", "null", R"({"id":1,"note":"gone"})"),
                                        changeEvent("t", "null", "null"),
                                        changeEvent("c", "null", R"({"id":2,"note":"kept"})")};
  const std::vector<SinkRecord> records{{"db.public.orders", 0, 0, 1, R"({"id":1})", values[0]},
                                        {"db.public.orders", 0, 1, 1, std::nullopt, values[1]},
                                        {"db.public.orders", 0, 2, 1, R"({"id":2})", values[2]}};
  const auto batch = m.map(records);
  for (const auto& f : batch.failures) {
    try {
      std::rethrow_exception(f.error);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "offset " << f.record->offset() << ": " << e.what();
    }
  }
  ASSERT_EQ(batch.rows.size(), 2u) << "the row before the truncate is wiped anyway";
  EXPECT_TRUE(batch.rows[0].is_truncate);
  EXPECT_EQ(batch.rows[0].layout->table, "db_public_orders");
  EXPECT_EQ(batch.rows[0].record, &records[1]);
  EXPECT_FALSE(batch.rows[1].is_truncate);
  EXPECT_EQ(batch.rows[1].values[1], Value::string("kept"));

  auto without = mapper();  // truncate.enabled=false: the event is skipped
  EXPECT_FALSE(without.map(records[1]));
}

TEST_F(DebeziumEnvelope, CollectionNameFormatTakesSourceFields) {
  auto m = mapper({{"collection.name.format", "copy_${source.schema}_${source.table}"}});
  const auto row = m.map(record(changeEvent("r", "null", R"({"id":7,"note":"a"})"), 0));
  ASSERT_TRUE(row);
  EXPECT_EQ(row->layout->table, "copy_public_orders");
}

}  // namespace
}  // namespace ksink
