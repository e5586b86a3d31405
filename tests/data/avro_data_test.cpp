// Avro schemas and binary data as Connect's, the way Confluent's AvroConverter (AvroData) maps
// them: every Avro type and logical type, unions (optional and general), enums, maps and MapEntry
// arrays, Confluent's connect.* annotations; and bytes that are not a datum of the schema —
// truncated, lengths and counts past the input, left-over bytes — refused without reading past
// the input or allocating what a length claims.
#include "avro/avro_data.h"

#include <gtest/gtest.h>

#include <cstring>

#include "avro/avro_schema.h"
#include "ksink/conversion_error.h"

namespace ksink::avro {
namespace {

using T = Schema::Type;

// Avro's binary encoding, for the test vectors.
std::string zigzag(int64_t v) {
  uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  std::string out;
  while (u >= 0x80) {
    out += static_cast<char>((u & 0x7f) | 0x80);
    u >>= 7;
  }
  out += static_cast<char>(u);
  return out;
}
std::string str(std::string_view s) {
  return zigzag(static_cast<int64_t>(s.size())) + std::string(s);
}
std::string dbl(double d) {
  std::string out(8, '\0');
  std::memcpy(out.data(), &d, 8);
  return out;
}
std::string flt(float f) {
  std::string out(4, '\0');
  std::memcpy(out.data(), &f, 4);
  return out;
}

struct Parsed {
  std::shared_ptr<const AvroSchema> avro;
  std::shared_ptr<const Schema> connect;
  Value read(const std::string& bytes) const {
    return readAvroBinary(avro->root(), *connect, bytes);
  }
};
Parsed parse(const std::string& json, std::optional<int32_t> version = std::nullopt) {
  Parsed p;
  p.avro = AvroSchema::parse(json);
  p.connect = toConnectSchema(p.avro->root(), version);
  return p;
}

TEST(AvroDataTest, ARecordOfPrimitivesIsAStructNamedByTheRecord) {
  const auto p = parse(R"({"type":"record","name":"Order","namespace":"shop","fields":[
      {"name":"id","type":"long"},{"name":"sku","type":"string"},{"name":"qty","type":"int"},
      {"name":"price","type":"double"},{"name":"ok","type":"boolean"},{"name":"f","type":"float"},
      {"name":"raw","type":"bytes"},{"name":"note","type":["null","string"],"default":null}]})",
                       3);
  ASSERT_EQ(p.connect->type, T::kStruct);
  EXPECT_EQ(p.connect->name, "shop.Order");
  EXPECT_EQ(p.connect->version, 3);  // the registry's version, at the top
  const T types[] = {T::kInt64,   T::kString,  T::kInt32, T::kFloat64,
                     T::kBoolean, T::kFloat32, T::kBytes, T::kString};
  ASSERT_EQ(p.connect->fields.size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(p.connect->fields[i].schema->type, types[i]) << i;
  EXPECT_FALSE(p.connect->fields[0].schema->optional);
  EXPECT_TRUE(p.connect->fields[7].schema->optional);
  const auto v = p.read(zigzag(-42) + str("a-1") + zigzag(7) + dbl(9.5) + std::string(1, '\1') +
                        flt(0.25f) + str(std::string("\0\xff", 2)) + zigzag(1) + str("hi"));
  const auto& o = v.asObject();
  EXPECT_EQ(o[0].first, "id");
  EXPECT_EQ(o[0].second.asInt(), -42);
  EXPECT_EQ(o[1].second.asString(), "a-1");
  EXPECT_EQ(o[2].second.asInt(), 7);
  EXPECT_EQ(o[3].second.asDouble(), 9.5);
  EXPECT_TRUE(o[4].second.asBoolean());
  EXPECT_EQ(o[5].second.asDouble(), 0.25);
  EXPECT_EQ(o[6].second.asBytes(), std::string("\0\xff", 2));
  EXPECT_EQ(o[7].second.asString(), "hi");
  EXPECT_TRUE(p.read(zigzag(1) + str("") + zigzag(0) + dbl(0) + std::string(1, '\0') + flt(0) +
                     str("") + zigzag(0))
                  .asObject()[7]
                  .second.isNull());
}

