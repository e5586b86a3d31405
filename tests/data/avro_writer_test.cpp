// Connect data written as Avro (avro_writer.h) and read back (avro_data.h): every Connect type and
// logical type round-trips to the same schema and value; Avro's own enums, fixed and general unions
// survive Avro → Connect → Avro; a named type met twice is referred to by name; values that do not
// fit are refused. And the Avro converter's keys: Confluent's names, what is refused and why.
#include "avro/avro_writer.h"

#include <gtest/gtest.h>

#include "avro/avro_converter.h"
#include "avro/avro_data.h"
#include "avro/avro_schema.h"
#include "json_converter.h"
#include "ksink/config_exception.h"
#include "ksink/conversion_error.h"

namespace ksink::avro {
namespace {

using T = Schema::Type;

// Connect's schema and value from the JSON envelope (the JSON converter is tested on its own).
SchemaAndValue connect(std::string_view schema, std::string_view payload) {
  JsonConverter json(true);
  return json.toConnectData("t", fmt::format(R"({{"schema":{},"payload":{}}})", schema, payload));
}

struct RoundTrip {
  std::string avro_json;
  std::shared_ptr<const Schema> schema;  // what the Avro schema reads back as
  Value value;
};
RoundTrip roundTrip(const SchemaAndValue& data) {
  RoundTrip r;
  r.avro_json = fromConnectSchema(*data.schema);
  const auto avro = AvroSchema::parse(r.avro_json);
  std::string bytes;
  writeAvroBinary(avro->root(), *data.schema, data.value, bytes);
  r.schema = toConnectSchema(avro->root());
  r.value = readAvroBinary(avro->root(), *r.schema, bytes);
  return r;
}

// Two Connect schemas alike in everything a sink reads.
void expectSameSchema(const Schema& a, const Schema& b, const std::string& where = "") {
  EXPECT_EQ(a.type, b.type) << where;
  EXPECT_EQ(a.optional, b.optional) << where;
  EXPECT_EQ(a.name, b.name) << where;
  EXPECT_EQ(a.version, b.version) << where;
  EXPECT_EQ(a.parameters, b.parameters) << where;
  EXPECT_EQ(a.doc, b.doc) << where;
  EXPECT_EQ(bool(a.default_value), bool(b.default_value)) << where;
  if (a.default_value && b.default_value) {
    EXPECT_EQ(*a.default_value, *b.default_value) << where;
  }
  ASSERT_EQ(a.fields.size(), b.fields.size()) << where;
  for (size_t i = 0; i < a.fields.size(); ++i) {
    EXPECT_EQ(a.fields[i].name, b.fields[i].name) << where;
    expectSameSchema(*a.fields[i].schema, *b.fields[i].schema, where + "." + a.fields[i].name);
  }
  ASSERT_EQ(bool(a.key_schema), bool(b.key_schema)) << where;
  if (a.key_schema) expectSameSchema(*a.key_schema, *b.key_schema, where + "<key>");
  ASSERT_EQ(bool(a.value_schema), bool(b.value_schema)) << where;
  if (a.value_schema) expectSameSchema(*a.value_schema, *b.value_schema, where + "<value>");
}

constexpr std::string_view kEveryType = R"({"type":"struct","name":"shop.Order","version":2,
  "doc":"an order","fields":[
  {"field":"i8","type":"int8"},{"field":"i16","type":"int16"},{"field":"i32","type":"int32"},
  {"field":"i64","type":"int64"},{"field":"f32","type":"float"},{"field":"f64","type":"double"},
  {"field":"ok","type":"boolean"},{"field":"s","type":"string"},{"field":"b","type":"bytes"},
  {"field":"maybe","type":"string","optional":true},
  {"field":"absent","type":"int64","optional":true},
  {"field":"withDefault","type":"int32","optional":true,"default":7},
  {"field":"amount","type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,
   "parameters":{"scale":"2","connect.decimal.precision":"10"}},
  {"field":"day","type":"int32","name":"org.apache.kafka.connect.data.Date","version":1},
  {"field":"at","type":"int32","name":"org.apache.kafka.connect.data.Time","version":1},
  {"field":"ts","type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1},
  {"field":"micros","type":"int64","name":"io.debezium.time.MicroTimestamp","version":1},
  {"field":"tags","type":"array","items":{"type":"string"}},
  {"field":"attrs","type":"map","keys":{"type":"string"},"values":{"type":"int64"}},
  {"field":"byId","type":"map","keys":{"type":"int32"},"values":{"type":"string","optional":true}},
  {"field":"inner","type":"struct","name":"shop.Line","optional":true,
   "fields":[{"field":"sku","type":"string"},{"field":"qty","type":"int32"}]},
  {"field":"anon","type":"struct","fields":[{"field":"x","type":"int32"}]}]})";

constexpr std::string_view kEveryValue = R"({"i8":-128,"i16":32767,"i32":-2147483648,
  "i64":9223372036854775807,"f32":0.25,"f64":-1.5e300,"ok":true,"s":"grüße\n","b":"AP8=",
  "maybe":"here","absent":null,"withDefault":3,"amount":"+zI=","day":19782,"at":49507250,
  "ts":1709214307123,"micros":1709214307123456,"tags":["a","",""],"attrs":{"x":1,"y":-1},
  "byId":[[1,"one"],[-2,null]],"inner":{"sku":"a-1","qty":2},"anon":{"x":5}})";

