// Converters writing (fromConnectData): the bytes Kafka Connect's JsonConverter, StringConverter
// and ByteArrayConverter write for the same data — the envelope, a schema's JSON form with its
// keys in Connect's order, field order kept, logical types, bytes as base64, Java's number text,
// Jackson's escapes — and what the JSON converter writes it reads back unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "byte_array_converter.h"
#include "json_converter.h"
#include "ksink/config.h"
#include "ksink/conversion_error.h"
#include "ksink/converter.h"
#include "ksink/simple_header_converter.h"
#include "string_converter.h"

namespace ksink {
namespace {

std::shared_ptr<const Schema> schemaOf(std::string_view json) {
  return JsonConverter::parseSchema(json);
}

std::string write(const SchemaAndValue& data, bool schemas = true) {
  JsonConverter c(schemas);
  auto out = c.fromConnectData("t", data);
  EXPECT_TRUE(out.has_value());
  return out.value_or("");
}

// What Connect's JsonConverter writes for this struct (its schema's keys: type, fields — each
// field's own form with "field" last —, optional, name, version, parameters).
constexpr std::string_view kRowEnvelope =
    R"({"schema":{"type":"struct","fields":[)"
    R"({"type":"int64","optional":false,"field":"id"},)"
    R"({"type":"string","optional":true,"field":"name"},)"
    R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"price"},)"
    R"({"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"},)"
    R"({"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},)"
    R"({"type":"array","items":{"type":"string","optional":false},"optional":true,"field":"tags"},)"
    R"({"type":"map","keys":{"type":"string","optional":false},"values":{"type":"double","optional":false},"optional":true,"field":"attrs"})"
    R"(],"optional":false,"name":"com.example.Row"},)"
    R"("payload":{"id":42,"name":"caf\u00E9 \"q\"","price":"AZo=","day":19723,"ts":1704067200000,)"
    R"("tags":["a","b"],"attrs":{"z":1.5,"a":1.0E10}}})";

TEST(JsonConverterWriteTest, AStructEnvelopeIsConnectsBytesAndReadsBackUnchanged) {
  // Read Connect's bytes (as a Connect source wrote them), write them again: the same bytes.
  JsonConverter c(true);
  const std::string text = [] {
    std::string t(kRowEnvelope);
    // The payload as Connect writes it holds the é as UTF-8, not escaped.
    const auto at = t.find("\\u00E9");
    return t.replace(at, 6, "\xC3\xA9");
  }();
  const auto read = c.toConnectData("t", text);
  ASSERT_TRUE(read.schema);
  EXPECT_EQ(c.fromConnectData("t", read), text);
  EXPECT_EQ(read.value.find("price")->asBytes(), std::string("\x01\x9A", 2));  // 4.10
}

TEST(JsonConverterWriteTest, OneConverterWritesRecordsOfAlternatingSchemasEachWithItsOwn) {
  // The converter keeps the last schema's text: every change of schema (or none) must show.
  JsonConverter c(true);
  const auto text = Schema::of(Schema::Type::kString);
  const auto number = Schema::of(Schema::Type::kInt64, true);
  const std::vector<std::pair<SchemaAndValue, std::string>> cases = {
      {{text, Value::string("a")},
       R"({"schema":{"type":"string","optional":false},"payload":"a"})"},
      {{number, Value::integer(7)}, R"({"schema":{"type":"int64","optional":true},"payload":7})"},
      {{nullptr, Value::string("b")}, R"({"schema":null,"payload":"b"})"},
      {{text, Value::string("a longer text than the first, to outgrow what was reserved")},
       R"({"schema":{"type":"string","optional":false},"payload":"a longer text than the first, to outgrow what was reserved"})"},
      {{number, Value()}, R"({"schema":{"type":"int64","optional":true},"payload":null})"},
  };
  for (int round = 0; round < 2; ++round)
    for (const auto& [data, expected] : cases) EXPECT_EQ(c.fromConnectData("t", data), expected);
  // A record that fails to write leaves nothing behind for the next one.
  auto bad = std::make_shared<Schema>();
  bad->type = Schema::Type::kString;
  EXPECT_THROW(c.fromConnectData("t", {bad, Value::integer(1)}), ConversionError);
  EXPECT_EQ(c.fromConnectData("t", {bad, Value::string("ok")}),
            R"({"schema":{"type":"string","optional":false},"payload":"ok"})");
}

