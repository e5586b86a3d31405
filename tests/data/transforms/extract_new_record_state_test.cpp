// Debezium's ExtractNewRecordState on change events as Debezium's PostgreSQL source writes them
// (JsonConverter, schemas.enable=true): the row state per op, the delete and tombstone modes
// (current and deprecated keys), add.fields, add.headers, route.by.field.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <deque>

#include "ksink/config_exception.h"
#include "ksink/conversion_error.h"
#include "ksink/converter.h"
#include "ksink/transformation_chain.h"

namespace ksink {
namespace {

constexpr std::string_view kRowSchema =
    R"({"type":"struct","optional":true,"name":"db.public.orders.Value","fields":[)"
    R"({"field":"id","type":"int32","optional":false},)"
    R"({"field":"status","type":"string","optional":true,"default":"new"}]})";

std::string envelope(std::string_view op, std::string_view before, std::string_view after,
                     std::string_view txn = "null") {
  return fmt::format(
      R"({{"schema":{{"type":"struct","optional":false,"name":"db.public.orders.Envelope",)"
      R"("fields":[{{"field":"before",{0}}},{{"field":"after",{0}}},)"
      R"({{"field":"source","type":"struct","optional":false,"name":"io.debezium.connector.postgresql.Source",)"
      R"("fields":[{{"field":"db","type":"string","optional":false}},)"
      R"({{"field":"table","type":"string","optional":true}},)"
      R"({{"field":"lsn","type":"int64","optional":true}}]}},)"
      R"({{"field":"transaction","type":"struct","optional":true,"fields":[)"
      R"({{"field":"id","type":"string","optional":false}},)"
      R"({{"field":"total_order","type":"int64","optional":false}}]}},)"
      R"({{"field":"op","type":"string","optional":false}},)"
      R"({{"field":"ts_ms","type":"int64","optional":true}}]}},)"
      R"("payload":{{"before":{1},"after":{2},"source":{{"db":"shop","table":"orders","lsn":77}},)"
      R"("transaction":{4},"op":"{3}","ts_ms":1700000000000}}}})",
      kRowSchema.substr(1, kRowSchema.size() - 2), before, after, op, txn);
}

class ExtractNewRecordStateTest : public ::testing::Test {
 protected:
  void configure(std::map<std::string, std::string> keys) {
    std::map<std::string, std::string> values{
        {"transforms", "unwrap"},
        {"transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState"}};
    for (auto& [k, v] : keys) values.emplace("transforms.unwrap." + k, v);
    chain_ = TransformationChain(Config(values));
  }

  // The record read from `json` (nullopt: a tombstone) through the chain.
  std::optional<ConnectRecord> run(std::optional<std::string> json) {
    texts_.push_back(json.value_or(""));
    records_.emplace_back("db.public.orders", 0, static_cast<int64_t>(records_.size()), 5,
                          std::optional<std::string_view>(R"({"id":1})"),
                          json ? std::optional<std::string_view>(texts_.back()) : std::nullopt);
    const auto& r = records_.back();
    auto value = converter_->toConnectData(r.topic(), r.value());
    SchemaAndValue key{nullptr, Value::object({{"id", Value::integer(1)}})};
    return chain_.apply(ConnectRecord::from(r, std::move(key), std::move(value)));
  }

  static std::vector<std::string> fieldNames(const ConnectRecord& r) {
    std::vector<std::string> out;
    for (const auto& f : r.value.schema->fields) out.push_back(f.name);
    return out;
  }

