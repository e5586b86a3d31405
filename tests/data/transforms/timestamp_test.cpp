// TimestampRouter and TimestampConverter against Connect's documented behaviour.
#include "transform_test_support.h"

namespace ksink::testing {
namespace {

using Type = Schema::Type;

// 2023-11-14T22:13:20.123Z: day 19675, 80000123 ms into the day.
constexpr int64_t kMillis = 1700000000123;

TEST(TimestampRouterTest, FormatsTheTopicWithTheRecordTimestamp) {
  Records rs;
  auto chain = chainOf("org.apache.kafka.connect.transforms.TimestampRouter");
  EXPECT_EQ(applied(chain, rs.make({nullptr, num(1)})).topic, "orders-20231114");
  auto custom = chainOf("TimestampRouter", {{"topic.format", "${timestamp}_${topic}_${topic}"},
                                            {"timestamp.format", "yyyy-MM-dd'T'HH'h'"}});
  EXPECT_EQ(applied(custom, rs.make({nullptr, num(1)})).topic, "2023-11-14T22h_orders_orders");
  auto r = rs.make({nullptr, num(1)});
  r.timestamp.reset();
  EXPECT_THROW(chain.apply(std::move(r)), ConversionError);
  EXPECT_TRUE(hasOnly(problemsOf("TimestampRouter", {{"timestamp.format", "EEE yyyy"}}),
                      "transforms.x.timestamp.format: date format 'EEE yyyy' uses 'E'"));
  EXPECT_EQ(problemKeys("TimestampRouter", {{"timestamp.format", "yyyy'MM"}}),
            (Strings{"transforms.x.timestamp.format"}));
}

TEST(TimestampConverterTest, WholeValueBetweenEveryType) {
  Records rs;
  const auto ts = logical(Schema::kTimestampName, Type::kInt64);
  const auto convert = [&](const std::map<std::string, std::string>& keys, SchemaAndValue in) {
    auto chain = chainOf("org.apache.kafka.connect.transforms.TimestampConverter$Value", keys);
    return applied(chain, rs.make(std::move(in))).value;
  };
  auto s = convert({{"target.type", "string"}, {"format", "yyyy-MM-dd HH:mm:ss.SSS"}},
                   {ts, num(kMillis)});
  EXPECT_EQ(s.schema, prim(Type::kString));
  EXPECT_EQ(s.value, str("2023-11-14 22:13:20.123"));
  auto date = convert({{"target.type", "Date"}}, {ts, num(kMillis)});
  EXPECT_EQ(date.schema->name, Schema::kDateName);
  EXPECT_EQ(date.schema->type, Type::kInt32);
  EXPECT_EQ(date.value, num(19675));
  auto time = convert({{"target.type", "Time"}}, {ts, num(kMillis)});
  EXPECT_EQ(time.schema->name, Schema::kTimeName);
  EXPECT_EQ(time.value, num(80000123));
  auto unix = convert({{"target.type", "unix"}, {"unix.precision", "seconds"}},
                      {logical(Schema::kDateName, Type::kInt32), num(19675)});
  EXPECT_EQ(unix.schema, prim(Type::kInt64));
  EXPECT_EQ(unix.value, num(19675LL * 86400));
  auto parsed = convert({{"target.type", "Timestamp"}, {"format", "yyyyMMddHHmmss"}},
                        {prim(Type::kString, true), str("20231114221320")});
  EXPECT_EQ(parsed.schema->name, Schema::kTimestampName);
  EXPECT_TRUE(parsed.schema->optional);
  EXPECT_EQ(parsed.value, num(1700000000000));
  auto micros = convert({{"target.type", "Timestamp"}, {"unix.precision", "microseconds"}},
                        {prim(Type::kInt64), num(kMillis * 1000 + 999)});
  EXPECT_EQ(micros.value, num(kMillis));
  // Schemaless: a number is unix, text is parsed with format.
  EXPECT_EQ(
      convert({{"target.type", "string"}, {"format", "'day' dd/MM/yyyy"}}, {nullptr, num(kMillis)})
          .value,
      str("day 14/11/2023"));
  EXPECT_EQ(
      convert({{"target.type", "unix"}, {"format", "yyyy-MM-dd"}}, {nullptr, str("2023-11-14")})
          .value,
      num(19675LL * 86400000));
}

TEST(TimestampConverterTest, FieldOfAStructWithTheSameSchemaObjectEachTime) {
  const auto schema =
      structOf({{"id", prim(Type::kInt32)}, {"ts", prim(Type::kInt64, true)}}, "Event");
  auto chain = chainOf("TimestampConverter$Value", {{"field", "ts"}, {"target.type", "Timestamp"}});
  Records rs;
  const auto out = applied(chain, rs.make({schema, obj({{"id", num(1)}, {"ts", num(kMillis)}})}));
  EXPECT_EQ(out.value.schema->name, "Event");
  EXPECT_EQ(out.value.schema->fields[0].schema, prim(Type::kInt32));
  EXPECT_EQ(out.value.schema->fields[1].schema->name, Schema::kTimestampName);
  EXPECT_TRUE(out.value.schema->fields[1].schema->optional);
  EXPECT_EQ(out.value.value, obj({{"id", num(1)}, {"ts", num(kMillis)}}));
  const auto nulls = applied(chain, rs.make({schema, obj({{"id", num(2)}, {"ts", Value()}})}));
  EXPECT_EQ(nulls.value.schema.get(), out.value.schema.get());
  EXPECT_TRUE(nulls.value.value.asObject()[1].second.isNull());

  auto key = chainOf("TimestampConverter$Key",
                     {{"field", "at"}, {"target.type", "string"}, {"format", "HH:mm"}});
  EXPECT_EQ(applied(key, rs.make({}, {nullptr, obj({{"at", num(kMillis)}})})).key.value,
            obj({{"at", str("22:13")}}));
}

TEST(TimestampConverterTest, BadInputsAndConfigurationsAreRefused) {
  Records rs;
  auto chain =
      chainOf("TimestampConverter$Value", {{"target.type", "Timestamp"}, {"format", "yyyy-MM-dd"}});
  EXPECT_THROW(chain.apply(rs.make({prim(Type::kString), str("14/11/2023")})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({prim(Type::kBoolean), Value::boolean(true)})), ConversionError);
  EXPECT_THROW(chain.apply(rs.make({nullptr, Value::floating(1.5)})), ConversionError);

  EXPECT_EQ(problemKeys("TimestampConverter$Value", {{"target.type", "string"}}),
            (Strings{"transforms.x.format"}));
  EXPECT_EQ(problemKeys("TimestampConverter$Value", {{"target.type", "date"}}),
            (Strings{"transforms.x.target.type"}));
  EXPECT_TRUE(
      hasOnly(problemsOf("TimestampConverter$Value",
                         {{"target.type", "string"}, {"format", "yyyy-MM-dd'T'HH:mm:ssXXX"}}),
              "transforms.x.format: date format"));
  EXPECT_EQ(problemKeys("TimestampConverter$Value",
                        {{"target.type", "unix"}, {"unix.precision", "minutes"}}),
            (Strings{"transforms.x.unix.precision"}));
}

}  // namespace
}  // namespace ksink::testing
