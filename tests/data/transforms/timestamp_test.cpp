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

// Issue 36, item 6: the zone letters both ways, each expectation (and refusal) printed by
// SimpleDateFormat in UTC (TimestampConverter's) on a JVM.
TEST(TimestampConverterTest, ZoneLettersFormatAsUtcAndParseEveryOffsetForm) {
  Records rs;
  const auto ts = logical(Schema::kTimestampName, Type::kInt64);
  auto convert = [&](const std::string& format, SchemaAndValue in, const char* target) {
    auto chain = chainOf("TimestampConverter$Value", {{"target.type", target}, {"format", format}});
    return applied(chain, rs.make(std::move(in))).value.value;
  };
  const std::vector<std::pair<std::string, std::string>> formatted{
      {"yyyy-MM-dd HH:mm:ss.SSSXXX", "2023-11-14 22:13:20.123Z"},
      {"yyyy-MM-dd'T'HH:mm:ssZ", "2023-11-14T22:13:20+0000"},
      {"HH:mm X", "22:13 Z"},
      {"HH:mm XX", "22:13 Z"},
      {"HH:mm z", "22:13 UTC"},
      {"HH:mm zzzz", "22:13 Coordinated Universal Time"}};
  for (const auto& [format, text] : formatted)
    EXPECT_EQ(convert(format, {ts, num(kMillis)}, "string"), str(text)) << format;
  const std::vector<std::tuple<std::string, std::string, int64_t>> parsed{
      {"yyyy-MM-dd HH:mm:ss.SSSXXX", "2024-03-05 10:20:30.123+02:00", 1709626830123},
      {"yyyy-MM-dd HH:mm:ss.SSSXXX", "2024-12-31 23:59:59.999Z", 1735689599999},
      {"yyyy-MM-dd'T'HH:mm:ssZ", "2024-03-05T10:20:30+0100", 1709630430000},
      {"yyyy-MM-dd'T'HH:mm:ssZ", "2024-12-31T23:59:59-0800", 1735718399000},
      {"yyyyMMddHHmmX", "202403051020Z", 1709634000000},
      {"yyyyMMddHHmmX", "202412312359-03", 1735700340000},
      {"yyyy-MM-dd HH:mm z", "2024-03-05 10:20 GMT+01:00", 1709630400000},
      {"yyyy-MM-dd HH:mm z", "2024-03-05 10:20 UTC", 1709634000000},
      {"yyyy-MM-dd HH:mm Z", "2024-03-05 10:20 GMT-05:30", 1709653800000},
      {"yyyy-MM-dd HH:mmXX", "2024-03-05 10:20+0530", 1709614200000}};
  for (const auto& [format, text, millis] : parsed)
    EXPECT_EQ(convert(format, {prim(Type::kString), str(text)}, "Timestamp"), num(millis))
        << format << " " << text;
  for (const auto& [format, text] : std::vector<std::pair<std::string, std::string>>{
           {"HH:mmXXX", "10:20+0100"},  // XXX needs the colon
           {"HH:mmXX", "10:20+01"},     // XX the minutes
           {"HH:mmZ", "10:20Z"},        // Z neither ISO's Z
           {"HH:mmZ", "10:20+01:00"},   // nor a colon without GMT
           {"HH:mmz", "10:20GMT+0100"},
           {"HH:mmZ", "10:20+2500"},  // no such offset
           {"HH:mmXXX", "10:20+01:60"}})
    EXPECT_THROW(convert(format, {prim(Type::kString), str(text)}, "Timestamp"), ConversionError)
        << format << " " << text;
  EXPECT_EQ(convert("HH:mm z", {prim(Type::kString), str("10:20 GMT-5:30")}, "Timestamp"),
            num(10 * 3600000 + 20 * 60000 + 330 * 60000));
  EXPECT_EQ(convert("HH:mm z", {prim(Type::kString), str("10:20 gmt+01:00")}, "Timestamp"),
            num(33600000));
  EXPECT_EQ(convert("HH:mm z", {prim(Type::kString), str("10:20 utc")}, "Timestamp"),
            num(37200000));
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
                         {{"target.type", "string"}, {"format", "yyyy-MM-dd'T'HH:mm:ssXXXX"}}),
              "transforms.x.format: date format"));
  EXPECT_TRUE(hasOnly(
      problemsOf("TimestampConverter$Value", {{"target.type", "string"}, {"format", "EEE yyyy"}}),
      "transforms.x.format: date format"));
  EXPECT_EQ(problemKeys("TimestampConverter$Value",
                        {{"target.type", "unix"}, {"unix.precision", "minutes"}}),
            (Strings{"transforms.x.unix.precision"}));
}

}  // namespace
}  // namespace ksink::testing