TEST(JsonConverterWriteTest, SchemalessValuesKeepTheirOrderAndJavasNumberText) {
  const auto value = Value::object({{"b", Value::integer(-3)},
                                    {"a", Value::array({Value::boolean(true), Value()})},
                                    {"f", Value::floating(0.001)},
                                    {"g", Value::floating(12345678.0)},
                                    {"n", Value::floating(std::nan(""))},
                                    {"s", Value::string("tab\there\x01/")}});
  EXPECT_EQ(
      write({nullptr, value}, false),
      R"({"b":-3,"a":[true,null],"f":0.001,"g":1.2345678E7,"n":"NaN","s":"tab\there\u0001/"})");
  // With schemas enabled and no schema: Connect's envelope with a null schema.
  EXPECT_EQ(write({nullptr, Value::integer(7)}), R"({"schema":null,"payload":7})");
}

TEST(JsonConverterWriteTest, PrimitivesFloatsBytesAndNonStringMapKeys) {
  EXPECT_EQ(write({schemaOf(R"({"type":"float","optional":false})"), Value::floating(0.1)}),
            R"({"schema":{"type":"float","optional":false},"payload":0.1})");
  EXPECT_EQ(write({schemaOf(R"({"type":"bytes","optional":false})"),
                   Value::bytes(std::string("\xff\x00", 2))},
                  false),
            R"("/wA=")");
  const auto map = schemaOf(
      R"({"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"string","optional":true},"optional":false})");
  const auto pairs = Value::array({Value::array({Value::integer(1), Value::string("x")}),
                                   Value::array({Value::integer(2), Value()})});
  EXPECT_EQ(write({map, pairs}, false), R"([[1,"x"],[2,null]])");
  JsonConverter reader(false);
  EXPECT_EQ(reader.toConnectData("t", R"([[1,"x"],[2,null]])").value.kind(), Value::Kind::kArray);
}

TEST(JsonConverterWriteTest, NullsTakeTheDefaultOrAreNullOrAreRefused) {
  JsonConverter c(true);
  EXPECT_EQ(c.fromConnectData("t", {nullptr, Value()}), std::nullopt) << "a null record";
  EXPECT_EQ(write({schemaOf(R"({"type":"string","optional":true})"), Value()}),
            R"({"schema":{"type":"string","optional":true},"payload":null})");
  const auto with_default = schemaOf(R"({"type":"int16","optional":true,"default":7})");
  EXPECT_EQ(write({with_default, Value()}, false), "7");
  EXPECT_EQ(write({with_default, Value()}),
            R"({"schema":{"type":"int16","optional":true,"default":7},"payload":7})");
  EXPECT_THROW(c.fromConnectData("t", {schemaOf(R"({"type":"string","optional":false})"), Value()}),
               ConversionError);
  EXPECT_THROW(c.fromConnectData(
                   "t", {schemaOf(R"({"type":"int32","optional":false})"), Value::string("1")}),
               ConversionError);
}

// Java's Double.toString / Float.toString, as Jackson writes them into Connect's JSON.
TEST(JsonConverterWriteTest, FloatsAreWrittenAsJavaWritesThem) {
  JsonConverter c(false);
  const std::pair<double, const char*> doubles[] = {
      {0.01, "0.01"},
      {100.0, "100.0"},
      {1234567.0, "1234567.0"},
      {9999999.0, "9999999.0"},
      {1e7, "1.0E7"},
      {12345678.9, "1.23456789E7"},
      {1.5e-7, "1.5E-7"},
      {-0.001, "-0.001"},
      {123.456, "123.456"},
      {1e21, "1.0E21"},
      {-2.5e-4, "-2.5E-4"},
      {-0.0, "-0.0"},
      {1.7976931348623157e308, "1.7976931348623157E308"}};
  for (const auto& [value, text] : doubles)
    EXPECT_EQ(c.fromConnectData("t", {nullptr, Value::floating(value)}), text) << text;
  const auto float32 = Schema::of(Schema::Type::kFloat32);
  EXPECT_EQ(c.fromConnectData("t", {float32, Value::floating(0.1f)}), "0.1");
  EXPECT_EQ(c.fromConnectData("t", {float32, Value::floating(3.4028235e38f)}), "3.4028235E38");
  EXPECT_EQ(c.fromConnectData("t", {float32, Value::floating(1e-5f)}), "1.0E-5");
}

TEST(StringConverterWriteTest, WritesTextLikeConnectAndRefusesStructures) {
  StringConverter c;
  EXPECT_EQ(c.fromConnectData("t", {nullptr, Value::string("héllo")}), "héllo");
  EXPECT_EQ(c.fromConnectData("t", {nullptr, Value::integer(-12)}), "-12");
  EXPECT_EQ(c.fromConnectData("t", {nullptr, Value::boolean(true)}), "true");
  EXPECT_EQ(c.fromConnectData("t", {nullptr, Value::floating(1e-4)}), "1.0E-4");
  EXPECT_EQ(c.fromConnectData("t", {nullptr, Value()}), std::nullopt);
  EXPECT_THROW(c.fromConnectData("t", {nullptr, Value::object({})}), ConversionError);
}

