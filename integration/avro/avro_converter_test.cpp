// The Avro converter (io.confluent.connect.avro.AvroConverter) against a real schema registry
// (Apicurio Registry serving Confluent's API): what ksink writes reads back and is registered
// under the subject its strategy names; records written by Confluent's own serializer (Python's
// confluent-kafka) read as the values it was given; bad bytes and unknown ids are bad records;
// an incompatible schema is refused with the registry's reason; a registry that hangs is
// ConversionUnavailable (retriable, no record's fault) until it answers again.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "avro/avro_schema.h"
#include "avro/avro_writer.h"
#include "avro/schema_registry_client.h"
#include "command_output.h"
#include "ksink/config.h"
#include "ksink/conversion_error.h"
#include "ksink/conversion_unavailable.h"
#include "ksink/converter.h"
#include "test_kafka.h"
#include "test_schema_registry.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<Converter> avroConverter(const std::string& url,
                                         std::map<std::string, std::string> extra = {},
                                         bool is_key = false) {
  const std::string prefix = is_key ? "key.converter" : "value.converter";
  std::map<std::string, std::string> values{{prefix, "io.confluent.connect.avro.AvroConverter"},
                                            {prefix + ".schema.registry.url", url}};
  for (auto& [k, v] : extra) values[prefix + "." + k] = v;
  return Converter::create(Config(values), is_key);
}

SchemaAndValue order(int64_t id, std::string sku, std::optional<int32_t> qty = std::nullopt) {
  auto s = std::make_shared<Schema>();
  s->type = Schema::Type::kStruct;
  s->name = "shop.Order";
  s->fields = {{"id", Schema::of(Schema::Type::kInt64)},
               {"sku", Schema::of(Schema::Type::kString)}};
  Value::Object o{{"id", Value::integer(id)}, {"sku", Value::string(std::move(sku))}};
  if (qty) {
    s->fields.push_back({"qty", Schema::of(Schema::Type::kInt32, true)});
    o.emplace_back("qty", Value::integer(*qty));
  }
  return {s, Value::object(std::move(o))};
}

int32_t idOf(const std::string& bytes) {
  EXPECT_GE(bytes.size(), 5u);
  EXPECT_EQ(bytes[0], '\0');
  uint32_t id = 0;
  for (size_t i = 1; i < 5; ++i) id = id << 8 | static_cast<uint8_t>(bytes[i]);
  return static_cast<int32_t>(id);
}

avro::SchemaRegistryClient registryClient(const std::string& url) {
  avro::RegistrySettings settings;
  settings.urls = {url};
  return avro::SchemaRegistryClient(settings);
}

TEST(AvroConverterTest, WhatIsWrittenIsRegisteredUnderItsSubjectAndReadsBack) {
  const auto topic = uniqueName("orders");
  auto writer = avroConverter(TestSchemaRegistry::url());
  const auto data = order(7, "a-1");
  const auto bytes = writer->fromConnectData(topic, data);
  ASSERT_TRUE(bytes);
  auto registry = registryClient(TestSchemaRegistry::url());
  const auto [latest_id, latest_text] = registry.latest(topic + "-value");
  EXPECT_EQ(idOf(*bytes), latest_id);
  EXPECT_NE(latest_text.find(R"("connect.name":"shop.Order")"), std::string::npos) << latest_text;
  // Another converter (nothing cached) reads it back through the registry.
  const auto read = avroConverter(TestSchemaRegistry::url())->toConnectData(topic, *bytes);
  EXPECT_EQ(read.value, data.value);
  EXPECT_EQ(read.schema->name, "shop.Order");
  EXPECT_FALSE(writer->fromConnectData(topic, {data.schema, Value()}).has_value());

  // A compatible change (an optional field) is a second version; an incompatible one (a
  // field's type changed, under BACKWARD) is a bad record naming the registry's reason.
  const auto v2 = writer->fromConnectData(topic, order(8, "b", 3));
  EXPECT_NE(idOf(*v2), latest_id);
  EXPECT_EQ(registry.latest(topic + "-value").first, idOf(*v2));
  auto bad = order(9, "c");
  auto changed = std::make_shared<Schema>(*bad.schema);
  changed->fields[1].schema = Schema::of(Schema::Type::kInt32);
  try {
    writer->fromConnectData(
        topic, {changed, Value::object({{"id", Value::integer(9)}, {"sku", Value::integer(1)}})});
    FAIL() << "an incompatible schema was registered";
  } catch (const ConversionError& e) {
    EXPECT_NE(std::string(e.what()).find("409"), std::string::npos) << e.what();
  }
}

