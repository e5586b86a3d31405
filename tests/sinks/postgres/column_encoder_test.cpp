// Which values the sink encodes in binary for which column types, and the text it falls back to.
#include "column_encoder.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>

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

std::shared_ptr<const Schema> named(T type, std::string_view name,
                                    SchemaParameters parameters = {}) {
  auto s = std::make_shared<Schema>();
  s->type = type;
  s->name = std::string(name);
  s->parameters = std::move(parameters);
  return s;
}

// The field bytes binary() writes (after the int32 length), or nullopt when it has no binary form.
std::optional<std::string> field(uint32_t oid, const Value& v, std::shared_ptr<const Schema> schema,
                                 uint32_t element = 0) {
  CopyBinaryWriter w;
  const size_t header = w.size();
  if (!ColumnEncoder(oid, element, std::move(schema)).binary(w, v)) return std::nullopt;
  return std::string(w.buffer().substr(header + 4));
}

std::string be64(int64_t v) {
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8)
    out += static_cast<char>(static_cast<uint64_t>(v) >> shift);
  return out;
}

std::string be32(int32_t v) {
  return be64(static_cast<int64_t>(static_cast<uint32_t>(v)) << 32).substr(0, 4);
}

// 2024-03-01 10:15:30.123456 (UTC) in PostgreSQL's epoch (2000-01-01).
constexpr int64_t kUnixMicros = 1709288130123456;
constexpr int64_t kPgMicros = kUnixMicros - int64_t{10957} * 86400 * 1000000;

TEST(ColumnEncoder, DebeziumTimestampsKeepTheirUnitInBothEncodings) {
  const auto micro = named(T::kInt64, Schema::kMicroTimestampName);
  const auto nano = named(T::kInt64, Schema::kNanoTimestampName);
  const auto milli = named(T::kInt64, Schema::kDebeziumTimestampName);
  EXPECT_EQ(field(PgTypes::kTimestamp, Value::integer(kUnixMicros), micro), be64(kPgMicros));
  EXPECT_EQ(field(PgTypes::kTimestamp, Value::integer(kUnixMicros * 1000 + 999), nano),
            be64(kPgMicros));
  EXPECT_EQ(field(PgTypes::kTimestamp, Value::integer(kUnixMicros / 1000), milli),
            be64(kPgMicros - 456));
  EXPECT_EQ(text(PgTypes::kTimestamp, Value::integer(kUnixMicros), micro),
            "2024-03-01 10:15:30.123456");
  EXPECT_EQ(text(PgTypes::kTimestamp, Value::integer(kUnixMicros * 1000 + 999), nano),
            "2024-03-01 10:15:30.123456");
  EXPECT_EQ(text(PgTypes::kTimestamp, Value::integer(kUnixMicros / 1000), milli),
            "2024-03-01 10:15:30.123000");
  EXPECT_EQ(text(PgTypes::kTimestamptz, Value::integer(kUnixMicros), micro),
            "2024-03-01 10:15:30.123456+00");
  // Into a number column the count goes in as it is.
  EXPECT_EQ(text(PgTypes::kInt8, Value::integer(kUnixMicros), micro), "1709288130123456");
}

TEST(ColumnEncoder, DebeziumTimesKeepMicroseconds) {
  const auto micro = named(T::kInt64, Schema::kMicroTimeName);
  const auto nano = named(T::kInt64, Schema::kNanoTimeName);
  const auto milli = named(T::kInt32, Schema::kDebeziumTimeName);
  constexpr int64_t kTime = 36930123456;  // 10:15:30.123456
  EXPECT_EQ(field(PgTypes::kTime, Value::integer(kTime), micro), be64(kTime));
  EXPECT_EQ(field(PgTypes::kTime, Value::integer(kTime * 1000 + 789), nano), be64(kTime));
  EXPECT_EQ(field(PgTypes::kTime, Value::integer(kTime / 1000), milli), be64(kTime - 456));
  EXPECT_EQ(field(PgTypes::kTime, Value::integer(int64_t{86400} * 1000000), micro),
            be64(int64_t{86400} * 1000000));
  EXPECT_EQ(field(PgTypes::kTime, Value::integer(-1), micro), std::nullopt);
  EXPECT_EQ(text(PgTypes::kTime, Value::integer(kTime), micro), "10:15:30.123456");
  EXPECT_EQ(text(PgTypes::kTime, Value::integer(kTime * 1000 + 789), nano), "10:15:30.123456");
  EXPECT_EQ(text(PgTypes::kTime, Value::integer(kTime / 1000), milli), "10:15:30.123");
}

