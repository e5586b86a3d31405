// Converters: Connect's JSON (schema envelope with logical types, schemaless), string and bytes,
// and that no input makes them do anything but return or throw ConversionError.
#include "ksink/converter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <random>
#include <tuple>

#include "json_converter.h"
#include "ksink/config.h"

namespace ksink {
namespace {

SchemaAndValue json(std::string_view data, bool schemas = true) {
  JsonConverter c(schemas);
  return c.toConnectData("t", data);
}

constexpr std::string_view kOrderSchema =
    R"({"type":"struct","name":"Order","optional":false,"fields":[)"
    R"({"field":"id","type":"int32","optional":false},)"
    R"({"field":"name","type":"string","optional":true},)"
    R"({"field":"qty","type":"int16","optional":true,"default":7},)"
    R"({"field":"price","type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},)"
    R"({"field":"day","type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date"},)"
    R"({"field":"at","type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time"},)"
    R"({"field":"ts","type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp"},)"
    R"({"field":"blob","type":"bytes","optional":true},)"
    R"({"field":"tags","type":"array","items":{"type":"string"},"optional":true},)"
    R"({"field":"attrs","type":"map","keys":{"type":"string"},"values":{"type":"double"},"optional":true})"
    R"(]})";

std::string envelope(std::string_view payload) {
  return fmt::format(R"({{"schema":{},"payload":{}}})", kOrderSchema, payload);
}

TEST(JsonConverterTest, EnvelopeStructConvertsEveryFieldInSchemaOrder) {
  const auto sv = json(envelope(
      R"({"name":"widget","id":42,"price":"MDk=","day":19000,"at":45307250,"ts":1700000000123,)"
      R"("blob":"aGk=","tags":["a","b"],"attrs":{"x":1.5},"unknown":true})"));
  ASSERT_TRUE(sv.schema);
  EXPECT_EQ(sv.schema->type, Schema::Type::kStruct);
  EXPECT_EQ(sv.schema->name, "Order");
  ASSERT_EQ(sv.value.kind(), Value::Kind::kObject);
  const auto& o = sv.value.asObject();
  ASSERT_EQ(o.size(), 10u);
  EXPECT_EQ(o[0].first, "id");
  EXPECT_EQ(o[0].second, Value::integer(42));
  EXPECT_EQ(o[1].second, Value::string("widget"));
  EXPECT_EQ(o[2].second, Value::integer(7)) << "missing optional field with a default";
  EXPECT_EQ(
      Value::decimalToString(o[3].second.asBytes(), sv.schema->fields[3].schema->decimalScale()),
      "123.45");
  EXPECT_EQ(Value::dateToString(o[4].second.asInt()), "2022-01-08");
  EXPECT_EQ(Value::timeToString(o[5].second.asInt()), "12:35:07.250");
  EXPECT_EQ(Value::timestampToString(o[6].second.asInt()), "2023-11-14 22:13:20.123");
  EXPECT_EQ(o[7].second, Value::bytes("hi"));
  EXPECT_EQ(o[8].second, Value::array({Value::string("a"), Value::string("b")}));
  EXPECT_EQ(o[9].second.toJson(), R"({"x":1.5})");
}

TEST(JsonConverterTest, DecimalAsJsonNumberIsAccepted) {
  const auto sv = json(envelope(R"({"id":1,"price":-123.45})"));
  EXPECT_EQ(Value::decimalToString(sv.value.asObject()[3].second.asBytes(), 2), "-123.45");
}

TEST(JsonConverterTest, RecordsWithTheSameSchemaShareOneSchemaObject) {
  JsonConverter c(true);
  const auto a = c.toConnectData("t", envelope(R"({"id":1,"price":"MDk="})"));
  const auto b = c.toConnectData("t", envelope(R"({"id":2,"price":"MDk="})"));
  EXPECT_EQ(a.schema.get(), b.schema.get());
}

// What a converter returns for `data`: the value, or the error's message.
std::string outcome(JsonConverter& c, std::string_view data) {
  try {
    const auto sv = c.toConnectData("t", data);
    return fmt::format("schema {} value {}", sv.schema ? "set" : "none", sv.value.toJson());
  } catch (const ConversionError& e) {
    return std::string("error: ") + e.what();
  }
}

