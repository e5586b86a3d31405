// Debezium's logical types: recognised by name (and only on their representation's type), read
// from the JSON envelope as Debezium writes it, and turned into exact SQL text.
#include <gtest/gtest.h>

#include <limits>

#include "json_converter.h"
#include "ksink/iso_time_reader.h"
#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink {
namespace {

using L = Schema::Logical;
using T = Schema::Type;

L logicalOf(T type, std::string_view name) {
  Schema s;
  s.type = type;
  s.name = std::string(name);
  return s.logical();
}

TEST(DebeziumTypes, LogicalNamesAreRecognisedOnTheirRepresentation) {
  EXPECT_EQ(logicalOf(T::kInt32, "io.debezium.time.Date"), L::kDate);
  EXPECT_EQ(logicalOf(T::kInt32, "io.debezium.time.Time"), L::kTime);
  EXPECT_EQ(logicalOf(T::kInt64, "io.debezium.time.MicroTime"), L::kMicroTime);
  EXPECT_EQ(logicalOf(T::kInt64, "io.debezium.time.NanoTime"), L::kNanoTime);
  EXPECT_EQ(logicalOf(T::kInt64, "io.debezium.time.Timestamp"), L::kLocalTimestamp);
  EXPECT_EQ(logicalOf(T::kInt64, "io.debezium.time.MicroTimestamp"), L::kMicroTimestamp);
  EXPECT_EQ(logicalOf(T::kInt64, "io.debezium.time.NanoTimestamp"), L::kNanoTimestamp);
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.time.ZonedTimestamp"), L::kZonedTimestamp);
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.time.ZonedTime"), L::kZonedTime);
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.data.Uuid"), L::kUuid);
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.data.Json"), L::kJson);
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.data.Xml"), L::kXml);
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.data.Enum"), L::kEnum);
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.data.EnumSet"), L::kEnumSet);
  EXPECT_EQ(logicalOf(T::kBytes, "io.debezium.data.Bits"), L::kBits);
  EXPECT_EQ(logicalOf(T::kStruct, "io.debezium.data.VariableScaleDecimal"),
            L::kVariableScaleDecimal);
  // On another type the name means nothing: the value is not in the representation.
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.time.MicroTimestamp"), L::kNone);
  EXPECT_EQ(logicalOf(T::kInt64, "io.debezium.data.Uuid"), L::kNone);
  EXPECT_EQ(logicalOf(T::kBytes, "io.debezium.data.VariableScaleDecimal"), L::kNone);
  EXPECT_EQ(logicalOf(T::kString, "io.debezium.time.Interval"), L::kNone);
  // Connect's own, as before.
  EXPECT_EQ(logicalOf(T::kBytes, Schema::kDecimalName), L::kDecimal);
  EXPECT_EQ(logicalOf(T::kInt32, Schema::kDateName), L::kDate);
  EXPECT_EQ(logicalOf(T::kInt32, Schema::kTimeName), L::kTime);
  EXPECT_EQ(logicalOf(T::kInt64, Schema::kTimestampName), L::kTimestamp);
}

TEST(DebeziumTypes, ConnectsTransformsSeeOnlyConnectsOwnLogicalTypes) {
  Schema s;
  s.type = T::kInt32;
  s.name = "io.debezium.time.Date";
  EXPECT_EQ(s.connectLogical(), L::kNone);
  s.name = std::string(Schema::kDateName);
  EXPECT_EQ(s.connectLogical(), L::kDate);
  s.type = T::kBytes;
  s.name = std::string(Schema::kDecimalName);
  EXPECT_EQ(s.connectLogical(), L::kDecimal);
}

TEST(DebeziumTypes, UnitsPerSecondFollowTheName) {
  EXPECT_EQ(Schema::unitsPerSecond(L::kTime), 1000);
  EXPECT_EQ(Schema::unitsPerSecond(L::kLocalTimestamp), 1000);
  EXPECT_EQ(Schema::unitsPerSecond(L::kMicroTime), 1000000);
  EXPECT_EQ(Schema::unitsPerSecond(L::kMicroTimestamp), 1000000);
  EXPECT_EQ(Schema::unitsPerSecond(L::kNanoTime), 1000000000);
  EXPECT_EQ(Schema::unitsPerSecond(L::kNanoTimestamp), 1000000000);
  EXPECT_EQ(Schema::unitsPerSecond(L::kDate), 0);
  EXPECT_TRUE(Schema::isTimeOfDay(L::kNanoTime));
  EXPECT_FALSE(Schema::isTimeOfDay(L::kNanoTimestamp));
  EXPECT_TRUE(Schema::isEpochTimestamp(L::kLocalTimestamp));
  EXPECT_FALSE(Schema::isEpochTimestamp(L::kZonedTimestamp));
}

TEST(DebeziumTypes, TextFormsKeepEveryDigitOfTheUnit) {
  // 2024-03-01 10:15:30.123456 as Debezium writes it for a timestamp(6) column.
  constexpr int64_t kMicros = 1709288130123456;
  EXPECT_EQ(Value::timestampToString(kMicros, 1000000), "2024-03-01 10:15:30.123456");
  EXPECT_EQ(Value::timestampToString(kMicros / 1000, 1000), "2024-03-01 10:15:30.123");
  EXPECT_EQ(Value::timestampToString(kMicros * 1000 + 789, 1000000000),
            "2024-03-01 10:15:30.123456789");
  // Before 1970 the fraction still counts forward from the second.
  EXPECT_EQ(Value::timestampToString(-1, 1000000), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(Value::timeToString(36930123456, 1000000), "10:15:30.123456");
  EXPECT_EQ(Value::timeToString(36930123456789, 1000000000), "10:15:30.123456789");
  EXPECT_EQ(Value::timeToString(int64_t{86400} * 1000000, 1000000), "24:00:00.000000");
  EXPECT_EQ(Value::timeToString(0, 1000000), "00:00:00.000000");
}

TEST(DebeziumTypes, NanosecondsAreTruncatedToMicroseconds) {
  EXPECT_EQ(Value::toMicros(1709288130123456789, 1000000000), 1709288130123456);
  EXPECT_EQ(Value::toMicros(-1, 1000000000), -1);  // toward the past, not toward zero
  EXPECT_EQ(Value::toMicros(1500, 1000), 1500000);
  EXPECT_EQ(Value::toMicros(42, 1000000), 42);
  EXPECT_EQ(Value::toMicros(std::numeric_limits<int64_t>::max(), 1000), std::nullopt);
}

TEST(DebeziumTypes, BitsReadLittleEndianFromTheRightEndOfTheBitString) {
  // The source's b'0000000101' (length 10): bits 0 and 2 set, counted from the right.
  EXPECT_EQ(Value::bitsToString(std::string("\x05", 1), 10), "0000000101");
  // b'1000000001' (length 10): bit 9 sits in the second byte.
  EXPECT_EQ(Value::bitsToString(std::string("\x01\x02", 2), 10), "1000000001");
  // b'11110000000000000001' (20 bits): three bytes, low byte first.
  EXPECT_EQ(Value::bitsToString(std::string("\x01\x00\x0f", 3), 20), "11110000000000000001");
  // Without a usable length: up to the highest set bit.
  EXPECT_EQ(Value::bitsToString(std::string("\x05\x00", 2), std::nullopt), "101");
  EXPECT_EQ(Value::bitsToString(std::string("\x05", 1), 2), "101");  // shorter than the bits
  EXPECT_EQ(Value::bitsToString(std::string("\x00", 1), std::nullopt), "0");
  EXPECT_EQ(Value::bitsToString("", 3), "000");
}

TEST(DebeziumTypes, VariableScaleDecimalAndBitsComeOutOfTheEnvelope) {
  JsonConverter c(true);
  const auto sv = c.toConnectData(
      "t",
      R"({"schema":{"type":"struct","name":"dbserver1.public.t.Value","optional":false,"fields":[)"
      R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},)"
      R"({"type":"bytes","optional":false,"field":"value"}],"optional":true,)"
      R"("name":"io.debezium.data.VariableScaleDecimal","version":1,)"
      R"("doc":"Variable scaled decimal","field":"amount"},)"
      R"({"type":"bytes","optional":true,"name":"io.debezium.data.Bits","version":1,)"
      R"("parameters":{"length":"10"},"field":"flags"},)"
      R"({"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1,)"
      R"("field":"at"}]},)"
      R"("payload":{"amount":{"scale":3,"value":"/38="},"flags":"BQ==","at":1709288130123456}})");
  ASSERT_TRUE(sv.schema);
  const auto& amount = *sv.schema->field("amount")->schema;
  EXPECT_EQ(amount.logical(), L::kVariableScaleDecimal);
  const Value* v = sv.value.find("amount");
  ASSERT_TRUE(v);
  EXPECT_EQ(Value::decimalToString(v->find("value")->asBytes(),
                                   static_cast<int32_t>(v->find("scale")->asInt())),
            "-0.129");
  const auto& flags = *sv.schema->field("flags")->schema;
  EXPECT_EQ(flags.logical(), L::kBits);
  EXPECT_EQ(flags.intParameter(Schema::kLengthParameter), 10);
  EXPECT_EQ(Value::bitsToString(sv.value.find("flags")->asBytes(),
                                flags.intParameter(Schema::kLengthParameter)),
            "0000000101");
  EXPECT_EQ(sv.schema->field("at")->schema->logical(), L::kMicroTimestamp);
}