TEST(AvroWriterTest, EveryConnectTypeRoundTripsToTheSameSchemaAndValue) {
  const auto data = connect(kEveryType, kEveryValue);
  const auto r = roundTrip(data);
  expectSameSchema(*data.schema, *r.schema);
  EXPECT_EQ(r.value, data.value) << r.value.toJson() << "\n" << data.value.toJson();
  // The same with the optional struct null and the optional fields at their nulls.
  auto o = data.value.asObject();
  for (auto& [name, v] : o)
    if (name == "inner" || name == "maybe") v = Value();
  const auto r2 = roundTrip({data.schema, Value::object(o)});
  EXPECT_EQ(r2.value, Value::object(o));
}

TEST(AvroWriterTest, TheAvroSchemaCarriesConfluentsAnnotations) {
  const auto json = fromConnectSchema(*connect(kEveryType, kEveryValue).schema);
  for (
      const std::string_view part :
      {R"({"type":"record","name":"shop.Order","fields":[)",
       R"({"name":"i8","type":{"type":"int","connect.type":"int8"}})",
       R"({"name":"maybe","type":["null","string"],"default":null})",
       R"({"name":"withDefault","type":["int","null"],"default":7})",
       R"("scale":2,"precision":10,"logicalType":"decimal")",
       R"({"type":"int","logicalType":"date","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date"})",
       R"("logicalType":"timestamp-millis")",
       R"({"type":"long","connect.version":1,"connect.name":"io.debezium.time.MicroTimestamp"})",
       R"({"type":"map","values":"long"})",
       R"({"type":"record","name":"io.confluent.connect.avro.MapEntry","fields":[)",
       R"({"type":"record","name":"io.confluent.connect.avro.ConnectDefault","fields":[)",
       R"("connect.doc":"an order","connect.version":2,"connect.name":"shop.Order"})"})
    EXPECT_NE(json.find(part), std::string::npos) << part << "\nin " << json;
}

TEST(AvroWriterTest, ANamedTypeMetTwiceIsReferredToByName) {
  // Debezium's envelope: before and after share one struct, and maps repeat MapEntry.
  const auto data =
      connect(R"({"type":"struct","name":"db.t.Envelope","fields":[
      {"field":"before","type":"struct","name":"db.t.Value","optional":true,"fields":[{"field":"id","type":"int32"}]},
      {"field":"after","type":"struct","name":"db.t.Value","optional":true,"fields":[{"field":"id","type":"int32"}]},
      {"field":"m1","type":"map","keys":{"type":"int32"},"values":{"type":"int32"}},
      {"field":"m2","type":"map","keys":{"type":"int32"},"values":{"type":"int32"}},
      {"field":"m3","type":"map","keys":{"type":"int64"},"values":{"type":"int32"}},
      {"field":"op","type":"string"}]})",
              R"({"before":null,"after":{"id":4},"m1":[[1,2]],"m2":[],"m3":[[5,6]],"op":"c"})");
  const auto r = roundTrip(data);
  EXPECT_NE(r.avro_json.find(R"({"name":"after","type":["null","db.t.Value"],"default":null})"),
            std::string::npos)
      << r.avro_json;
  // The second map of the same entries names them; a map of other keys gets its own entry type.
  EXPECT_NE(
      r.avro_json.find(
          R"({"name":"m2","type":{"type":"array","items":"io.confluent.connect.avro.MapEntry"}})"),
      std::string::npos)
      << r.avro_json;
  EXPECT_NE(r.avro_json.find(R"("name":"io.confluent.connect.avro.MapEntry2")"), std::string::npos);
  EXPECT_EQ(r.value, data.value);
  expectSameSchema(*data.schema, *r.schema);
}