TEST(AvroDataTest, LogicalTypesBecomeConnectsOrStayPlainAsConfluentsDo) {
  const auto p = parse(R"({"type":"record","name":"L","fields":[
      {"name":"d","type":{"type":"int","logicalType":"date"}},
      {"name":"t","type":{"type":"int","logicalType":"time-millis"}},
      {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
      {"name":"us","type":{"type":"long","logicalType":"timestamp-micros"}},
      {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
      {"name":"wide","type":{"type":"fixed","name":"W","size":3,"logicalType":"decimal","precision":64,"scale":1}},
      {"name":"id","type":{"type":"string","logicalType":"uuid"}},
      {"name":"small","type":{"type":"int","connect.type":"int16"}},
      {"name":"tiny","type":{"type":"int","connect.type":"int8"}}]})");
  const auto& f = p.connect->fields;
  EXPECT_EQ(f[0].schema->name, Schema::kDateName);
  EXPECT_EQ(f[1].schema->name, Schema::kTimeName);
  EXPECT_EQ(f[2].schema->name, Schema::kTimestampName);
  EXPECT_EQ(f[3].schema->name, "");
  EXPECT_EQ(f[3].schema->type, T::kInt64);
  EXPECT_EQ(f[4].schema->name, Schema::kDecimalName);
  EXPECT_EQ(f[4].schema->parameters.at("scale"), "2");
  EXPECT_EQ(f[4].schema->parameters.at("connect.decimal.precision"), "10");
  EXPECT_EQ(f[5].schema->name, Schema::kDecimalName);
  EXPECT_FALSE(f[5].schema->parameters.contains("connect.decimal.precision"));
  EXPECT_EQ(f[6].schema->type, T::kString);
  EXPECT_EQ(f[6].schema->name, "");
  EXPECT_EQ(f[7].schema->type, T::kInt16);
  EXPECT_EQ(f[8].schema->type, T::kInt8);
  // -12.30 at scale 2: unscaled -1230, 0xFB32, the bytes Connect's Decimal holds too.
  const auto v =
      p.read(zigzag(19782) + zigzag(49507000) + zigzag(1709214307123) + zigzag(1709214307123456) +
             str("\xfb\x32") + std::string("\x00\x00\x7b", 3) +
             str("123e4567-e89b-12d3-a456-426614174000") + zigzag(-300) + zigzag(5));
  const auto& o = v.asObject();
  EXPECT_EQ(o[0].second.asInt(), 19782);
  EXPECT_EQ(o[2].second.asInt(), 1709214307123);
  EXPECT_EQ(o[3].second.asInt(), 1709214307123456);
  EXPECT_EQ(o[4].second.asBytes(), "\xfb\x32");
  EXPECT_EQ(o[5].second.asBytes(), std::string("\x00\x00\x7b", 3));
  EXPECT_EQ(o[7].second.asInt(), -300);
}