// ZonedTimestamp's ISO form and PostgreSQL's own, read by one reader.
struct ZonedReading {
  int64_t days = 0, nanos = 0, offset = 0;
  bool ok = false;
};
ZonedReading readZoned(std::string_view text) {
  IsoTimeReader r(text);
  ZonedReading z;
  z.ok = r.date(z.days) && (r.literal('T') || r.literal(' ')) && r.time(z.nanos) &&
         r.offset(z.offset) && r.done();
  return z;
}

TEST(IsoTimeReader, ReadsJavasIsoFormsAndPostgresqlsOutput) {
  const auto iso = readZoned("2024-02-29T13:45:07.123456789+01:30");
  ASSERT_TRUE(iso.ok);
  EXPECT_EQ(iso.days, 19782);
  EXPECT_EQ(iso.nanos, ((13 * 60 + 45) * 60 + 7) * 1000000000LL + 123456789);
  EXPECT_EQ(iso.offset, 5400);
  const auto pg = readZoned("2024-02-29 13:45:07.5-05");
  ASSERT_TRUE(pg.ok);
  EXPECT_EQ(pg.nanos, ((13 * 60 + 45) * 60 + 7) * 1000000000LL + 500000000);
  EXPECT_EQ(pg.offset, -18000);
  EXPECT_EQ(readZoned("2024-02-29T13:45Z").offset, 0);
  EXPECT_EQ(readZoned("2024-02-29 13:45:07+0530").offset, 19800);
  EXPECT_EQ(readZoned("1900-01-01 00:00:00-00:17:30").offset, -1050);
  // A year past 9999 as PostgreSQL prints it; 24:00 as a day's worth.
  EXPECT_EQ(readZoned("10000-01-01 00:00:00+00").days, 2932897);
  EXPECT_EQ(readZoned("2024-02-29 24:00:00+00").nanos, 86400LL * 1000000000);
}

TEST(IsoTimeReader, RefusesWhatIsNotADateOrTime) {
  for (const char* bad :
       {"2023-02-29T10:15:30Z", "2024-13-01T10:15:30Z", "0000-01-01T00:00:00Z",
        "2024-03-01T10:15:30", "2024-03-01T25:15:30Z", "2024-03-01T24:00:01Z",
        "2024-03-01T10:15:30.1234567890Z", "2024-03-01T10:15:30.Z", "2024-03-01T10:15:30+16:00",
        "2024-03-01T10:15:30+1", "24-03-01T10:15:30Z", "infinity", "2024-03-01T10:15:30Z BC", ""})
    EXPECT_FALSE(readZoned(bad).ok) << bad;
}

}  // namespace
}  // namespace ksink
