// InsertHeader, DropHeaders and HeaderFrom against Connect's documented behaviour.
#include "transform_test_support.h"

namespace ksink::testing {
namespace {

using Type = Schema::Type;

std::vector<std::string> headerKeys(const ConnectRecord& r) {
  std::vector<std::string> out;
  for (const auto& h : r.headers) out.push_back(h.key);
  return out;
}

TEST(InsertHeaderTest, AddsTheLiteralTypedAsConnectTypesIt) {
  Records rs;
  const auto header = [&](const std::string& literal) {
    auto chain = chainOf("org.apache.kafka.connect.transforms.InsertHeader",
                         {{"header", "h"}, {"value.literal", literal}});
    auto r = rs.make({nullptr, num(1)});
    r.headers.push_back({"h", {prim(Type::kString, true), str("first")}});
    auto out = applied(chain, std::move(r));
    EXPECT_EQ(headerKeys(out), (Strings{"h", "h"}));
    return out.headers.back().value;
  };
  auto text = header("a value");
  EXPECT_EQ(text.schema, prim(Type::kString));
  EXPECT_EQ(text.value, str("a value"));
  EXPECT_EQ(header("true").value, Value::boolean(true));
  EXPECT_EQ(header("true").schema, prim(Type::kBoolean));
  EXPECT_EQ(header("42").schema, prim(Type::kInt8));
  EXPECT_EQ(header("300").schema, prim(Type::kInt16));
  EXPECT_EQ(header("-70000").value, num(-70000));
  EXPECT_EQ(header("-70000").schema, prim(Type::kInt32));
  EXPECT_EQ(header("1.0").schema, prim(Type::kInt8));  // a whole number, as BigDecimal sees it
  EXPECT_EQ(header("1.5").schema, prim(Type::kFloat32));
  EXPECT_EQ(header("1.5").value, Value::floating(1.5));
  const auto date = header("2023-11-14");
  EXPECT_EQ(date.schema->name, Schema::kDateName);
  EXPECT_EQ(date.value, num(19675));
  EXPECT_EQ(header("2023-11-14T22:13:20.123Z").value, num(1700000000123));
  EXPECT_EQ(header("null").schema, nullptr);
  EXPECT_TRUE(header("null").value.isNull());
  EXPECT_EQ(header("").value, str(""));
}

TEST(InsertHeaderTest, RefusesLiteralsItCannotTypeAsConnectAndMissingKeys) {
  EXPECT_EQ(problemKeys("InsertHeader", {{"header", "h"}, {"value.literal", "[1,2]"}}),
            (Strings{"transforms.x.value.literal"}));
  EXPECT_EQ(problemKeys("InsertHeader", {{"header", "h"}, {"value.literal", "12,5"}}),
            (Strings{"transforms.x.value.literal"}));
  EXPECT_EQ(problemKeys("InsertHeader", {{"header", "h"}}),
            (Strings{"transforms.x.value.literal"}));
}

TEST(DropHeadersTest, RemovesEveryHeaderOfTheNames) {
  auto chain = chainOf("DropHeaders", {{"headers", "a, c"}});
  Records rs;
  auto r = rs.make({nullptr, num(1)});
  for (const char* k : {"a", "b", "a", "c", "d"})
    r.headers.push_back({k, {prim(Type::kString, true), str(k)}});
  const auto out = applied(chain, std::move(r));
  EXPECT_EQ(headerKeys(out), (Strings{"b", "d"}));
  EXPECT_EQ(out.value.value, num(1));
  EXPECT_EQ(problemKeys("DropHeaders", {{"headers", ""}}), (Strings{"transforms.x.headers"}));
}

const auto kSchema = structOf({{"id", prim(Type::kInt64)},
                               {"trace", withDefault(Type::kString, str("none"))},
                               {"name", prim(Type::kString)}},
                              "Row");

TEST(HeaderFromTest, MoveWithSchemaTakesTheFieldsOutIntoHeaders) {
  auto chain =
      chainOf("org.apache.kafka.connect.transforms.HeaderFrom$Value",
              {{"fields", "id,trace"}, {"headers", "h_id,h_trace"}, {"operation", "move"}});
  Records rs;
  const auto value = obj({{"id", num(7)}, {"trace", Value()}, {"name", str("n")}});
  const auto out = applied(chain, rs.make({kSchema, value}));
  EXPECT_EQ(fieldNames(*out.value.schema), (Strings{"name"}));
  EXPECT_EQ(out.value.schema->name, "Row");
  EXPECT_EQ(out.value.value, obj({{"name", str("n")}}));
  EXPECT_EQ(headerKeys(out), (Strings{"h_id", "h_trace"}));
  EXPECT_EQ(out.headers[0].value.schema, prim(Type::kInt64));
  EXPECT_EQ(out.headers[0].value.value, num(7));
  EXPECT_EQ(out.headers[1].value.schema, kSchema->fields[1].schema);
  EXPECT_EQ(out.headers[1].value.value, str("none"));  // the field's default
  EXPECT_EQ(applied(chain, rs.make({kSchema, value})).value.schema.get(), out.value.schema.get());
}

TEST(HeaderFromTest, CopyKeepsTheValueAndSchemalessHeadersHaveNoSchema) {
  Records rs;
  auto copy =
      chainOf("HeaderFrom$Key", {{"fields", "id,id"}, {"headers", "a,b"}, {"operation", "copy"}});
  const auto key = obj({{"id", num(1)}, {"other", str("o")}});
  const auto out = applied(copy, rs.make({nullptr, str("v")}, {nullptr, key}));
  EXPECT_EQ(out.key.value, key);
  EXPECT_EQ(headerKeys(out), (Strings{"a", "b"}));
  EXPECT_EQ(out.headers[1].value.schema, nullptr);
  EXPECT_EQ(out.headers[1].value.value, num(1));

  auto move = chainOf("HeaderFrom$Value",
                      {{"fields", "id,missing"}, {"headers", "a,b"}, {"operation", "move"}});
  const auto moved = applied(move, rs.make({nullptr, key}));
  EXPECT_EQ(moved.value.value, obj({{"other", str("o")}}));
  EXPECT_TRUE(moved.headers[1].value.value.isNull());
}

TEST(HeaderFromTest, MissingFieldWithSchemaAndBadConfigAreRefused) {
  Records rs;
  auto chain =
      chainOf("HeaderFrom$Value", {{"fields", "nope"}, {"headers", "h"}, {"operation", "copy"}});
  EXPECT_THROW(chain.apply(rs.make(
                   {kSchema, obj({{"id", num(1)}, {"trace", str("t")}, {"name", str("n")}})})),
               ConversionError);
  EXPECT_THROW(chain.apply(rs.make({nullptr, Value()})), ConversionError);
  EXPECT_TRUE(hasOnly(
      problemsOf("HeaderFrom$Value", {{"fields", "a,b"}, {"headers", "h"}, {"operation", "copy"}}),
      "transforms.x.headers: 'fields' config must have the same number"));
  EXPECT_EQ(
      problemKeys("HeaderFrom$Value", {{"fields", "a"}, {"headers", "h"}, {"operation", "cut"}}),
      (Strings{"transforms.x.operation"}));
}

}  // namespace
}  // namespace ksink::testing