  std::unique_ptr<Converter> converter_ =
      Converter::create(Config(std::map<std::string, std::string>{}), false);
  TransformationChain chain_;
  std::deque<std::string> texts_;
  std::deque<SinkRecord> records_;
};

TEST_F(ExtractNewRecordStateTest, CreateReadAndUpdateBecomeTheAfterRow) {
  configure({});
  for (const char* op : {"c", "r", "u"}) {
    const auto out = run(envelope(op, "null", R"({"id":1,"status":"paid"})"));
    ASSERT_TRUE(out) << op;
    EXPECT_EQ(out->value.schema->name, "db.public.orders.Value");
    EXPECT_EQ(fieldNames(*out), (std::vector<std::string>{"id", "status"}));
    EXPECT_EQ(out->value.value,
              Value::object({{"id", Value::integer(1)}, {"status", Value::string("paid")}}));
    EXPECT_EQ(out->topic, "db.public.orders");
    EXPECT_EQ(out->key.value, Value::object({{"id", Value::integer(1)}}));
  }
}

TEST_F(ExtractNewRecordStateTest, ByDefaultADeleteBecomesATombstoneAndTheTombstoneIsDropped) {
  configure({});
  const auto del = run(envelope("d", R"({"id":1,"status":"paid"})", "null"));
  ASSERT_TRUE(del);
  EXPECT_TRUE(del->isTombstone());
  EXPECT_EQ(del->key.value, Value::object({{"id", Value::integer(1)}}));
  EXPECT_FALSE(run(std::nullopt));
}

// Issue 36, item 6: Debezium 3.5's delete-to-tombstone: deletes become tombstones, tombstones go.
TEST_F(ExtractNewRecordStateTest, DeleteToTombstoneTurnsDeletesIntoTombstonesAndDropsTombstones) {
  configure({{"delete.tombstone.handling.mode", "delete-to-tombstone"}});
  const auto del = run(envelope("d", R"({"id":1,"status":"x"})", "null"));
  ASSERT_TRUE(del);
  EXPECT_TRUE(del->isTombstone());
  EXPECT_EQ(del->key.value, Value::object({{"id", Value::integer(1)}}));
  EXPECT_FALSE(run(std::nullopt));
  EXPECT_TRUE(run(envelope("c", "null", R"({"id":1,"status":"x"})")));
}

TEST_F(ExtractNewRecordStateTest, DropModeDropsDeletesAndTombstones) {
  configure({{"delete.tombstone.handling.mode", "drop"}});
  EXPECT_FALSE(run(envelope("d", R"({"id":1,"status":"x"})", "null")));
  EXPECT_FALSE(run(std::nullopt));
  EXPECT_TRUE(run(envelope("c", "null", R"({"id":1,"status":"x"})")));
}

TEST_F(ExtractNewRecordStateTest, RewriteModesMarkRowsWithDeletedAndOnlyOneKeepsTombstones) {
  for (const char* mode : {"rewrite", "rewrite-with-tombstone"}) {
    configure({{"delete.tombstone.handling.mode", mode}});
    const auto upd = run(envelope("u", "null", R"({"id":1,"status":"a"})"));
    ASSERT_TRUE(upd);
    EXPECT_EQ(fieldNames(*upd), (std::vector<std::string>{"id", "status", "__deleted"}));
    EXPECT_EQ(*upd->value.value.find("__deleted"), Value::string("false"));
    const auto del = run(envelope("d", R"({"id":1,"status":"a"})", "null"));
    ASSERT_TRUE(del);
    EXPECT_EQ(*del->value.value.find("__deleted"), Value::string("true"));
    EXPECT_EQ(*del->value.value.find("status"), Value::string("a"));
    const auto tomb = run(std::nullopt);
    EXPECT_EQ(tomb.has_value(), std::string(mode) == "rewrite-with-tombstone") << mode;
  }
}

TEST_F(ExtractNewRecordStateTest, TheDeprecatedKeysKeepTheirMeaning) {
  configure({{"drop.tombstones", "false"}, {"delete.handling.mode", "none"}});
  const auto del = run(envelope("d", R"({"id":1,"status":"a"})", "null"));
  ASSERT_TRUE(del);
  EXPECT_TRUE(del->isTombstone());
  EXPECT_TRUE(run(std::nullopt)) << "drop.tombstones=false keeps the tombstone";

  configure({{"delete.handling.mode", "drop"}});
  EXPECT_FALSE(run(envelope("d", R"({"id":1,"status":"a"})", "null")));
  EXPECT_FALSE(run(std::nullopt)) << "drop.tombstones defaults to true";

  configure({{"delete.handling.mode", "rewrite"}});
  const auto rewritten = run(envelope("d", R"({"id":1,"status":"a"})", "null"));
  ASSERT_TRUE(rewritten);
  EXPECT_EQ(*rewritten->value.value.find("__deleted"), Value::string("true"));
}

TEST_F(ExtractNewRecordStateTest, AddFieldsTakesEnvelopeSourceAndTransactionFieldsWithRenames) {
  configure({{"add.fields", "op,source.ts_ms,table,lsn:position,id"}});
  const auto out =
      run(envelope("u", "null", R"({"id":1,"status":"a"})", R"({"id":"tx9","total_order":3})"));
  ASSERT_TRUE(out);
  // source.ts_ms is not in this source schema: the envelope's ts_ms is taken, as Debezium does.
  EXPECT_EQ(fieldNames(*out), (std::vector<std::string>{"id", "status", "__op", "__source_ts_ms",
                                                        "__table", "__position", "__id"}));
  EXPECT_EQ(*out->value.value.find("__source_ts_ms"), Value::integer(1700000000000));
  EXPECT_EQ(*out->value.value.find("__op"), Value::string("u"));
  EXPECT_EQ(*out->value.value.find("__table"), Value::string("orders"));
  EXPECT_EQ(*out->value.value.find("__position"), Value::integer(77));
  EXPECT_EQ(*out->value.value.find("__id"), Value::string("tx9"));
  EXPECT_TRUE(out->value.schema->field("__position")->schema->optional);
  // Same input schema, same output schema object (the mapper caches layouts by pointer).
  const auto again = run(envelope("u", "null", R"({"id":2,"status":"b"})"));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->value.schema.get(), out->value.schema.get());
  EXPECT_TRUE(again->value.value.find("__id")->isNull()) << "no transaction: null";
}

TEST_F(ExtractNewRecordStateTest, AddFieldsPrefixAndHeaders) {
  configure({{"add.fields", "op"},
             {"add.fields.prefix", "cdc_"},
             {"add.headers", "op,db"},
             {"add.headers.prefix", "h_"},
             {"delete.tombstone.handling.mode", "rewrite-with-tombstone"}});
  const auto out = run(envelope("c", "null", R"({"id":1,"status":"a"})"));
  ASSERT_TRUE(out);
  EXPECT_NE(out->value.value.find("cdc_op"), nullptr);
  ASSERT_NE(out->header("h_op"), nullptr);
  EXPECT_EQ(out->header("h_op")->value.value, Value::string("c"));
  EXPECT_EQ(out->header("h_db")->value.value, Value::string("shop"));
  const auto tomb = run(std::nullopt);
  ASSERT_TRUE(tomb);
  ASSERT_NE(tomb->header("h_op"), nullptr);
  EXPECT_EQ(tomb->header("h_op")->value.value, Value::string("d"));
}

TEST_F(ExtractNewRecordStateTest, RouteByFieldSetsTheTopicFromTheRow) {
  configure({{"route.by.field", "status"}});
  const auto out = run(envelope("c", "null", R"({"id":1,"status":"archive"})"));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->topic, "archive");
  configure({{"route.by.field", "id"}});  // not a string: no topic name
  EXPECT_THROW(run(envelope("c", "null", R"({"id":1,"status":"x"})")), ConversionError);
}