// A record that starts like the last envelope read in full, up to its payload, has only its
// payload parsed: whatever follows, the result is the one a fresh converter gives.
TEST(JsonConverterTest, EnvelopesWithTheSameHeadAgreeWithAFullRead) {
  const std::string head = fmt::format(R"({{"schema":{},"payload":)", kOrderSchema);
  const std::string payload = R"({"id":2,"name":"b","price":"MDk="})";
  const std::vector<std::string> records = {
      head + payload + "}",
      head + payload + " }\n",
      head + "null}",
      head + payload + R"(,"extra":1})",
      head + R"({"id":1,"price":"MDk="},"payload":{"id":3,"price":"MDk="}})",
      head + payload + R"(,"schema":{"type":"string"}})",
      head + payload + "}}",
      head + payload + "} x",
      head + payload,
      head + "}",
      head + R"({"id":1,)" + "}",
      head + R"({"id":"x","price":"MDk="})" + "}",
      head + R"([1,2],[3]})",
      head + "1,2}",
      fmt::format(R"({{"payload":{},"schema":{}}})", payload, kOrderSchema),
      fmt::format(R"({{"schema":{},"payload": {}}})", kOrderSchema, payload),
  };
  const std::string first = head + R"({"id":1,"price":"MDk="}})";
  JsonConverter warm(true);
  ASSERT_EQ(outcome(warm, first).rfind("schema set value {\"id\":1,", 0), 0u)
      << outcome(warm, first);
  for (const auto& record : records) {
    JsonConverter fresh(true);
    EXPECT_EQ(outcome(warm, record), outcome(fresh, record)) << record;
    EXPECT_EQ(outcome(warm, first), outcome(fresh, first)) << "after " << record;
  }
  const auto a = warm.toConnectData("t", head + payload + "}");
  ASSERT_NE(a.value.find("id"), nullptr);
  EXPECT_EQ(*a.value.find("id"), Value::integer(2));
  EXPECT_EQ(a.schema.get(), warm.toConnectData("t", first).schema.get());
}

// Clearing the schema cache forgets the head too: the same schema text, read before and after
// the clear in envelopes of either field order, gives one Schema object.
TEST(JsonConverterTest, OneSchemaTextKeepsOneSchemaObjectAcrossACacheClear) {
  const std::string payload = R"({"id":1,"price":"MDk="})";
  const std::string schema_first =
      fmt::format(R"({{"schema":{},"payload":{}}})", kOrderSchema, payload);
  const std::string payload_first =
      fmt::format(R"({{"payload":{},"schema":{}}})", payload, kOrderSchema);
  JsonConverter c(true);
  c.toConnectData("t", schema_first);
  for (int i = 0; i < 1100; ++i) {  // other schemas, payloads that do not match them
    const auto other =
        fmt::format(R"({{"schema":{{"type":"int32","name":"n{}"}},"payload":"x"}})", i);
    EXPECT_THROW(c.toConnectData("t", other), ConversionError);
  }
  const auto a = c.toConnectData("t", payload_first);
  const auto b = c.toConnectData("t", schema_first);
  EXPECT_EQ(a.schema.get(), b.schema.get());
}

TEST(JsonConverterTest, PrimitiveEnvelopeAndNullSchema) {
  const auto s = json(R"({"schema":{"type":"string","optional":false},"payload":"hello"})");
  EXPECT_EQ(s.schema->type, Schema::Type::kString);
  EXPECT_EQ(s.value, Value::string("hello"));
  const auto n = json(R"({"schema":null,"payload":{"a":1}})");
  EXPECT_FALSE(n.schema);
  EXPECT_EQ(n.value.toJson(), R"({"a":1})");
}

TEST(JsonConverterTest, SchemalessKeepsFieldOrderAndTypes) {
  const auto sv = json(R"({"b":1,"a":"x","c":2.5,"d":true,"e":null,"f":[1,{"g":-3}]})", false);
  EXPECT_FALSE(sv.schema);
  EXPECT_EQ(sv.value.toJson(), R"({"b":1,"a":"x","c":2.5,"d":true,"e":null,"f":[1,{"g":-3}]})");
  EXPECT_EQ(json("17", false).value, Value::integer(17));
  EXPECT_EQ(json("\"s\"", false).value, Value::string("s"));
  EXPECT_EQ(json(" null ", false).value, Value());
}

TEST(JsonConverterTest, NullDataIsANullValue) {
  JsonConverter c(true);
  const auto sv = c.toConnectData("t", std::nullopt);
  EXPECT_FALSE(sv.schema);
  EXPECT_TRUE(sv.value.isNull());
}