TEST(AvroDataTest, UnionsEnumsArraysAndMaps) {
  const auto p = parse(R"({"type":"record","name":"U","namespace":"n","fields":[
      {"name":"either","type":["int","string",{"type":"record","name":"Inner","fields":[{"name":"x","type":"int"}]}]},
      {"name":"maybe","type":["string","null"]},
      {"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
      {"name":"tags","type":{"type":"array","items":"string"}},
      {"name":"attrs","type":{"type":"map","values":"long"}},
      {"name":"byId","type":{"type":"array","items":{"type":"record","name":"MapEntry",
        "namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}},
      {"name":"again","type":"Inner"}]})");
  const auto& f = p.connect->fields;
  EXPECT_EQ(f[0].schema->name, "io.confluent.connect.avro.Union");
  ASSERT_EQ(f[0].schema->fields.size(), 3u);
  EXPECT_EQ(f[0].schema->fields[0].name, "int");
  EXPECT_EQ(f[0].schema->fields[1].name, "string");
  EXPECT_EQ(f[0].schema->fields[2].name, "Inner");
  EXPECT_TRUE(f[1].schema->optional);
  EXPECT_EQ(f[2].schema->name, "n.Color");
  EXPECT_EQ(f[2].schema->parameters.at("io.confluent.connect.avro.Enum"), "n.Color");
  EXPECT_EQ(f[2].schema->parameters.at("io.confluent.connect.avro.Enum.GREEN"), "GREEN");
  EXPECT_EQ(f[3].schema->type, T::kArray);
  EXPECT_EQ(f[4].schema->type, T::kMap);
  EXPECT_EQ(f[5].schema->type, T::kMap);
  EXPECT_EQ(f[5].schema->key_schema->type, T::kInt32);
  EXPECT_EQ(f[6].schema->name, "n.Inner");

  // Blocks: a negative count carries its byte size; two blocks for the array.
  const auto v = p.read(zigzag(2) + zigzag(-5) +    // either: Inner{x=-5}
                        zigzag(0) + str("maybe") +  // maybe: "maybe"
                        zigzag(1) +                 // color: GREEN
                        zigzag(1) + str("a") + zigzag(-1) + zigzag(2) + str("b") + zigzag(0) +
                        zigzag(1) + str("k") + zigzag(9) + zigzag(0) +     // attrs
                        zigzag(1) + zigzag(4) + str("four") + zigzag(0) +  // byId
                        zigzag(11));                                       // again
  const auto& o = v.asObject();
  const auto& either = o[0].second.asObject();
  EXPECT_TRUE(either[0].second.isNull());
  EXPECT_TRUE(either[1].second.isNull());
  EXPECT_EQ(either[2].second.asObject()[0].second.asInt(), -5);
  EXPECT_EQ(o[1].second.asString(), "maybe");
  EXPECT_EQ(o[2].second.asString(), "GREEN");
  ASSERT_EQ(o[3].second.asArray().size(), 2u);
  EXPECT_EQ(o[3].second.asArray()[1].asString(), "b");
  EXPECT_EQ(o[4].second.asObject()[0].first, "k");
  EXPECT_EQ(o[4].second.asObject()[0].second.asInt(), 9);
  const auto& pair = o[5].second.asArray()[0].asArray();  // non-string keys: [key, value]
  EXPECT_EQ(pair[0].asInt(), 4);
  EXPECT_EQ(pair[1].asString(), "four");
  EXPECT_EQ(o[6].second.asObject()[0].second.asInt(), 11);
}

// An optional string key makes a map with string keys; an entry whose key is null cannot be one of
// its entries: refused, not dropped.
TEST(AvroDataTest, AMapEntryWithANullStringKeyIsRefused) {
  const auto p = parse(R"({"type":"array","items":{"type":"record","name":"MapEntry",
      "namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":["null","string"]},
      {"name":"value","type":"int"}]}})");
  ASSERT_EQ(p.connect->type, T::kMap);
  const auto v = p.read(zigzag(1) + zigzag(1) + str("k") + zigzag(3) + zigzag(0));
  EXPECT_EQ(v.asObject()[0].first, "k");
  EXPECT_EQ(v.asObject()[0].second.asInt(), 3);
  EXPECT_THROW(p.read(zigzag(1) + zigzag(0) + zigzag(3) + zigzag(0)), ConversionError);
}

