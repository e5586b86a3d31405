// Which values the sink encodes in binary for which column types, and the text it falls back to.
#include "column_encoder.h"

#include <gtest/gtest.h>

#include "pg_types.h"

namespace ksink::postgres {
namespace {

using T = Schema::Type;

std::shared_ptr<const Schema> logical(T type, std::string_view name) {
  auto s = std::make_shared<Schema>();
  s->type = type;
  s->name = std::string(name);
  s->parameters["scale"] = "2";
  return s;
}

bool binary(uint32_t oid, const Value& v, std::shared_ptr<const Schema> schema = nullptr) {
  CopyBinaryWriter w;
  return ColumnEncoder(oid, 0, std::move(schema)).binary(w, v);
}

std::string text(uint32_t oid, const Value& v, std::shared_ptr<const Schema> schema = nullptr,
                 uint32_t element = 0) {
  CopyTextWriter w;
  w.beginRow();
  ColumnEncoder(oid, element, std::move(schema)).text(w, v);
  return std::string(w.buffer());
}

TEST(ColumnEncoder, NativeValuesHaveBinaryForms) {
  EXPECT_TRUE(binary(PgTypes::kBool, Value::boolean(true)));
  EXPECT_TRUE(binary(PgTypes::kInt4, Value::integer(42)));
  EXPECT_TRUE(binary(PgTypes::kFloat8, Value::integer(42)));
  EXPECT_TRUE(binary(PgTypes::kText, Value::string("x")));
  EXPECT_TRUE(binary(PgTypes::kText, Value::integer(7)));
  EXPECT_TRUE(binary(PgTypes::kBytea, Value::bytes("\x01")));
  EXPECT_TRUE(binary(PgTypes::kJsonb, Value::string("{\"a\":1}")));
  EXPECT_TRUE(binary(PgTypes::kJsonb, Value::object({{"a", Value::integer(1)}})));
  EXPECT_TRUE(binary(PgTypes::kUuid, Value::string("123e4567-e89b-12d3-a456-426614174000")));
  EXPECT_TRUE(binary(PgTypes::kTimestamptz, Value::integer(1700000000000)));
  EXPECT_TRUE(binary(PgTypes::kNumeric, Value::string("12.50")));
  EXPECT_TRUE(binary(PgTypes::kNumeric, Value::bytes(std::string("\x04\xe2", 2)),
                     logical(T::kBytes, Schema::kDecimalName)));
  EXPECT_TRUE(binary(PgTypes::kDate, Value::integer(19000), logical(T::kInt32, Schema::kDateName)));
  EXPECT_TRUE(binary(PgTypes::kInt8, Value()));  // NULL
}

TEST(ColumnEncoder, ValuesTheServerMustParseHaveNoBinaryForm) {
  EXPECT_FALSE(binary(PgTypes::kInt4, Value::string("12")));
  EXPECT_FALSE(binary(PgTypes::kInt2, Value::integer(70000)));
  EXPECT_FALSE(binary(PgTypes::kInt4, Value::integer(int64_t{1} << 40)));
  EXPECT_FALSE(binary(PgTypes::kDate, Value::string("2024-02-29")));
  EXPECT_FALSE(binary(PgTypes::kTimestamptz, Value::string("2024-02-29T10:00:00Z")));
  EXPECT_FALSE(binary(PgTypes::kUuid, Value::string("not a uuid")));
  EXPECT_FALSE(binary(PgTypes::kBool, Value::string("true")));
  EXPECT_FALSE(binary(1186 /* interval */, Value::string("1 day")));
}

TEST(ColumnEncoder, TextFormsAreWhatTheInputFunctionsRead) {
  EXPECT_EQ(text(PgTypes::kInt4, Value::string("12")), "12");
  EXPECT_EQ(text(PgTypes::kBool, Value::boolean(false)), "false");
  EXPECT_EQ(text(PgTypes::kFloat8, Value::floating(0.5)), "0.5");
  EXPECT_EQ(text(PgTypes::kTimestamptz, Value::integer(0)), "1970-01-01 00:00:00.000+00");
  EXPECT_EQ(text(PgTypes::kTimestamp, Value::integer(0)), "1970-01-01 00:00:00.000");
  EXPECT_EQ(text(PgTypes::kDate, Value::integer(1), logical(T::kInt32, Schema::kDateName)),
            "1970-01-02");
  EXPECT_EQ(text(PgTypes::kNumeric, Value::bytes(std::string("\x04\xe2", 2)),
                 logical(T::kBytes, Schema::kDecimalName)),
            "12.50");
  EXPECT_EQ(text(PgTypes::kBytea, Value::bytes("\x01")), "\\\\x01");
  EXPECT_EQ(text(PgTypes::kJsonb, Value::object({{"a", Value::string("x\ty")}})),
            R"({"a":"x\\ty"})");
  EXPECT_EQ(text(PgTypes::kInt8, Value()), "\\N");
  EXPECT_EQ(text(1007, Value::array({Value::integer(1), Value(), Value::integer(3)}), nullptr,
                 PgTypes::kInt4),
            R"({"1",NULL,"3"})");
}

}  // namespace
}  // namespace ksink::postgres