TEST(ColumnEncoder, ZonedTimestampsAndTimesAreParsedExactly) {
  const auto zts = named(T::kString, Schema::kZonedTimestampName);
  const auto zt = named(T::kString, Schema::kZonedTimeName);
  EXPECT_EQ(field(PgTypes::kTimestamptz, Value::string("2024-03-01T10:15:30.123456Z"), zts),
            be64(kPgMicros));
  EXPECT_EQ(field(PgTypes::kTimestamptz, Value::string("2024-03-01T11:45:30.123456+01:30"), zts),
            be64(kPgMicros));
  EXPECT_EQ(field(PgTypes::kTimestamptz, Value::string("2024-03-01T10:15:30.1Z"), zts),
            be64(kPgMicros - 23456));
  EXPECT_EQ(field(PgTypes::kTimestamptz, Value::string("2024-02-29T00:00Z"), zts),
            be64(kPgMicros - (int64_t{86400} + 36930) * 1000000 - 123456));
  // Left to the server: more digits than it keeps, infinity, impossible dates, other spellings.
  EXPECT_EQ(field(PgTypes::kTimestamptz, Value::string("2024-03-01T10:15:30.1234567Z"), zts),
            std::nullopt);
  EXPECT_EQ(field(PgTypes::kTimestamptz, Value::string("infinity"), zts), std::nullopt);
  EXPECT_EQ(field(PgTypes::kTimestamptz, Value::string("2023-02-29T10:15:30Z"), zts), std::nullopt);
  EXPECT_EQ(field(PgTypes::kTimestamptz, Value::string("2024-03-01T10:15:30"), zts), std::nullopt);
  EXPECT_EQ(text(PgTypes::kTimestamptz, Value::string("2024-03-01T10:15:30.123456Z"), zts),
            "2024-03-01T10:15:30.123456Z");
  // timetz: microseconds, then the zone in seconds west of UTC.
  EXPECT_EQ(field(PgTypes::kTimetz, Value::string("10:15:30.123Z"), zt),
            be64(36930123000) + be32(0));
  EXPECT_EQ(field(PgTypes::kTimetz, Value::string("10:15:30+05:30"), zt),
            be64(36930000000) + be32(-19800));
  EXPECT_EQ(field(PgTypes::kTimetz, Value::string("10:15:30-08:00"), zt),
            be64(36930000000) + be32(28800));
  EXPECT_EQ(field(PgTypes::kTimetz, Value::string("25:15:30Z"), zt), std::nullopt);
}

TEST(ColumnEncoder, VariableScaleDecimalIsTheExactNumber) {
  const auto vsd = named(T::kStruct, Schema::kVariableScaleDecimalName);
  auto decimal = [](std::string unscaled, int64_t scale) {
    return Value::object({{"scale", Value::integer(scale)}, {"value", Value::bytes(unscaled)}});
  };
  // -129 at scale 3.
  EXPECT_EQ(text(PgTypes::kNumeric, decimal("\xff\x7f", 3), vsd), "-0.129");
  EXPECT_EQ(text(PgTypes::kNumeric, decimal("\x30\x39", -2), vsd), "1234500");
  CopyBinaryWriter expected;
  const size_t header = expected.size();
  ASSERT_TRUE(expected.numeric("-0.129"));
  EXPECT_EQ(field(PgTypes::kNumeric, decimal("\xff\x7f", 3), vsd),
            std::string(expected.buffer().substr(header + 4)));
  // A malformed struct is not a number the sink can write.
  EXPECT_EQ(field(PgTypes::kNumeric, Value::object({{"scale", Value::integer(1)}}), vsd),
            std::nullopt);
  // An array of them.
  EXPECT_EQ(text(
                1231, Value::array({decimal("\x01", 1), Value()}),
                [&] {
                  auto a = std::make_shared<Schema>();
                  a->type = T::kArray;
                  a->value_schema = vsd;
                  return a;
                }(),
                PgTypes::kNumeric),
            R"({"0.1",NULL})");
}

TEST(ColumnEncoder, BitsBecomeTheSourceBitString) {
  const auto bits = named(T::kBytes, Schema::kBitsName, {{"length", "10"}});
  // b'1000000101': bits 0, 2 and 9 from the right, little-endian bytes.
  const Value v = Value::bytes(std::string("\x05\x02", 2));
  EXPECT_EQ(text(PgTypes::kVarbit, v, bits), "1000000101");
  // varbit_send: the bit count, then the bits leftmost first, padded with zeros.
  EXPECT_EQ(field(PgTypes::kVarbit, v, bits), be32(10) + std::string("\x81\x40", 2));
  EXPECT_EQ(field(PgTypes::kBit, v, bits), be32(10) + std::string("\x81\x40", 2));
  EXPECT_EQ(field(PgTypes::kText, v, bits), "1000000101");
  // A bytea column (created by hand) keeps Debezium's bytes.
  EXPECT_EQ(field(PgTypes::kBytea, v, bits), std::string("\x05\x02", 2));
  EXPECT_EQ(field(PgTypes::kVarbit, Value::string("0102"), nullptr), std::nullopt);
}

TEST(ColumnEncoder, DebeziumStringTypesGoInAsTheyAre) {
  const auto uuid = named(T::kString, Schema::kUuidName);
  const auto json = named(T::kString, Schema::kJsonName);
  const auto xml = named(T::kString, Schema::kXmlName);
  EXPECT_TRUE(binary(PgTypes::kUuid, Value::string("123e4567-e89b-12d3-a456-426614174000"), uuid));
  EXPECT_EQ(field(PgTypes::kJsonb, Value::string(R"({"a":1})"), json), "\x01{\"a\":1}");
  EXPECT_EQ(field(PgTypes::kXml, Value::string("<a>1</a>"), xml), "<a>1</a>");
  EXPECT_EQ(text(PgTypes::kXml, Value::string("<a>1</a>"), xml), "<a>1</a>");
}

}  // namespace
}  // namespace ksink::postgres