TEST(AvroDataTest, ConfluentsAnnotationsAreRead) {
  const auto p =
      parse(R"({"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro",
      "connect.version":4,"connect.doc":"rows","connect.parameters":{"k":"v"},"avro.java.string":"String",
      "fields":[{"name":"q","type":"int","default":5},
                {"name":"n","type":{"type":"string","connect.name":"my.Name","connect.default":"x"}}]})",
            9);
  EXPECT_EQ(p.connect->name, "");  // ConnectDefault names are dropped
  EXPECT_EQ(p.connect->version, 4);
  EXPECT_EQ(p.connect->doc, "rows");
  EXPECT_EQ(p.connect->parameters.at("k"), "v");
  EXPECT_EQ(p.connect->parameters.at("avro.java.string"), "String");
  ASSERT_TRUE(p.connect->fields[0].schema->default_value);
  EXPECT_EQ(p.connect->fields[0].schema->default_value->asInt(), 5);
  EXPECT_EQ(p.connect->fields[1].schema->name, "my.Name");
  EXPECT_EQ(p.connect->fields[1].schema->default_value->asString(), "x");
}

TEST(AvroDataTest, BytesThatAreNotADatumAreRefusedWithoutReadingPastThem) {
  const auto p = parse(R"({"type":"record","name":"R","fields":[{"name":"s","type":"string"},
      {"name":"b","type":"boolean"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}]})");
  const std::string good = str("ok") + std::string(1, '\0') + zigzag(0);
  EXPECT_EQ(p.read(good).asObject()[0].second.asString(), "ok");
  for (const std::string& bad : {
           std::string(),                                 // nothing
           good.substr(0, good.size() - 1),               // truncated
           good + std::string(1, '\0'),                   // left over
           zigzag(1LL << 40) + "x",                       // a length past the input
           zigzag(-3) + "abc",                            // a negative length
           str("ok") + std::string(1, '\2') + zigzag(0),  // a boolean of 2
           str("ok") + std::string(1, '\0') + zigzag(1),  // enum index 1 of 1 symbol
           std::string(11, '\xff'),                       // an endless varint
       })
    EXPECT_THROW(p.read(bad), ConversionError) << testing::PrintToString(bad);
  // A block of 2^40 empty records claims no bytes: bounded by what is left, not allocated.
  const auto nulls = parse(R"({"type":"array","items":{"type":"record","name":"E","fields":[]}})");
  EXPECT_THROW(nulls.read(zigzag(1LL << 40) + zigzag(0)), ConversionError);
  // A negative count (a block with its size) of -2^63: found by avro_fuzz (negating it overflowed).
  EXPECT_THROW(nulls.read(zigzag(INT64_MIN) + zigzag(1) + zigzag(0)), ConversionError);
  EXPECT_EQ(nulls.read(zigzag(3) + zigzag(0)).asArray().size(), 3u);
  // But one block of many (a writer's whole array: 5000 nulls in 4 bytes) reads, within a budget
  // per datum (found by avro_fuzz writing back what it read in several blocks).
  EXPECT_EQ(nulls.read(zigzag(5000) + zigzag(0)).asArray().size(), 5000u);
  EXPECT_THROW(nulls.read(zigzag(40000) + zigzag(40000) + zigzag(0)), ConversionError);
}

TEST(AvroDataTest, SchemasConnectCannotHoldOrThatAreNotAvroAreRefused) {
  EXPECT_THROW(AvroSchema::parse("{not json"), std::invalid_argument);
  EXPECT_THROW(
      AvroSchema::parse(R"({"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]})"),
      std::invalid_argument);
  EXPECT_THROW(AvroSchema::parse(R"({"type":"enum","name":"E","symbols":[]})"),
               std::invalid_argument);
  EXPECT_THROW(AvroSchema::parse(R"({"type":"fixed","name":"F"})"), std::invalid_argument);
  EXPECT_THROW(parse(R"("null")"), ConversionError);
  EXPECT_THROW(
      parse(R"({"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]})"),
      ConversionError);
  EXPECT_THROW(parse(R"(["int",{"type":"int","connect.type":"int8"}])"), ConversionError);
}

}  // namespace
}  // namespace ksink::avro