TEST(AvroWriterTest, AvrosEnumsFixedAndUnionsSurviveAvroToConnectToAvro) {
  const auto avro = AvroSchema::parse(R"({"type":"record","name":"n.U","fields":[
      {"name":"color","type":{"type":"enum","name":"n.Color","symbols":["RED","GREEN","BLUE"]}},
      {"name":"hash","type":{"type":"fixed","name":"n.Md5","size":4}},
      {"name":"either","type":["null","int","string",{"type":"record","name":"n.Inner","fields":[{"name":"x","type":"int"}]}]},
      {"name":"price","type":{"type":"fixed","name":"n.P","size":4,"logicalType":"decimal","precision":8,"scale":2}}]})");
  const auto schema = toConnectSchema(avro->root());
  const auto value = Value::object(
      {{"color", Value::string("RED")},
       {"hash", Value::bytes("\x01\x02\x03\x04")},
       {"either",
        Value::object({{"int", Value()}, {"string", Value::string("s")}, {"Inner", Value()}})},
       {"price", Value::bytes("\xfb\x32")}});  // two unscaled bytes, sign-extended to four
  const auto r = roundTrip({schema, value});
  expectSameSchema(*schema, *r.schema);
  // The enum is written back as Confluent's converter writes it: a string carrying its symbols,
  // in their order; an optional general union defaults to null.
  EXPECT_NE(r.avro_json.find(
                R"({"name":"color","type":{"type":"string","connect.parameters":{)"
                R"("io.confluent.connect.avro.Enum":"n.Color",)"
                R"("io.confluent.connect.avro.Enum.RED":"RED",)"
                R"("io.confluent.connect.avro.Enum.GREEN":"GREEN",)"
                R"("io.confluent.connect.avro.Enum.BLUE":"BLUE"},"connect.name":"n.Color"}})"),
            std::string::npos)
      << r.avro_json;
  EXPECT_NE(r.avro_json.find(R"({"name":"either","type":["null","int","string",)"),
            std::string::npos);
  EXPECT_NE(r.avro_json.find(R"("connect.name":"n.Inner"}],"default":null})"), std::string::npos)
      << r.avro_json;
  // A decimal in a fixed reads as Connect's Decimal and is written back as bytes.
  EXPECT_EQ(r.value, value) << r.value.toJson();
  // Written into the fixed itself, its unscaled bytes are sign-extended to the fixed's size.
  std::string bytes;
  writeAvroBinary(avro->root(), *schema, value, bytes);
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "\xff\xff\xfb\x32");
  EXPECT_EQ(readAvroBinary(avro->root(), *schema, bytes).asObject()[3].second.asBytes(),
            "\xff\xff\xfb\x32");
  // The union with its record branch set, and null.
  auto with_record = value.asObject();
  with_record[2].second = Value::object({{"int", Value()},
                                         {"string", Value()},
                                         {"Inner", Value::object({{"x", Value::integer(9)}})}});
  EXPECT_EQ(roundTrip({schema, Value::object(with_record)}).value.asObject()[2].second,
            with_record[2].second);
  with_record[2].second = Value();
  EXPECT_TRUE(roundTrip({schema, Value::object(with_record)}).value.asObject()[2].second.isNull());
}

TEST(AvroWriterTest, TwoDifferentSchemasOfOneNameAreRefusedNotMerged) {
  // Written as one, the second Address would lose its zip, in the schema and in every datum.
  const auto data = connect(R"({"type":"struct","name":"shop.Order","fields":[
      {"field":"billing","type":"struct","name":"shop.Address","fields":[{"field":"street","type":"string"}]},
      {"field":"shipping","type":"struct","name":"shop.Address","fields":[{"field":"street","type":"string"},{"field":"zip","type":"string"}]}]})",
                            R"({"billing":{"street":"a"},"shipping":{"street":"b","zip":"1"}})");
  EXPECT_THROW(fromConnectSchema(*data.schema), ConversionError);
  // The same struct twice, once optional, is one type.
  const auto same = connect(R"({"type":"struct","name":"shop.Order","fields":[
      {"field":"billing","type":"struct","name":"shop.Address","fields":[{"field":"street","type":"string"}]},
      {"field":"shipping","type":"struct","name":"shop.Address","optional":true,"fields":[{"field":"street","type":"string"}]}]})",
                            R"({"billing":{"street":"a"},"shipping":null})");
  EXPECT_EQ(roundTrip(same).value, same.value);
}