void expectConversionError(std::string_view data, bool schemas, std::string_view reason_part) {
  JsonConverter c(schemas);
  try {
    c.toConnectData("t", data);
    ADD_FAILURE() << "no error for " << data;
  } catch (const ConversionError& e) {
    EXPECT_NE(std::string(e.what()).find(reason_part), std::string::npos)
        << "message '" << e.what() << "' lacks '" << reason_part << "'";
  }
}

TEST(JsonConverterTest, MalformedJsonIsAConversionError) {
  for (const auto* bad : {"", "{", "{\"a\":", "nul", "[1,", "{\"a\" 1}", "\"open", "\xff\xfe",
                          "1 2", "{} {}", "1],[2", "{\"a\":1}x", "tru"})
    expectConversionError(bad, false, "invalid JSON data");
}

TEST(JsonConverterTest, SchemaMismatchesSayWhatAndWhere) {
  expectConversionError(envelope(R"({"id":"x","price":"MDk="})"), true,
                        "'payload.id': expected int32");
  expectConversionError(envelope(R"({"name":"x","price":"MDk="})"), true, "required int32");
  expectConversionError(envelope(R"({"id":1,"price":"MDk=","qty":40000})"), true, "out of range");
  expectConversionError(envelope(R"({"id":1,"price":"%%%"})"), true, "base64");
  expectConversionError(envelope(R"({"id":1,"price":"MDk=","tags":[1]})"), true,
                        "'payload.tags[0]'");
  expectConversionError(R"({"a":1})", true, "schemas.enable=false");
  expectConversionError(R"({"schema":{"type":"struct","fields":[]}})", true, "no \"payload\"");
  expectConversionError(R"({"schema":{"type":"strange"},"payload":1})", true,
                        "unknown schema type");
  expectConversionError("[1]", true, "schemas.enable=false");
}

TEST(JsonConverterTest, ArbitraryBytesNeverCrashAndAWarmConverterAgreesWithAFreshOne) {
  std::mt19937 rng(42);
  const std::string valid = envelope(R"({"id":1,"price":"MDk=","tags":["a"],"attrs":{"k":2}})");
  const std::string alphabet = "{}[]\":,0123456789.-eEtrufalsn \\x\x01\xff";
  JsonConverter with_schema(true), schemaless(false);
  ASSERT_EQ(outcome(with_schema, valid).rfind("schema set", 0), 0u);
  for (int i = 0; i < 20000; ++i) {
    std::string data;
    if (i % 2 == 0) {  // a valid document, truncated or with one byte changed
      data = valid.substr(0, rng() % (valid.size() + 1));
      if (!data.empty() && i % 4 == 0)
        data[rng() % data.size()] = alphabet[rng() % alphabet.size()];
    } else {
      const size_t n = rng() % 40;
      for (size_t k = 0; k < n; ++k) data += alphabet[rng() % alphabet.size()];
    }
    // The converter that has read `valid` (and what came since) agrees with a fresh one.
    JsonConverter fresh(true);
    ASSERT_EQ(outcome(with_schema, data), outcome(fresh, data)) << data;
    outcome(schemaless, data);
    if (i % 100 == 0) outcome(with_schema, valid);
  }
}

TEST(JsonConverterTest, DeepNestingIsAnErrorNotAStackOverflow) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  expectConversionError(deep, false, "invalid JSON data");
}

