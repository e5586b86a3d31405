// InsertField, ReplaceField, ValueToKey, ExtractField against Connect's documented behaviour.
#include "transform_test_support.h"

namespace ksink::testing {
namespace {

using Type = Schema::Type;

const auto kOrder =
    structOf({{"id", prim(Type::kInt64)}, {"name", prim(Type::kString, true)}}, "Order");
Value order(int64_t id, std::string name) {
  return obj({{"id", num(id)}, {"name", str(name)}});
}

// --- InsertField --------------------------------------------------------------------------------

TEST(InsertFieldTest, WithSchemaAppendsMetadataFieldsWithTheirOptionality) {
  auto chain = chainOf("org.apache.kafka.connect.transforms.InsertField$Value",
                       {{"topic.field", "topic_field!"},
                        {"partition.field", "partition_field"},
                        {"offset.field", "offset_field!"},
                        {"timestamp.field", "timestamp_field?"},
                        {"static.field", "instance_id"},
                        {"static.value", "my-instance-id"}});
  Records rs;
  const auto out = applied(chain, rs.make({kOrder, order(7, "a")}));
  ASSERT_TRUE(out.value.schema);
  const auto& s = *out.value.schema;
  EXPECT_EQ(s.name, "Order");
  EXPECT_EQ(fieldNames(s), (Strings{"id", "name", "topic_field", "partition_field", "offset_field",
                                    "timestamp_field", "instance_id"}));
  EXPECT_EQ(s.fields[2].schema->type, Type::kString);
  EXPECT_FALSE(s.fields[2].schema->optional);
  EXPECT_EQ(s.fields[3].schema->type, Type::kInt32);
  EXPECT_TRUE(s.fields[3].schema->optional);
  EXPECT_EQ(s.fields[4].schema->type, Type::kInt64);
  EXPECT_FALSE(s.fields[4].schema->optional);
  EXPECT_EQ(s.fields[5].schema->type, Type::kInt64);
  EXPECT_EQ(s.fields[5].schema->name, Schema::kTimestampName);
  EXPECT_TRUE(s.fields[5].schema->optional);
  EXPECT_TRUE(s.fields[6].schema->optional);
  EXPECT_EQ(out.value.value, obj({{"id", num(7)},
                                  {"name", str("a")},
                                  {"topic_field", str("orders")},
                                  {"partition_field", num(3)},
                                  {"offset_field", num(42)},
                                  {"timestamp_field", num(1700000000123)},
                                  {"instance_id", str("my-instance-id")}}));
  // The key is left alone.
  EXPECT_TRUE(out.key.value.isNull());

  const auto again = applied(chain, rs.make({kOrder, order(8, "b")}));
  EXPECT_EQ(again.value.schema.get(), out.value.schema.get());
}

TEST(InsertFieldTest, SchemalessPutsTheFieldsIntoTheMap) {
  auto chain = chainOf("InsertField$Value", {{"topic.field", "t"},
                                             {"offset.field", "o"},
                                             {"timestamp.field", "ts"},
                                             {"static.field", "s"},
                                             {"static.value", "v"}});
  Records rs;
  const auto out = applied(chain, rs.make({nullptr, obj({{"a", num(1)}, {"t", str("old")}})}));
  EXPECT_EQ(out.value.schema, nullptr);
  EXPECT_EQ(out.value.value, obj({{"a", num(1)},
                                  {"t", str("orders")},
                                  {"o", num(42)},
                                  {"ts", num(1700000000123)},
                                  {"s", str("v")}}));
}

TEST(InsertFieldTest, KeyVariantChangesTheKeyAndPassesNullThrough) {
  auto chain = chainOf("InsertField$Key", {{"partition.field", "p"}});
  Records rs;
  const auto out = applied(chain, rs.make({nullptr, num(1)}, {kOrder, order(1, "x")}));
  EXPECT_EQ(fieldNames(*out.key.schema), (Strings{"id", "name", "p"}));
  EXPECT_EQ(out.key.value.asObject().back().second, num(3));
  EXPECT_EQ(out.value.value, num(1));

  const auto tombstone_key = applied(chain, rs.make({nullptr, num(1)}, {kOrder, Value()}));
  EXPECT_TRUE(tombstone_key.key.value.isNull());
  EXPECT_EQ(tombstone_key.key.schema, kOrder);
}

TEST(InsertFieldTest, NullWithDefaultTakesTheDefaultUnlessSwitchedOff) {
  const auto schema = structOf({{"c", withDefault(Type::kString, str("dflt"))}});
  Records rs;
  auto replacing = chainOf("InsertField$Value", {{"topic.field", "t"}});
  EXPECT_EQ(applied(replacing, rs.make({schema, obj({{"c", Value()}})})).value.value,
            obj({{"c", str("dflt")}, {"t", str("orders")}}));
  auto keeping =
      chainOf("InsertField$Value", {{"topic.field", "t"}, {"replace.null.with.default", "false"}});
  EXPECT_EQ(applied(keeping, rs.make({schema, obj({{"c", Value()}})})).value.value,
            obj({{"c", Value()}, {"t", str("orders")}}));
}

TEST(InsertFieldTest, RefusesNonStructsAndBadConfigurations) {
  Records rs;
  auto chain = chainOf("InsertField$Value", {{"topic.field", "t"}});
  EXPECT_THROW(chain.apply(rs.make({prim(Type::kString), str("x")})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({nullptr, str("x")})), ConversionError);
  auto clash = chainOf("InsertField$Value", {{"topic.field", "id"}});
  EXPECT_THROW(clash.apply(rs.make({kOrder, order(1, "a")})), ConversionError);

  EXPECT_EQ(problemKeys("InsertField$Value"), (Strings{"transforms.x.topic.field"}));
  EXPECT_EQ(problemKeys("InsertField$Value", {{"static.field", "s"}}),
            (Strings{"transforms.x.static.value"}));
  EXPECT_EQ(problemKeys("InsertField$Value", {{"topic.field", "t"}, {"topic", "y"}}),
            (Strings{"transforms.x.topic"}));
}

// --- ReplaceField -------------------------------------------------------------------------------

const auto kWide = structOf({{"dont", prim(Type::kString)},
                             {"abc", prim(Type::kInt32)},
                             {"foo", prim(Type::kBoolean)},
                             {"etc", prim(Type::kString)}},
                            "Wide");
Value wide() {
  return obj({{"dont", str("whatever")},
              {"abc", num(42)},
              {"foo", Value::boolean(true)},
              {"etc", str("etc")}});
}

TEST(ReplaceFieldTest, WithSchemaIncludesExcludesAndRenames) {
  auto chain =
      chainOf("org.apache.kafka.connect.transforms.ReplaceField$Value",
              {{"include", "abc,foo,etc"}, {"exclude", "etc"}, {"renames", "abc:xyz,foo:bar"}});
  Records rs;
  const auto out = applied(chain, rs.make({kWide, wide()}));
  EXPECT_EQ(out.value.schema->name, "Wide");
  EXPECT_EQ(fieldNames(*out.value.schema), (Strings{"xyz", "bar"}));
  EXPECT_EQ(out.value.schema->fields[0].schema, prim(Type::kInt32));
  EXPECT_EQ(out.value.value, obj({{"xyz", num(42)}, {"bar", Value::boolean(true)}}));
  EXPECT_EQ(applied(chain, rs.make({kWide, wide()})).value.schema.get(), out.value.schema.get());
}

TEST(ReplaceFieldTest, SchemalessFiltersAndRenamesTheMap) {
  auto chain = chainOf("ReplaceField$Value", {{"exclude", "dont"}, {"renames", "abc:xyz"}});
  Records rs;
  const auto out = applied(chain, rs.make({nullptr, wide()}));
  EXPECT_EQ(out.value.value,
            obj({{"xyz", num(42)}, {"foo", Value::boolean(true)}, {"etc", str("etc")}}));
}

TEST(ReplaceFieldTest, DeprecatedWhitelistAndBlacklistStillWork) {
  auto chain = chainOf("ReplaceField$Value", {{"whitelist", "abc,foo"}, {"blacklist", "foo"}});
  Records rs;
  EXPECT_EQ(fieldNames(*applied(chain, rs.make({kWide, wide()})).value.schema), (Strings{"abc"}));
  EXPECT_EQ(problemKeys("ReplaceField$Value", {{"include", "abc"}, {"whitelist", "foo"}}),
            (Strings{"transforms.x.whitelist"}));
  EXPECT_TRUE(
      problemKeys("ReplaceField$Value", {{"include", "abc"}, {"whitelist", "abc"}}).empty());
}

TEST(ReplaceFieldTest, KeyVariantAndErrors) {
  auto chain = chainOf("ReplaceField$Key", {{"renames", "id:order_id"}});
  Records rs;
  const auto out = applied(chain, rs.make({nullptr, str("v")}, {kOrder, order(5, "n")}));
  EXPECT_EQ(fieldNames(*out.key.schema), (Strings{"order_id", "name"}));
  EXPECT_EQ(out.value.value, str("v"));

  auto clash = chainOf("ReplaceField$Value", {{"renames", "id:name"}});
  EXPECT_THROW(clash.apply(rs.make({kOrder, order(1, "a")})), ConversionError);
  EXPECT_TRUE(hasOnly(problemsOf("ReplaceField$Value", {{"renames", "abc:xyz,foo"}}),
                      "transforms.x.renames: Invalid rename mapping: foo"));
  EXPECT_EQ(problemKeys("ReplaceField$Value", {{"renames", "a:b:c"}}),
            (Strings{"transforms.x.renames"}));
}

// --- ValueToKey ---------------------------------------------------------------------------------

TEST(ValueToKeyTest, WithSchemaTheKeyBecomesAStructOfTheValueFields) {
  const auto schema =
      structOf({{"a", prim(Type::kInt32)}, {"b", prim(Type::kInt32)}, {"c", prim(Type::kInt32)}});
  auto chain = chainOf("org.apache.kafka.connect.transforms.ValueToKey", {{"fields", "a,b"}});
  Records rs;
  const auto value = obj({{"a", num(1)}, {"b", num(2)}, {"c", num(3)}});
  const auto out = applied(chain, rs.make({schema, value}, {prim(Type::kString), str("k")}));
  ASSERT_TRUE(out.key.schema);
  EXPECT_EQ(out.key.schema->type, Type::kStruct);
  EXPECT_EQ(fieldNames(*out.key.schema), (Strings{"a", "b"}));
  EXPECT_EQ(out.key.schema->fields[0].schema, prim(Type::kInt32));
  EXPECT_EQ(out.key.value, obj({{"a", num(1)}, {"b", num(2)}}));
  EXPECT_EQ(out.value.value, value);
  EXPECT_EQ(out.value.schema, schema);
  EXPECT_EQ(applied(chain, rs.make({schema, value})).key.schema.get(), out.key.schema.get());
}

TEST(ValueToKeyTest, SchemalessTheKeyBecomesAMap) {
  auto chain = chainOf("ValueToKey", {{"fields", "a,b"}});
  Records rs;
  const auto out = applied(chain, rs.make({nullptr, obj({{"a", num(1)}, {"c", num(3)}})}));
  EXPECT_EQ(out.key.schema, nullptr);
  EXPECT_EQ(out.key.value, obj({{"a", num(1)}, {"b", Value()}}));
}

TEST(ValueToKeyTest, MissingFieldTombstoneAndEmptyListAreRefused) {
  Records rs;
  auto chain = chainOf("ValueToKey", {{"fields", "id,nope"}});
  try {
    chain.apply(rs.make({kOrder, order(1, "a")}));
    FAIL() << "expected ConversionError";
  } catch (const ConversionError& e) {
    EXPECT_TRUE(contains(e.what(), "Field does not exist: nope"));
  }
  auto ok = chainOf("ValueToKey", {{"fields", "id"}});
  EXPECT_THROW(ok.apply(rs.make({nullptr, Value()})), ConversionError);
  EXPECT_EQ(problemKeys("ValueToKey", {{"fields", ""}}), (Strings{"transforms.x.fields"}));
  EXPECT_EQ(problemKeys("ValueToKey"), (Strings{"transforms.x.fields"}));
}

// --- ExtractField -------------------------------------------------------------------------------

TEST(ExtractFieldTest, WithSchemaTheFieldAndItsSchemaReplaceTheValue) {
  auto chain = chainOf("org.apache.kafka.connect.transforms.ExtractField$Value", {{"field", "id"}});
  Records rs;
  const auto out = applied(chain, rs.make({kOrder, order(9, "a")}));
  EXPECT_EQ(out.value.schema, kOrder->fields[0].schema);
  EXPECT_EQ(out.value.value, num(9));
  // A null struct gives a null of the field's schema.
  const auto null_value = applied(chain, rs.make({kOrder, Value()}));
  EXPECT_EQ(null_value.value.schema, kOrder->fields[0].schema);
  EXPECT_TRUE(null_value.value.value.isNull());
}

TEST(ExtractFieldTest, SchemalessAndKey) {
  auto chain = chainOf("ExtractField$Key", {{"field", "magic"}});
  Records rs;
  const auto out =
      applied(chain, rs.make({nullptr, str("v")}, {nullptr, obj({{"magic", num(42)}})}));
  EXPECT_EQ(out.key.value, num(42));
  EXPECT_EQ(out.key.schema, nullptr);
  EXPECT_TRUE(applied(chain, rs.make({}, {nullptr, obj({})})).key.value.isNull());
  EXPECT_TRUE(applied(chain, rs.make({}, {nullptr, Value()})).key.value.isNull());
}

TEST(ExtractFieldTest, V2ReachesNestedFields) {
  const auto inner = structOf({{"baz", prim(Type::kString)}});
  const auto schema =
      structOf({{"foo.bar", inner}, {"foo", structOf({{"bar", prim(Type::kInt32)}})}});
  const auto value =
      obj({{"foo.bar", obj({{"baz", str("deep")}})}, {"foo", obj({{"bar", num(1)}})}});
  Records rs;
  auto quoted =
      chainOf("ExtractField$Value", {{"field", "`foo.bar`.baz"}, {"field.syntax.version", "V2"}});
  const auto out = applied(quoted, rs.make({schema, value}));
  EXPECT_EQ(out.value.schema, prim(Type::kString));
  EXPECT_EQ(out.value.value, str("deep"));
  auto dotted =
      chainOf("ExtractField$Value", {{"field", "foo.bar"}, {"field.syntax.version", "v2"}});
  EXPECT_EQ(applied(dotted, rs.make({schema, value})).value.value, num(1));
  EXPECT_EQ(applied(dotted, rs.make({nullptr, value})).value.value, num(1));
  // V1 takes the whole text as one top-level name.
  auto v1 = chainOf("ExtractField$Value", {{"field", "foo.bar"}});
  EXPECT_EQ(applied(v1, rs.make({schema, value})).value.value, obj({{"baz", str("deep")}}));
}

TEST(ExtractFieldTest, UnknownFieldAndBadSyntaxAreRefused) {
  Records rs;
  auto chain = chainOf("ExtractField$Value", {{"field", "nope"}});
  EXPECT_THROW(chain.apply(rs.make({kOrder, order(1, "a")})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({nullptr, num(1)})), ConversionError);
  EXPECT_EQ(problemKeys("ExtractField$Value", {{"field", "a"}, {"field.syntax.version", "V3"}}),
            (Strings{"transforms.x.field.syntax.version"}));
  EXPECT_TRUE(
      hasOnly(problemsOf("ExtractField$Value", {{"field", "`a.b"}, {"field.syntax.version", "V2"}}),
              "transforms.x.field: Incomplete backtick pair"));
  EXPECT_EQ(problemKeys("ExtractField$Value"), (Strings{"transforms.x.field"}));
}

}  // namespace
}  // namespace ksink::testing