TEST(AvroWriterTest, ValuesThatDoNotFitTheirSchemaAreRefused) {
  const auto schema = connect(R"({"type":"struct","name":"R","fields":[
      {"field":"n","type":"int32"},{"field":"s","type":"string","optional":true}]})",
                              R"({"n":1,"s":null})")
                          .schema;
  const auto avro = AvroSchema::parse(fromConnectSchema(*schema));
  const auto write = [&](Value v) {
    std::string out;
    writeAvroBinary(avro->root(), *schema, v, out);
    return out;
  };
  EXPECT_THROW(write(Value::object({{"n", Value()}, {"s", Value()}})), ConversionError);
  EXPECT_THROW(write(Value::object({{"n", Value::string("1")}, {"s", Value()}})), ConversionError);
  EXPECT_THROW(write(Value::object({{"n", Value::integer(1ll << 40)}, {"s", Value()}})),
               ConversionError);
  EXPECT_THROW(write(Value::integer(1)), ConversionError);
  EXPECT_EQ(write(Value::object({{"n", Value::integer(-1)}, {"s", Value::string("x")}})),
            std::string("\x01\x02\x02x", 4));
  // An enum symbol the schema does not declare; a fixed of another size.
  const auto e = AvroSchema::parse(R"({"type":"enum","name":"E","symbols":["A"]})");
  std::string out;
  EXPECT_THROW(writeAvroBinary(e->root(), *toConnectSchema(e->root()), Value::string("B"), out),
               ConversionError);
  const auto f = AvroSchema::parse(R"({"type":"fixed","name":"F","size":2})");
  EXPECT_THROW(writeAvroBinary(f->root(), *toConnectSchema(f->root()), Value::bytes("abc"), out),
               ConversionError);
}

TEST(AvroWriterTest, ALaterSchemaOfTheSubjectIsWrittenByFieldName) {
  // use.latest.version: the subject's schema orders fields otherwise and adds one with a null
  // default, which the value does not have.
  const auto data = connect(R"({"type":"struct","name":"R","fields":[
      {"field":"a","type":"int32"},{"field":"b","type":"string"}]})",
                            R"({"a":1,"b":"x"})");
  const auto latest = AvroSchema::parse(R"({"type":"record","name":"R","fields":[
      {"name":"b","type":"string"},{"name":"c","type":["null","long"],"default":null},
      {"name":"a","type":"int"}]})");
  std::string out;
  writeAvroBinary(latest->root(), *data.schema, data.value, out);
  EXPECT_EQ(out, std::string("\x02x\x00\x02", 4));
  const auto strict =
      AvroSchema::parse(R"({"type":"record","name":"R","fields":[{"name":"c","type":"long"}]})");
  EXPECT_THROW(writeAvroBinary(strict->root(), *data.schema, data.value, out), ConversionError);
  // A later schema whose field is a map or an array where the value has a struct: refused, not
  // followed into a schema the value does not have.
  const auto structured = connect(R"({"type":"struct","name":"R","fields":[
      {"field":"b","type":"struct","fields":[{"field":"x","type":"int32"}]}]})",
                                  R"({"b":{"x":1}})");
  for (const std::string type :
       {R"({"type":"map","values":"string"})", R"({"type":"array","items":"string"})"}) {
    const auto other = AvroSchema::parse(
        R"({"type":"record","name":"R","fields":[{"name":"b","type":)" + type + "}]}");
    EXPECT_THROW(writeAvroBinary(other->root(), *structured.schema, structured.value, out),
                 ConversionError);
  }
}

// --- the converter's keys ---------------------------------------------------------------------

std::vector<std::string> problemKeys(const std::map<std::string, std::string>& values) {
  try {
    AvroConverterConfig::parse(values, "value.converter.");
  } catch (const ConfigException& e) {
    std::vector<std::string> keys;
    for (const auto& p : e.problems()) keys.push_back(p.key + ": " + p.reason);
    return keys;
  }
  return {};
}