TEST(ConverterTest, CreateHonoursConnectClassNamesAndAliases) {
  Config config({{"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
                 {"value.converter", "bytes"}});
  auto key = Converter::create(config, true);
  auto value = Converter::create(config, false);
  EXPECT_EQ(key->toConnectData("t", "k1").value, Value::string("k1"));
  EXPECT_EQ(key->toConnectData("t", "k1").schema->type, Schema::Type::kString);
  EXPECT_EQ(value->toConnectData("t", "{x").value, Value::bytes("{x"));
  EXPECT_TRUE(value->toConnectData("t", std::nullopt).value.isNull());

  Config schemaless({{"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
                     {"value.converter.schemas.enable", "false"}});
  EXPECT_EQ(Converter::create(schemaless, false)->toConnectData("t", R"({"a":1})").value.toJson(),
            R"({"a":1})");
  // The default is Connect's: JSON with schemas enabled.
  EXPECT_THROW(Converter::create(Config(), false)->toConnectData("t", R"({"a":1})"),
               ConversionError);
}

TEST(ConverterTest, UnknownConverterIsAConfigError) {
  EXPECT_THROW(
      Converter::create(Config(std::map<std::string, std::string>{{"value.converter", "protobuf"}}),
                        false),
      ConfigException);
  const auto problems = Converter::configDef().validate(
      {{"key.converter", "io.confluent.connect.protobuf.ProtobufConverter"}});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "key.converter");
  // Avro is known, and needs its registry.
  const auto avro = Converter::configDef().validate({{"key.converter", "avro"}});
  ASSERT_EQ(avro.size(), 1u);
  EXPECT_EQ(avro[0].key, "key.converter.schema.registry.url");
  EXPECT_THROW(Converter::create(
                   Config(std::map<std::string, std::string>{{"value.converter", "avro"}}), false),
               ConfigException);
}

TEST(ValueTest, DecimalTextRoundTrips) {
  for (const auto* text : {"0", "1", "-1", "123.45", "-123.45", "0.01", "-0.01", "127", "128",
                           "-128", "-129", "99999999999999999999999999.99"}) {
    const auto bytes = Value::decimalFromString(text, 2);
    ASSERT_TRUE(bytes) << text;
    std::string expected = text;
    if (expected.find('.') == std::string::npos) expected += ".00";
    EXPECT_EQ(Value::decimalToString(*bytes, 2), expected) << text;
  }
  EXPECT_EQ(Value::decimalToString("\x30\x39", 0), "12345");
  EXPECT_EQ(Value::decimalToString("\xcf\xc7", 2), "-123.45");
  EXPECT_FALSE(Value::decimalFromString("1.234", 2));
  EXPECT_EQ(Value::decimalFromString("1.50", 1), Value::decimalFromString("1.5", 1));
}

// Connect's JsonConverter with decimal.format=NUMERIC writes BigDecimal.toString(): its exponent
// forms read back as the same decimal (issue 36, item 4: every numeric text path is Java's).
TEST(ValueTest, JavasExponentFormOfADecimalReadsBack) {
  const std::vector<std::tuple<std::string, int32_t, std::string>> cases{
      {"1E-8", 8, "0.00000001"},     {"5E+3", -3, "5000"},     {"0E+3", -3, "0"},
      {"-1.5E-7", 8, "-0.00000015"}, {"1.23E+5", 0, "123000"}, {"1e5", 2, "100000.00"},
      {"1.0E-7", 8, "0.00000010"}};
  for (const auto& [text, scale, plain] : cases) {
    const auto bytes = Value::decimalFromString(text, scale);
    ASSERT_TRUE(bytes) << text;
    EXPECT_EQ(Value::decimalToString(*bytes, scale), plain) << text;
    EXPECT_EQ(Value::decimalFromString(Value::decimalToJavaString(*bytes, scale), scale), bytes)
        << text;
  }
  for (const char* bad : {"1E-9", "1E", "E5", "1E+x", "1.2.3E1", "1E+-8", "1E+"})
    EXPECT_FALSE(Value::decimalFromString(bad, 8)) << bad;
}

// A decimal's scale and length are work out of proportion to the record's bytes (scale 2e9 is
// 2 GB of text): beyond the bounds the record is bad, refused at once, before any work.
TEST(JsonConverterTest, ADecimalBeyondTheBoundsIsABadRecordRefusedAtOnce) {
  const auto decimal = [](std::string_view scale, std::string_view value) {
    return fmt::format(
        R"({{"schema":{{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal",)"
        R"("parameters":{{"scale":"{}"}}}},"payload":{}}})",
        scale, value);
  };
  const auto started = std::chrono::steady_clock::now();
  for (const auto* scale : {"2000000000", "1000000", "-16384", "16384", "x"})
    EXPECT_THROW(json(decimal(scale, R"("MDk=")")), ConversionError) << scale;
  EXPECT_THROW(json(decimal("2000000000", "1.5")), ConversionError) << "decimal.format=NUMERIC";
  // Unscaled bytes past the bound (4 KB of base64: 3072 bytes).
  EXPECT_THROW(json(decimal("2", "\"" + std::string(4096, 'A') + "\"")), ConversionError);
  EXPECT_THROW(json(decimal("0", std::string(5000, '9'))), ConversionError);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  // Within the bounds: the largest scale converts.
  const auto sv = json(decimal("16383", R"("MDk=")"));
  const auto text = Value::decimalToString(sv.value.asBytes(), 16383);
  EXPECT_EQ(text.size(), 16385u);
  EXPECT_TRUE(text.ends_with("12345")) << text.substr(text.size() - 10);
}

