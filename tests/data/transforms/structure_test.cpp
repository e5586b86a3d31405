// Flatten, Cast, HoistField and MaskField against Connect's documented behaviour.
#include <cmath>

#include "transform_test_support.h"

namespace ksink::testing {
namespace {

using Type = Schema::Type;

// --- Flatten ------------------------------------------------------------------------------------

TEST(FlattenTest, WithSchemaNestedStructsBecomeDelimitedTopLevelFields) {
  const auto inner = structOf({{"x", prim(Type::kInt32)}, {"y", prim(Type::kString, true)}});
  const auto middle = structOf({{"inner", inner}, {"n", prim(Type::kInt64)}}, "", true);
  const auto schema = structOf({{"a", prim(Type::kBoolean)},
                                {"m", middle},
                                {"list",
                                 [] {
                                   auto s = std::make_shared<Schema>();
                                   s->type = Type::kArray;
                                   s->value_schema = prim(Type::kInt32);
                                   return std::shared_ptr<const Schema>(s);
                                 }()}},
                               "Top");
  const auto value =
      obj({{"a", Value::boolean(true)},
           {"m", obj({{"inner", obj({{"x", num(1)}, {"y", str("why")}})}, {"n", num(2)}})},
           {"list", Value::array({num(1), num(2)})}});
  auto chain = chainOf("org.apache.kafka.connect.transforms.Flatten$Value", {{"delimiter", "_"}});
  Records rs;
  const auto out = applied(chain, rs.make({schema, value}));
  const auto& s = *out.value.schema;
  EXPECT_EQ(s.name, "Top");
  EXPECT_EQ(fieldNames(s), (Strings{"a", "m_inner_x", "m_inner_y", "m_n", "list"}));
  EXPECT_EQ(s.fields[0].schema, prim(Type::kBoolean));
  // Under an optional struct every field becomes optional.
  EXPECT_EQ(s.fields[1].schema->type, Type::kInt32);
  EXPECT_TRUE(s.fields[1].schema->optional);
  EXPECT_TRUE(s.fields[3].schema->optional);
  EXPECT_EQ(s.fields[4].schema->type, Type::kArray);
  EXPECT_EQ(out.value.value, obj({{"a", Value::boolean(true)},
                                  {"m_inner_x", num(1)},
                                  {"m_inner_y", str("why")},
                                  {"m_n", num(2)},
                                  {"list", Value::array({num(1), num(2)})}}));
  // A null optional struct gives nulls for its fields.
  const auto nulls = applied(
      chain,
      rs.make({schema,
               obj({{"a", Value::boolean(false)}, {"m", Value()}, {"list", Value::array({})}})}));
  EXPECT_EQ(nulls.value.schema.get(), out.value.schema.get());
  EXPECT_EQ(nulls.value.value, obj({{"a", Value::boolean(false)},
                                    {"m_inner_x", Value()},
                                    {"m_inner_y", Value()},
                                    {"m_n", Value()},
                                    {"list", Value::array({})}}));
}

TEST(FlattenTest, SchemalessMapsAreFlattenedWithTheDefaultDot) {
  auto chain = chainOf("Flatten$Key");
  Records rs;
  const auto out = applied(
      chain, rs.make({nullptr, num(1)}, {nullptr, obj({{"a", obj({{"b", num(1)}, {"c", obj({})}})},
                                                       {"d", Value()},
                                                       {"e", Value::array({num(1)})}})}));
  EXPECT_EQ(out.key.value, obj({{"a.b", num(1)}, {"d", Value()}, {"e", Value::array({num(1)})}}));
  EXPECT_EQ(out.value.value, num(1));
}

TEST(FlattenTest, MapsWithSchemaAndNonStructsAreRefused) {
  auto map = std::make_shared<Schema>();
  map->type = Type::kMap;
  map->key_schema = prim(Type::kString);
  map->value_schema = prim(Type::kString);
  const auto schema = structOf({{"m", map}});
  auto chain = chainOf("Flatten$Value");
  Records rs;
  EXPECT_THROW(chain.apply(rs.make({schema, obj({{"m", obj({})}})})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({prim(Type::kString), str("x")})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({nullptr, str("x")})), ConversionError);
  // A tombstone passes.
  EXPECT_TRUE(applied(chain, rs.make({schema, Value()})).value.value.isNull());
}

// --- Cast ---------------------------------------------------------------------------------------

TEST(CastTest, FieldsAreCastWithTheirOptionalityKept) {
  const auto schema = structOf({{"int8", prim(Type::kInt32)},
                                {"bigint", prim(Type::kInt64, true)},
                                {"f", prim(Type::kFloat64)},
                                {"s", prim(Type::kString)},
                                {"b", prim(Type::kBoolean)},
                                {"keep", prim(Type::kString)}},
                               "Casted");
  auto chain = chainOf("org.apache.kafka.connect.transforms.Cast$Value",
                       {{"spec", "int8:int8, bigint:int16,f:int32,s:float64,b:string"}});
  Records rs;
  const auto value = obj({{"int8", num(300)},
                          {"bigint", num(70000)},
                          {"f", Value::floating(-42.9)},
                          {"s", str("1.5")},
                          {"b", Value::boolean(true)},
                          {"keep", str("k")}});
  const auto out = applied(chain, rs.make({schema, value}));
  const auto& s = *out.value.schema;
  EXPECT_EQ(s.name, "Casted");
  EXPECT_EQ(s.fields[0].schema, prim(Type::kInt8));
  EXPECT_EQ(s.fields[1].schema, prim(Type::kInt16, true));
  EXPECT_EQ(s.fields[2].schema, prim(Type::kInt32));
  EXPECT_EQ(s.fields[3].schema, prim(Type::kFloat64));
  EXPECT_EQ(s.fields[4].schema, prim(Type::kString));
  EXPECT_EQ(s.fields[5].schema, prim(Type::kString));
  // Java's narrowing: 300 as a byte is 44, 70000 as a short is 4464, -42.9 as an int is -42.
  EXPECT_EQ(out.value.value, obj({{"int8", num(44)},
                                  {"bigint", num(4464)},
                                  {"f", num(-42)},
                                  {"s", Value::floating(1.5)},
                                  {"b", str("true")},
                                  {"keep", str("k")}}));
  EXPECT_EQ(applied(chain, rs.make({schema, value})).value.schema.get(), out.value.schema.get());
}

TEST(CastTest, WholeValueAndSchemalessCasts) {
  Records rs;
  auto whole = chainOf("Cast$Value", {{"spec", "int64"}});
  const auto out = applied(whole, rs.make({prim(Type::kString, true), str("-12")}));
  EXPECT_EQ(out.value.schema, prim(Type::kInt64, true));
  EXPECT_EQ(out.value.value, num(-12));
  EXPECT_EQ(applied(whole, rs.make({nullptr, Value::boolean(true)})).value.value, num(1));

  auto to_string = chainOf("Cast$Key", {{"spec", "string"}});
  EXPECT_EQ(applied(to_string, rs.make({}, {prim(Type::kFloat64), Value::floating(42)})).key.value,
            str("42.0"));
  EXPECT_EQ(
      applied(to_string, rs.make({}, {prim(Type::kFloat32), Value::floating(1e10)})).key.value,
      str("1.0E10"));
  EXPECT_EQ(applied(to_string, rs.make({}, {prim(Type::kBytes), Value::bytes("hi")})).key.value,
            str("aGk="));
  const auto ts = logical(Schema::kTimestampName, Type::kInt64);
  EXPECT_EQ(applied(to_string, rs.make({}, {ts, num(1700000000123)})).key.value,
            str("2023-11-14T22:13:20.123Z"));

  auto fields = chainOf("Cast$Value", {{"spec", "a:boolean,b:float32,missing:int8"}});
  EXPECT_EQ(
      applied(fields, rs.make({nullptr, obj({{"a", str("TRUE")}, {"b", num(2)}})})).value.value,
      obj({{"a", Value::boolean(true)}, {"b", Value::floating(2)}, {"missing", Value()}}));
}

TEST(CastTest, DecimalAndLogicalTypesCastToNumbers) {
  Records rs;
  auto dec = std::make_shared<Schema>();
  dec->type = Type::kBytes;
  dec->name = std::string(Schema::kDecimalName);
  dec->parameters["scale"] = "2";
  const auto schema = structOf({{"d", dec}, {"day", logical(Schema::kDateName, Type::kInt32)}});
  auto chain = chainOf("Cast$Value", {{"spec", "d:int32,day:int64"}});
  // 12345 unscaled at scale 2 is 123.45.
  const auto out =
      applied(chain, rs.make({schema, obj({{"d", Value::bytes(std::string("\x30\x39", 2))},
                                           {"day", num(19000)}})}));
  EXPECT_EQ(out.value.value, obj({{"d", num(123)}, {"day", num(19000)}}));
  EXPECT_EQ(out.value.schema->fields[0].schema, prim(Type::kInt32));
}

// Issue 36, item 4: Connect writes BigDecimal.toString(), whose small and negative-scale values
// take the exponent form.
TEST(CastTest, ADecimalCastToStringIsJavasText) {
  Records rs;
  auto decimal = [](int scale) {
    auto dec = std::make_shared<Schema>();
    dec->type = Type::kBytes;
    dec->name = std::string(Schema::kDecimalName);
    dec->parameters["scale"] = std::to_string(scale);
    return dec;
  };
  const auto schema = structOf({{"tiny", decimal(8)}, {"big", decimal(-3)}, {"price", decimal(2)}});
  auto chain = chainOf("Cast$Value", {{"spec", "tiny:string,big:string,price:string"}});
  const auto out =
      applied(chain, rs.make({schema, obj({{"tiny", Value::bytes(std::string("\x01", 1))},
                                           {"big", Value::bytes(std::string("\x7b", 1))},
                                           {"price", Value::bytes(std::string("\x04\xd2", 2))}})}));
  EXPECT_EQ(out.value.value,
            obj({{"tiny", str("1E-8")}, {"big", str("1.23E+5")}, {"price", str("12.34")}}));
}

TEST(CastTest, BadValuesAreConversionErrorsAndBadSpecsConfigErrors) {
  Records rs;
  auto chain = chainOf("Cast$Value", {{"spec", "int8"}});
  EXPECT_THROW(chain.apply(rs.make({prim(Type::kString), str("128")})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({prim(Type::kString), str("12x")})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({prim(Type::kBytes), Value::bytes("x")})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({nullptr, Value::array({})})), ConversionError);

  EXPECT_TRUE(hasOnly(problemsOf("Cast$Value", {{"spec", "a:bytes"}}),
                      "transforms.x.spec: Cast transformation does not support casting to BYTES"));
  EXPECT_TRUE(hasOnly(problemsOf("Cast$Value", {{"spec", "a:int9"}}),
                      "transforms.x.spec: Invalid type found in casting spec: int9"));
  EXPECT_TRUE(hasOnly(problemsOf("Cast$Value", {{"spec", "int8,a:int16"}}),
                      "transforms.x.spec: Cast transformations that specify a type"));
  EXPECT_EQ(problemKeys("Cast$Value", {{"spec", ""}}), (Strings{"transforms.x.spec"}));
  EXPECT_EQ(problemKeys("Cast$Value", {{"spec", "a:b:c"}}), (Strings{"transforms.x.spec"}));
}

// --- HoistField ---------------------------------------------------------------------------------

TEST(HoistFieldTest, WrapsTheValueInAOneFieldStruct) {
  auto chain =
      chainOf("org.apache.kafka.connect.transforms.HoistField$Value", {{"field", "magic"}});
  Records rs;
  const auto out = applied(chain, rs.make({prim(Type::kInt32), num(42)}));
  EXPECT_EQ(out.value.schema->type, Type::kStruct);
  EXPECT_EQ(fieldNames(*out.value.schema), (Strings{"magic"}));
  EXPECT_EQ(out.value.schema->fields[0].schema, prim(Type::kInt32));
  EXPECT_EQ(out.value.value, obj({{"magic", num(42)}}));
  EXPECT_EQ(applied(chain, rs.make({prim(Type::kInt32), num(1)})).value.schema.get(),
            out.value.schema.get());

  auto key = chainOf("HoistField$Key", {{"field", "k"}});
  const auto schemaless = applied(key, rs.make({nullptr, num(1)}, {nullptr, str("id")}));
  EXPECT_EQ(schemaless.key.schema, nullptr);
  EXPECT_EQ(schemaless.key.value, obj({{"k", str("id")}}));
  EXPECT_EQ(problemKeys("HoistField$Key"), (Strings{"transforms.x.field"}));
}

// --- MaskField ----------------------------------------------------------------------------------

TEST(MaskFieldTest, WithSchemaMasksWithTheTypesEmptyValue) {
  auto dec = std::make_shared<Schema>();
  dec->type = Type::kBytes;
  dec->name = std::string(Schema::kDecimalName);
  const auto schema = structOf({{"magic", prim(Type::kInt32)},
                                {"bool", prim(Type::kBoolean)},
                                {"int", prim(Type::kInt32)},
                                {"double", prim(Type::kFloat64)},
                                {"string", prim(Type::kString)},
                                {"date", logical(Schema::kDateName, Type::kInt32)},
                                {"decimal", dec},
                                {"array",
                                 [] {
                                   auto s = std::make_shared<Schema>();
                                   s->type = Type::kArray;
                                   s->value_schema = prim(Type::kInt32);
                                   return std::shared_ptr<const Schema>(s);
                                 }()},
                                {"withDefault", withDefault(Type::kString, str("default"))}});
  const auto value = obj({{"magic", num(42)},
                          {"bool", Value::boolean(true)},
                          {"int", num(42)},
                          {"double", Value::floating(42)},
                          {"string", str("hmm")},
                          {"date", num(19000)},
                          {"decimal", Value::bytes("\x2a")},
                          {"array", Value::array({num(1)})},
                          {"withDefault", Value()}});
  auto chain = chainOf("org.apache.kafka.connect.transforms.MaskField$Value",
                       {{"fields", "bool,int,double,string,date,decimal,array,withDefault"},
                        {"replace.null.with.default", "false"}});
  Records rs;
  const auto out = applied(chain, rs.make({schema, value}));
  EXPECT_EQ(out.value.schema, schema);
  EXPECT_EQ(out.value.value, obj({{"magic", num(42)},
                                  {"bool", Value::boolean(false)},
                                  {"int", num(0)},
                                  {"double", Value::floating(0)},
                                  {"string", str("")},
                                  {"date", num(0)},
                                  {"decimal", Value::bytes(std::string(1, '\0'))},
                                  {"array", Value::array({})},
                                  {"withDefault", Value()}}));
  auto defaults = chainOf("MaskField$Value", {{"fields", "withDefault"}});
  EXPECT_EQ(applied(defaults, rs.make({schema, value})).value.value.asObject().back().second,
            str(""));
}

TEST(MaskFieldTest, ReplacementIsParsedForTheFieldsType) {
  const auto schema = structOf({{"byte", prim(Type::kInt8)},
                                {"float", prim(Type::kFloat32)},
                                {"string", prim(Type::kString)},
                                {"bool", prim(Type::kBoolean)}});
  const auto value = obj({{"byte", num(1)},
                          {"float", Value::floating(1)},
                          {"string", str("s")},
                          {"bool", Value::boolean(true)}});
  Records rs;
  auto chain =
      chainOf("MaskField$Value", {{"fields", "byte,float,string"}, {"replacement", "123"}});
  EXPECT_EQ(applied(chain, rs.make({schema, value})).value.value,
            obj({{"byte", num(123)},
                 {"float", Value::floating(123)},
                 {"string", str("123")},
                 {"bool", Value::boolean(true)}}));
  auto schemaless = chainOf("MaskField$Key", {{"fields", "ip,n"}, {"replacement", "12"}});
  EXPECT_EQ(
      applied(schemaless, rs.make({}, {nullptr, obj({{"ip", str("10.0.0.1")}, {"n", num(5)}})}))
          .key.value,
      obj({{"ip", str("12")}, {"n", num(12)}}));

  auto boolean = chainOf("MaskField$Value", {{"fields", "bool"}, {"replacement", "x"}});
  EXPECT_THROW(boolean.apply(rs.make({schema, value})), ConversionError);
  auto not_a_number = chainOf("MaskField$Value", {{"fields", "byte"}, {"replacement", "foo"}});
  EXPECT_THROW(not_a_number.apply(rs.make({schema, value})), ConversionError);
  EXPECT_TRUE(hasOnly(problemsOf("MaskField$Value", {{"fields", "a"}, {"replacement", ""}}),
                      "transforms.x.replacement: String must be non-empty"));
  EXPECT_EQ(problemKeys("MaskField$Value", {{"fields", ""}}), (Strings{"transforms.x.fields"}));
}

}  // namespace
}  // namespace ksink::testing