// A delete goes where its row was routed: by the old row's field, as Debezium routes it, in the
// tombstone mode (the default) and the rewrite mode alike; the stream's own tombstones, which
// carry no row, are dropped instead of deleting from the topic's table.
TEST_F(ExtractNewRecordStateTest, RouteByFieldRoutesDeletesByTheOldRow) {
  const auto old_row = R"({"id":1,"status":"archive"})";
  for (const auto* mode : {"tombstone", "rewrite", "rewrite-with-tombstone"}) {
    SCOPED_TRACE(mode);
    configure({{"route.by.field", "status"}, {"delete.tombstone.handling.mode", mode}});
    const auto deleted = run(envelope("d", old_row, "null"));
    ASSERT_TRUE(deleted);
    EXPECT_EQ(deleted->topic, "archive");
    EXPECT_EQ(deleted->isTombstone(), std::string_view(mode) == "tombstone");
    EXPECT_FALSE(run(std::nullopt)) << "a tombstone has no row to route by";
  }
  configure({{"route.by.field", "status"},
             {"delete.handling.mode", "none"},
             {"drop.tombstones", "false"}});
  const auto deleted = run(envelope("d", old_row, "null"));
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->topic, "archive");
  EXPECT_FALSE(run(std::nullopt));
  EXPECT_THROW(run(envelope("d", "null", "null")), ConversionError) << "no old row to route by";
}

TEST_F(ExtractNewRecordStateTest, RouteByFieldIsRefusedWithKeptTruncates) {
  EXPECT_THROW(configure({{"route.by.field", "status"}, {"truncate.handling.mode", "truncate"}}),
               ConfigException);
}