TEST(AvroConverterConfigTest, ConfluentsKeysAreReadAndEveryOtherKeyIsRefusedByName) {
  const auto c = AvroConverterConfig::parse(
      {{"value.converter.schema.registry.url", "http://a:8081, http://b:8081/apis/ccompat/v7"},
       {"value.converter.basic.auth.credentials.source", "USER_INFO"},
       {"value.converter.basic.auth.user.info", "me:se:cret"},
       {"value.converter.auto.register.schemas", "false"},
       {"value.converter.value.subject.name.strategy",
        "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"},
       {"value.converter.schemas.cache.config", "5"},
       {"value.converter.http.read.timeout.ms", "1500"},
       {"key.converter.whatever", "is not ours"}},
      "value.converter.");
  EXPECT_EQ(c.registry.urls,
            (std::vector<std::string>{"http://a:8081", "http://b:8081/apis/ccompat/v7"}));
  ASSERT_TRUE(c.registry.basic_auth);
  EXPECT_EQ(c.registry.basic_auth->first, "me");
  EXPECT_EQ(c.registry.basic_auth->second, "se:cret");
  EXPECT_FALSE(c.auto_register);
  EXPECT_EQ(c.value_strategy, AvroConverterConfig::SubjectStrategy::kTopicRecordName);
  EXPECT_EQ(c.key_strategy, AvroConverterConfig::SubjectStrategy::kTopicName);
  EXPECT_EQ(c.registry.cache_capacity, 5u);
  EXPECT_EQ(c.registry.read_timeout.count(), 1500);

  const auto problems = problemKeys({{"value.converter.schema.registry.url", "http://a:1"},
                                     {"value.converter.schemas.enable", "false"},
                                     {"value.converter.latest.compatibility.strict", "false"},
                                     {"value.converter.schema.registry.ssl.key.password", "x"},
                                     {"value.converter.schema.registry.ssl.truststore.type", "JKS"},
                                     {"value.converter.connect.meta.data", "false"},
                                     {"value.converter.value.subject.name.strategy", "Mine"}});
  ASSERT_EQ(problems.size(), 6u) << ::testing::PrintToString(problems);
  for (const std::string_view key :
       {"schemas.enable: is the JSON converter's", "latest.compatibility.strict: is not a key",
        "ssl.key.password: is not implemented", "truststore.type: 'JKS' is not implemented",
        "connect.meta.data: false is not implemented", "strategy: 'Mine' is not"}) {
    EXPECT_TRUE(std::any_of(problems.begin(), problems.end(), [&](const std::string& p) {
      return p.find(key) != p.npos;
    })) << key;
  }
}

TEST(AvroConverterConfigTest, CredentialsAndURLsAreCheckedAtStart) {
  EXPECT_EQ(problemKeys({}).at(0),
            "value.converter.schema.registry.url: the Avro converter needs a schema registry");
  // user:password in the URL (source URL, the default) is sent as basic auth, not in the URL.
  const auto c = AvroConverterConfig::parse(
      {{"value.converter.schema.registry.url", "https://u:p%40ss@registry:8081/x"}},
      "value.converter.");
  EXPECT_EQ(c.registry.urls.at(0), "https://registry:8081/x");
  EXPECT_EQ(c.registry.basic_auth->first, "u");
  EXPECT_EQ(c.registry.basic_auth->second, "p@ss");  // percent-decoded, as Confluent's
  EXPECT_EQ(problemKeys({{"value.converter.schema.registry.url", "ftp://r"}}).size(), 1u);
  EXPECT_EQ(problemKeys({{"value.converter.schema.registry.url", "http://r:1"},
                         {"value.converter.basic.auth.credentials.source", "USER_INFO"}})
                .at(0),
            "value.converter.basic.auth.user.info: USER_INFO needs user:password here");
  EXPECT_EQ(problemKeys({{"value.converter.schema.registry.url", "http://r:1"},
                         {"value.converter.basic.auth.credentials.source", "SASL_INHERIT"}})
                .size(),
            1u);
  // Through the converter's definitions, as a connector's configuration is checked at start.
  const auto problems = Converter::configDef().validate(
      {{"value.converter", "io.confluent.connect.avro.AvroConverter"},
       {"value.converter.schema.registry.urls", "http://r:1"}});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].key + problems[1].key,
            "value.converter.schema.registry.urlsvalue.converter.schema.registry.url");
  EXPECT_TRUE(Converter::configDef()
                  .validate({{"value.converter", "json"},
                             {"value.converter.schema.registry.url", "http://r:1"}})
                  .empty());
}

}  // namespace
}  // namespace ksink::avro