// A schemaless integer beyond 64 bits would be rounded to a double without a word: it is a bad
// record instead; fractions and exponents stay doubles, int64's own range stays exact.
TEST(JsonConverterTest, ASchemalessIntegerBeyond64BitsIsABadRecord) {
  for (const auto* text : {R"({"m":12345678901234567890})", R"({"m":-9223372036854775809})",
                           R"({"m":[1,123456789012345678901234567890]})"})
    EXPECT_THROW(json(text, false), ConversionError) << text;
  EXPECT_EQ(*json(R"({"m":-9223372036854775808})", false).value.find("m"),
            Value::integer(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(*json(R"({"m":1.5e3})", false).value.find("m"), Value::floating(1500));
  EXPECT_EQ(*json(R"({"m":12345678901234567890.0})", false).value.find("m"),
            Value::floating(12345678901234567890.0));
}

TEST(ValueTest, DecimalTextRefusesWorkBeyondTheBounds) {
  EXPECT_THROW(Value::decimalToString("\x30\x39", 2000000000), ConversionError);
  EXPECT_THROW(Value::decimalToString("\x30\x39", -2000000000), ConversionError);
  EXPECT_THROW(Value::decimalToString(std::string(Value::kMaxDecimalBytes + 1, '\x7f'), 0),
               ConversionError);
  EXPECT_FALSE(Value::decimalFromString("1", 2000000000));
  EXPECT_FALSE(Value::decimalFromString(std::string(Value::kMaxDecimalDigits + 1, '9'), 0));
  EXPECT_EQ(Value::decimalToString(std::string(Value::kMaxDecimalBytes, '\x7f'), 0).size(), 4932u);
}

TEST(ValueTest, DatesBeforeTheEpochAndTimestampsFormatInUtc) {
  EXPECT_EQ(Value::dateToString(0), "1970-01-01");
  EXPECT_EQ(Value::dateToString(-1), "1969-12-31");
  EXPECT_EQ(Value::dateToString(11016), "2000-02-29");
  EXPECT_EQ(Value::timestampToString(-1), "1969-12-31 23:59:59.999");
  EXPECT_EQ(Value::timeToString(0), "00:00:00.000");
}

TEST(ValueTest, JsonEscapesStringsAndEncodesBytes) {
  const auto v = Value::object({{"s", Value::string("a\"b\\\n\x01")}, {"b", Value::bytes("hi")}});
  EXPECT_EQ(v.toJson(), R"({"s":"a\"b\\\n\u0001","b":"aGk="})");
}

// Java's BigDecimal.toString() for each case (printed by a JVM: new BigDecimal(BigInteger, scale)).
TEST(DecimalJavaText, IsPlainUntilTheAdjustedExponentFallsBelowMinusSixOrTheScaleIsNegative) {
  auto bytes = [](int64_t unscaled) {
    std::string out;
    for (int shift = 56; shift >= 0; shift -= 8)
      out += static_cast<char>(static_cast<uint64_t>(unscaled) >> shift);
    return out;
  };
  const std::vector<std::tuple<int64_t, int32_t, std::string>> cases{{1, 8, "1E-8"},
                                                                     {5, -3, "5E+3"},
                                                                     {0, -3, "0E+3"},
                                                                     {0, 8, "0E-8"},
                                                                     {1, 6, "0.000001"},
                                                                     {1, 7, "1E-7"},
                                                                     {-15, 8, "-1.5E-7"},
                                                                     {123, -3, "1.23E+5"},
                                                                     {-123456789, 8, "-1.23456789"},
                                                                     {99999999, 8, "0.99999999"},
                                                                     {10, 8, "1.0E-7"},
                                                                     {1234, 2, "12.34"},
                                                                     {12345, 0, "12345"},
                                                                     {0, 0, "0"},
                                                                     {0, 2, "0.00"},
                                                                     {-1, 1, "-0.1"},
                                                                     {100, 9, "1.00E-7"},
                                                                     {1234567, 13, "1.234567E-7"}};
  for (const auto& [unscaled, scale, java] : cases)
    EXPECT_EQ(Value::decimalToJavaString(bytes(unscaled), scale), java) << unscaled << " " << scale;
}

}  // namespace
}  // namespace ksink