TEST(AvroConverterTest, SubjectsFollowTheNameStrategyAndUnregisteredSchemasAreRefusedWhenAsked) {
  const auto topic = uniqueName("strategy");
  auto registry = registryClient(TestSchemaRegistry::url());
  auto record_name = uniqueName("n") + ".Order";
  std::replace(record_name.begin(), record_name.end(), '-', '_');  // an Avro name
  auto data = order(1, "x");
  std::const_pointer_cast<Schema>(data.schema)->name = record_name;
  avroConverter(TestSchemaRegistry::url(), {{"value.subject.name.strategy", "RecordNameStrategy"}})
      ->fromConnectData(topic, data);
  EXPECT_GT(registry.latest(record_name).first, 0);
  avroConverter(TestSchemaRegistry::url(),
                {{"value.subject.name.strategy",
                  "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"}})
      ->fromConnectData(topic, data);
  EXPECT_GT(registry.latest(topic + "-" + record_name).first, 0);
  // Keys: <topic>-key.
  avroConverter(TestSchemaRegistry::url(), {}, true)
      ->fromConnectData(topic, {Schema::of(Schema::Type::kInt64), Value::integer(1)});
  EXPECT_NE(registry.latest(topic + "-key").second.find("long"), std::string::npos);

  // auto.register.schemas=false: a schema the subject does not have is a bad record; once
  // registered it is found and written with its id.
  auto strict = avroConverter(TestSchemaRegistry::url(), {{"auto.register.schemas", "false"}});
  const auto other = uniqueName("strict");
  EXPECT_THROW(strict->fromConnectData(other, data), ConversionError);
  const auto id = idOf(*avroConverter(TestSchemaRegistry::url())->fromConnectData(other, data));
  EXPECT_EQ(idOf(*strict->fromConnectData(other, data)), id);

  // use.latest.version: written with the subject's latest schema, fields matched by name.
  const auto latest_topic = uniqueName("latest");
  const auto latest_text =
      R"({"type":"record","name":")" + record_name +
      R"(","fields":[{"name":"sku","type":"string"},{"name":"id","type":"long"},)"
      R"({"name":"note","type":["null","string"],"default":null}]})";
  const auto latest_id = registry.registerSchema(latest_topic + "-value", latest_text);
  auto latest = avroConverter(TestSchemaRegistry::url(),
                              {{"use.latest.version", "true"}, {"auto.register.schemas", "false"}});
  const auto bytes = latest->fromConnectData(latest_topic, data);
  EXPECT_EQ(idOf(*bytes), latest_id);
  const auto read = avroConverter(TestSchemaRegistry::url())->toConnectData(latest_topic, *bytes);
  EXPECT_EQ(read.value.toJson(), R"({"sku":"x","id":1,"note":null})");
}