TEST_F(ExtractNewRecordStateTest, NullFieldsTakeTheSchemaDefaultUnlessTurnedOff) {
  // The JSON converter already gives a null field its default; an envelope built otherwise
  // (another converter, an earlier transform) can carry the null itself.
  const auto withNullStatus = [&] {
    const SinkRecord r("db.public.orders", 0, 0, 5, std::nullopt, std::nullopt);
    const auto text = envelope("c", "null", R"({"id":1,"status":"x"})");
    auto value = converter_->toConnectData("db.public.orders", text);
    for (auto& [name, v] : value.value.asObject())
      if (name == "after") v.asObject()[1].second = Value();
    return chain_.apply(ConnectRecord::from(r, {}, std::move(value)));
  };
  configure({});
  EXPECT_EQ(*withNullStatus()->value.value.find("status"), Value::string("new"));
  configure({{"replace.null.with.default", "false"}});
  EXPECT_TRUE(withNullStatus()->value.value.find("status")->isNull());
}

TEST_F(ExtractNewRecordStateTest, TruncateEventsAreDroppedAndOtherRecordsPassUnchanged) {
  configure({});
  EXPECT_FALSE(run(envelope("t", "null", "null")));
  const auto plain = run(R"({"schema":{"type":"string"},"payload":"hello"})");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->value.value, Value::string("hello"));
}

TEST_F(ExtractNewRecordStateTest, TruncateHandlingModeTruncateKeepsTruncatesAsSuch) {
  configure({{"truncate.handling.mode", "truncate"}});
  const auto out = run(envelope("t", "null", "null"));
  ASSERT_TRUE(out);
  EXPECT_TRUE(out->truncate);
  EXPECT_TRUE(out->value.value.isNull());
  EXPECT_FALSE(run(envelope("c", "null", R"({"id":1,"status":"a"})"))->truncate);
}

// Issue 36, item 5: Debezium's order, which is the column order of the tables these rows create.
TEST_F(ExtractNewRecordStateTest, RewriteModePutsDeletedBeforeTheAddedFields) {
  configure({{"delete.tombstone.handling.mode", "rewrite"}, {"add.fields", "op,table"}});
  for (const auto& event : {envelope("u", "null", R"({"id":1,"status":"a"})"),
                            envelope("d", R"({"id":1,"status":"a"})", "null")}) {
    const auto out = run(event);
    ASSERT_TRUE(out);
    EXPECT_EQ(fieldNames(*out),
              (std::vector<std::string>{"id", "status", "__deleted", "__op", "__table"}));
    std::vector<std::string> values;
    for (const auto& [name, v] : out->value.value.asObject()) values.push_back(name);
    EXPECT_EQ(values, fieldNames(*out)) << "the values follow the schema's order";
  }
}

TEST_F(ExtractNewRecordStateTest, ASchemalessEnvelopeIsUnwrappedToo) {
  configure({{"delete.tombstone.handling.mode", "rewrite"}});
  converter_ = Converter::create(
      Config({{"value.converter", "json"}, {"value.converter.schemas.enable", "false"}}), false);
  const auto out = run(R"({"before":null,"after":{"id":3,"status":"x"},"op":"c"})");
  ASSERT_TRUE(out);
  EXPECT_EQ(out->value.schema, nullptr);
  EXPECT_EQ(out->value.value, Value::object({{"id", Value::integer(3)},
                                             {"status", Value::string("x")},
                                             {"__deleted", Value::string("false")}}));
}

TEST_F(ExtractNewRecordStateTest, ADeleteWithoutTheOldRowIsABadRecordInRewriteMode) {
  configure({{"delete.tombstone.handling.mode", "rewrite"}});
  EXPECT_THROW(run(envelope("d", "null", "null")), ConversionError);
}

TEST_F(ExtractNewRecordStateTest, BadKeysAreRefusedByName) {
  const auto problems = TransformationChain::problems(
      {{"transforms", "unwrap"},
       {"transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState"},
       {"transforms.unwrap.delete.tombstone.handling.mode", "keep"},
       {"transforms.unwrap.drop.fields.header.name", "x"}});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].key, "transforms.unwrap.drop.fields.header.name");
  EXPECT_EQ(problems[1].key, "transforms.unwrap.delete.tombstone.handling.mode");
}

}  // namespace
}  // namespace ksink