// Issue 36, item 4: each expectation printed by Connect 4.1.1's StringConverter on a JVM in UTC.
TEST(StringConverterWriteTest, WritesDecimalsAndTimesAsJavaWritesThem) {
  StringConverter c;
  auto logical = [](std::string_view name, Schema::Type type, std::string scale = "") {
    auto s = std::make_shared<Schema>();
    s->type = type;
    s->name = std::string(name);
    if (!scale.empty()) s->parameters["scale"] = scale;
    return s;
  };
  EXPECT_EQ(c.fromConnectData("t", {logical(Schema::kDecimalName, Schema::Type::kBytes, "8"),
                                    Value::bytes(std::string("\x01", 1))}),
            "1E-8");
  EXPECT_EQ(c.fromConnectData("t", {logical(Schema::kDecimalName, Schema::Type::kBytes, "2"),
                                    Value::bytes(std::string("\x04\xd2", 2))}),
            "12.34");
  EXPECT_EQ(c.fromConnectData(
                "t", {logical(Schema::kDateName, Schema::Type::kInt32), Value::integer(19000)}),
            "Sat Jan 08 00:00:00 UTC 2022");
  EXPECT_EQ(c.fromConnectData("t", {logical(Schema::kTimestampName, Schema::Type::kInt64),
                                    Value::integer(1700000000123)}),
            "Tue Nov 14 22:13:20 UTC 2023");
  EXPECT_EQ(c.fromConnectData(
                "t", {logical(Schema::kTimeName, Schema::Type::kInt32), Value::integer(45296789)}),
            "Thu Jan 01 12:34:56 UTC 1970");
  EXPECT_EQ(c.fromConnectData("t", {Schema::of(Schema::Type::kFloat64), Value::floating(1e-5)}),
            "1.0E-5");
}

TEST(ByteArrayConverterWriteTest, WritesBytesAsTheyAreAndRefusesAnotherSchema) {
  ByteArrayConverter c;
  EXPECT_EQ(c.fromConnectData("t", {nullptr, Value::bytes(std::string("\0\x01", 2))}),
            std::string("\0\x01", 2));
  EXPECT_EQ(c.fromConnectData("t", {Schema::of(Schema::Type::kBytes, true), Value()}),
            std::nullopt);
  EXPECT_THROW(
      c.fromConnectData("t", {Schema::of(Schema::Type::kString, true), Value::string("x")}),
      ConversionError);
}

TEST(ConverterWriteTest, EveryConverterReadsBackWhatItWrote) {
  for (const auto* name : {"json", "string", "bytes"}) {
    SCOPED_TRACE(name);
    const Config config(std::map<std::string, std::string>{{"value.converter", name}});
    auto c = Converter::create(config, false);
    const std::string bytes = std::string(name) == "json"
                                  ? R"({"schema":{"type":"string","optional":true},"payload":"v"})"
                                  : "v";
    const auto read = c->toConnectData("t", bytes);
    EXPECT_EQ(c->fromConnectData("t", read), bytes);
  }
}

// What a source record's headers become on the wire: Connect's SimpleHeaderConverter text.
TEST(SimpleHeaderConverterTest, HeaderValuesAreWrittenAsConnectsSimpleHeaderConverterWritesThem) {
  auto text = [](std::shared_ptr<const Schema> schema, Value value) {
    return SimpleHeaderConverter::fromConnectHeader({std::move(schema), std::move(value)});
  };
  using T = Schema::Type;
  EXPECT_EQ(text(Schema::of(T::kString), Value::string("café")), "café");
  EXPECT_EQ(text(Schema::of(T::kBytes), Value::bytes(std::string("\x00\x01", 2))),
            std::string("\x00\x01", 2));
  EXPECT_EQ(text(Schema::of(T::kBoolean), Value::boolean(true)), "true");
  EXPECT_EQ(text(Schema::of(T::kInt64), Value::integer(-42)), "-42");
  EXPECT_EQ(text(Schema::of(T::kFloat32), Value::floating(0.1f)), "0.1");  // Float.toString
  EXPECT_EQ(text(Schema::of(T::kFloat64), Value::floating(100.0)), "100.0");
  EXPECT_EQ(text(Schema::of(T::kFloat64), Value::floating(1e10)), "1.0E10");
  EXPECT_EQ(text(nullptr, Value()), std::nullopt);
  EXPECT_EQ(text(Schema::of(T::kString, true), Value()), std::nullopt);
  EXPECT_EQ(text(nullptr, Value::object({{"a", Value::integer(1)}, {"b", Value::string("x")}})),
            R"({"a":1,"b":"x"})");
  EXPECT_EQ(text(nullptr, Value::array({Value::integer(1), Value::boolean(false)})), "[1,false]");
}

}  // namespace
}  // namespace ksink