TEST(AvroConverterTest, BytesThatAreNotTheWireFormatAndUnknownIdsAreBadRecords) {
  auto c = avroConverter(TestSchemaRegistry::url());
  EXPECT_FALSE(c->toConnectData("t", std::nullopt).schema);
  for (const std::string& bytes :
       {std::string(), std::string("\0\0\0", 3), std::string("{\"a\":1}"),
        std::string("\x01\0\0\0\x01\x02", 6)}) {
    try {
      c->toConnectData("t", bytes);
      FAIL() << "read: " << bytes;
    } catch (const ConversionError& e) {
      EXPECT_NE(std::string(e.what()).find("wire format"), std::string::npos) << e.what();
    }
  }
  try {
    c->toConnectData("t", std::string("\0\x3a\xde\x68\xb1\x02", 6));  // id 987654321
    FAIL() << "an unknown id was read";
  } catch (const ConversionError& e) {
    EXPECT_NE(std::string(e.what()).find("987654321"), std::string::npos) << e.what();
  }
  // A datum that does not fit its (known) schema: bad too.
  const auto good = *avroConverter(TestSchemaRegistry::url())->fromConnectData("t", order(1, "a"));
  EXPECT_THROW(c->toConnectData("t", good.substr(0, good.size() - 1)), ConversionError);
  EXPECT_THROW(c->toConnectData("t", good + "x"), ConversionError);
}

TEST(AvroConverterTest, RecordsOfConfluentsSerializerReadAsTheValuesItWasGiven) {
  // Every Avro type, written by Python's confluent-kafka AvroSerializer; produce.py prints what it
  // gave each record in a sink's text forms (integers, hex bytes, decimal text, days, millis).
  const auto topic = uniqueName("py");
  RealKafka::shared().createTopic(topic, 1);
  const auto python =
      test::scriptOutput(fmt::format("'{}/integration/avro/python/env.sh'", KSINK_SOURCE_DIR));
  const auto printed = test::scriptOutput(fmt::format(
      "'{}' '{}/integration/avro/python/produce.py' --bootstrap '{}' --registry '{}' --topic '{}' "
      "--count 6 2>/dev/null",
      python, KSINK_SOURCE_DIR, RealKafka::shared().bootstrap(), TestSchemaRegistry::url(), topic));
  std::vector<std::vector<std::string>> expected;
  std::istringstream lines(printed);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> columns;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) columns.push_back(cell);
    expected.push_back(columns);
  }
  ASSERT_EQ(expected.size(), 6u) << printed;
  const auto records = test::readPartition(RealKafka::shared().bootstrap(), topic, 0, 6, 30s);
  ASSERT_EQ(records.size(), 6u);
  auto values = avroConverter(TestSchemaRegistry::url());
  auto keys = avroConverter(TestSchemaRegistry::url(), {}, true);
  const auto writer_schema = avro::AvroSchema::parse(
      *registryClient(TestSchemaRegistry::url()).schemaById(idOf(*records.at(0).value)));
  for (size_t n = 0; n < records.size(); ++n) {
    const auto key = keys->toConnectData(topic, records[n].key);
    EXPECT_EQ(key.value.toJson(), fmt::format(R"({{"id":{}}})", n));
    const auto data = values->toConnectData(topic, records[n].value);
    const auto& f = data.schema->fields;
    const auto& v = data.value.asObject();
    const auto& e = expected[n];
    ASSERT_EQ(v.size(), 19u);
    const auto hex = [](const std::string& b) {
      std::string out;
      for (const unsigned char c : b) out += fmt::format("{:02x}", c);
      return out;
    };
    EXPECT_EQ(std::to_string(v[0].second.asInt()), e[0]);
    EXPECT_EQ(std::to_string(v[1].second.asInt()), e[1]);
    EXPECT_EQ(v[2].second.asDouble(), std::stod(e[2]));
    EXPECT_EQ(v[3].second.asDouble(), std::stod(e[3]));
    EXPECT_EQ(v[4].second.asBoolean() ? "t" : "f", e[4]);
    EXPECT_EQ(v[5].second.asString(), e[5]);
    EXPECT_EQ(hex(v[6].second.asBytes()), e[6]);
    EXPECT_EQ(v[7].second.isNull() ? "\\N" : v[7].second.asString(), e[7]);
    EXPECT_EQ(f[8].schema->name, Schema::kDecimalName);
    EXPECT_EQ(Value::decimalToString(v[8].second.asBytes(), f[8].schema->decimalScale()), e[8]);
    EXPECT_EQ(f[9].schema->name, Schema::kDateName);
    EXPECT_EQ(std::to_string(v[9].second.asInt()), e[9]);
    EXPECT_EQ(f[10].schema->name, Schema::kTimeName);
    EXPECT_EQ(std::to_string(v[10].second.asInt()), e[10]);
    EXPECT_EQ(f[11].schema->name, Schema::kTimestampName);
    EXPECT_EQ(std::to_string(v[11].second.asInt()), e[11]);
    EXPECT_EQ(std::to_string(v[12].second.asInt()), e[12]);  // timestamp-micros: a plain long
    EXPECT_EQ(v[13].second.asString(), e[13]);
    EXPECT_EQ(v[14].second.asString(), e[14]);
    EXPECT_EQ(f[14].schema->parameters.at("io.confluent.connect.avro.Enum"), "shop.Color");
    EXPECT_EQ(hex(v[15].second.asBytes()), e[15]);
    std::string tags;
    for (const auto& t : v[16].second.asArray()) tags += (tags.empty() ? "" : "|") + t.asString();
    EXPECT_EQ(tags, e[16]);
    EXPECT_EQ(v[17].second.toJson(), fmt::format(R"({{"a":{},"bb":{}}})", n, -int64_t(n)));
    EXPECT_EQ(f[18].schema->name, "io.confluent.connect.avro.Union");
    if (e[18] == "\\N") {
      EXPECT_TRUE(v[18].second.isNull());
    } else {
      EXPECT_EQ(v[18].second.toJson(),
                e[18].substr(0, 1) + "\"long\":" + (n % 3 == 1 ? std::to_string(n) : "null") +
                    ",\"string\":" + (n % 3 == 2 ? fmt::format("\"e{}\"", n) : "null") + "}");
    }
    // ksink's writer gives the same datum as Confluent's serializer for the same schema (the one
    // the record names) and values.
    std::string datum;
    avro::writeAvroBinary(writer_schema->root(), *data.schema, data.value, datum);
    EXPECT_EQ(datum, records[n].value->substr(5)) << n;
    // And what the converter writes for the Connect data (its own schema: the enum as a string,
    // as Confluent's converter writes it) reads back to the same values.
    const auto rewritten = values->fromConnectData(topic + "-copy", data);
    EXPECT_EQ(values->toConnectData(topic + "-copy", rewritten).value, data.value) << n;
  }
}

