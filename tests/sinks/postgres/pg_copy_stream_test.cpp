// PgCopyStream: which rows one binary COPY takes (no server: the stream used as an encoder).
#include "pg_copy_stream.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "ksink/config.h"
#include "ksink/record_mapper.h"
#include "ksink/sink_record.h"
#include "ksink/table_sink_config.h"
#include "pg_types.h"

namespace ksink::postgres {
namespace {

RecordMapper schemalessMapper() {
  std::map<std::string, std::string> values{
      {"name", "c"}, {"value.converter", "json"}, {"value.converter.schemas.enable", "false"}};
  return RecordMapper(TableSinkConfig::parse(Config(values)), Config(values));
}

PgTable ordersTable() {
  PgTable table;
  table.id = {std::nullopt, "orders"};
  table.columns = {{"id", PgTypes::kInt8, 0, "bigint", false},
                   {"price", PgTypes::kFloat8, 0, "double precision", false},
                   {"at", PgTypes::kTimestamptz, 0, "timestamp with time zone", false}};
  return table;
}

RecordMapper::Row mapped(RecordMapper& mapper, const SinkRecord& record) {
  auto row = mapper.map(record);
  EXPECT_TRUE(row);
  return std::move(*row);
}

// A JSON number without a fraction maps to int64 where the other records' map to float64, and a
// null to string: layouts of their own, whose rows the COPY of the first layout still takes
// (PgStreamWriter used to end the COPY and begin another at each change of layout).
TEST(PgCopyStream, SchemalessRowsWhoseValuesDifferInKindJoinOneStream) {
  auto mapper = schemalessMapper();
  const SinkRecord a("orders", 0, 0, 0, std::nullopt, R"({"id":1,"price":5.25})");
  const SinkRecord b("orders", 0, 1, 0, std::nullopt, R"({"id":2,"price":5})");
  const SinkRecord c("orders", 0, 2, 0, std::nullopt, R"({"id":3,"price":null})");
  const auto row_a = mapped(mapper, a), row_b = mapped(mapper, b), row_c = mapped(mapper, c);
  ASSERT_NE(row_a.layout, row_b.layout);
  ASSERT_NE(row_a.layout, row_c.layout);
  const auto table = ordersTable();
  PgCopyStream stream(table, *row_a.layout, row_a.layout->columns.size(), false);
  EXPECT_TRUE(stream.accepts(*row_a.layout));
  EXPECT_TRUE(stream.accepts(*row_b.layout));
  EXPECT_TRUE(stream.accepts(*row_c.layout));
  EXPECT_TRUE(stream.add(row_a));
  EXPECT_TRUE(stream.add(row_b));
  EXPECT_TRUE(stream.add(row_c));
}

TEST(PgCopyStream, RowsOfOtherColumnsTablesOrLogicalTypesDoNotJoin) {
  auto mapper = schemalessMapper();
  const SinkRecord a("orders", 0, 0, 0, std::nullopt, R"({"id":1,"price":5.25})");
  const SinkRecord reordered("orders", 0, 1, 0, std::nullopt, R"({"price":5.5,"id":2})");
  const SinkRecord wider("orders", 0, 2, 0, std::nullopt, R"({"id":3,"price":5.5,"at":7})");
  const SinkRecord other_table("returns", 0, 3, 0, std::nullopt, R"({"id":4,"price":5.5})");
  const auto row_a = mapped(mapper, a);
  const auto table = ordersTable();
  PgCopyStream stream(table, *row_a.layout, row_a.layout->columns.size(), false);
  EXPECT_FALSE(stream.accepts(*mapped(mapper, reordered).layout));
  EXPECT_FALSE(stream.accepts(*mapped(mapper, wider).layout));
  EXPECT_FALSE(stream.accepts(*mapped(mapper, other_table).layout));

  // An int64 that is a Connect Timestamp encodes otherwise than a plain one.
  auto plain_int = std::make_shared<Schema>();
  plain_int->type = Schema::Type::kInt64;
  auto timestamp = std::make_shared<Schema>(*plain_int);
  timestamp->name = std::string(Schema::kTimestampName);
  const RecordMapper::Layout plain_layout{
      "orders", {{"id", plain_int}, {"at", plain_int}}, 0, true};
  const RecordMapper::Layout logical_layout{
      "orders", {{"id", plain_int}, {"at", timestamp}}, 0, false};
  PgCopyStream plain_stream(table, plain_layout, 2, false);
  EXPECT_FALSE(plain_stream.accepts(logical_layout));
  PgCopyStream logical_stream(table, logical_layout, 2, false);
  EXPECT_FALSE(logical_stream.accepts(plain_layout));
}

}  // namespace
}  // namespace ksink::postgres