TEST(AvroConverterTest, ARegistryThatHangsIsUnavailableNotABadRecordUntilItAnswers) {
  SchemaRegistryProcess own(freshDir("ksink-registry-outage"));
  const auto url = own.start();
  const auto known = *avroConverter(url)->fromConnectData("t", order(1, "a"));
  const auto unseen = *avroConverter(url)->fromConnectData("t", order(2, "b", 5));
  auto reader =
      avroConverter(url, {{"http.read.timeout.ms", "1500"}, {"http.connect.timeout.ms", "1500"}});
  EXPECT_EQ(reader->toConnectData("t", known).value, order(1, "a").value);
  own.pause();
  // Known ids keep reading from the cache; an id not seen yet waits for the registry.
  EXPECT_EQ(reader->toConnectData("t", known).value, order(1, "a").value);
  for (int i = 0; i < 2; ++i)
    EXPECT_THROW(reader->toConnectData("t", unseen), ConversionUnavailable);
  EXPECT_THROW(
      avroConverter(url, {{"http.read.timeout.ms", "1500"}})->fromConnectData("t", order(3, "c")),
      ConversionUnavailable);
  own.resume();
  EXPECT_EQ(reader->toConnectData("t", unseen).value, order(2, "b", 5).value);
  // Stopped: refused connections are unavailable too.
  own.stop();
  EXPECT_THROW(avroConverter(url)->toConnectData("t", unseen), ConversionUnavailable);
}

}  // namespace
}  // namespace ksink::it
