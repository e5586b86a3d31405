// Source offsets in Kafka Connect's bytes: the key ["<connector>",{partition}] and the value
// {offset}, as Connect's OffsetStorageWriter writes them (JsonConverter, schemas off, Jackson's
// compact output, the maps' entries in their order), and read back as Connect reads them.
#include <gtest/gtest.h>

#include "ksink/converter.h"
#include "source_task_adapter.h"

namespace ksink {
namespace {

class SourceOffsetFormatTest : public ::testing::Test {
 protected:
  std::unique_ptr<Converter> json = SourceTaskAdapter::offsetConverter();

  std::string key(std::string_view connector, const std::optional<SourceMap>& partition) {
    return SourceTaskAdapter::offsetKey(connector, partition);
  }
  std::optional<std::string> value(const std::optional<SourceMap>& offset) {
    return SourceTaskAdapter::offsetValue(offset);
  }
};

// Entries seen in Connect's offsets topics (reference: connect-source-semantics.md §6).
TEST_F(SourceOffsetFormatTest, TheJdbcSourcesEntriesAreConnectsBytes) {
  EXPECT_EQ(key("jdbc_source_mysql_08", SourceMap{{"protocol", Value::string("1")},
                                                  {"table", Value::string("demo.accounts")}}),
            R"(["jdbc_source_mysql_08",{"protocol":"1","table":"demo.accounts"}])");
  EXPECT_EQ(value(SourceMap{{"timestamp_nanos", Value::integer(0)},
                            {"timestamp", Value::integer(1547030056000)}}),
            R"({"timestamp_nanos":0,"timestamp":1547030056000})");
  EXPECT_EQ(value(SourceMap{{"timestamp_nanos", Value::integer(729000000)},
                            {"incrementing", Value::integer(3)},
                            {"timestamp", Value::integer(1790818723729)}}),
            R"({"timestamp_nanos":729000000,"incrementing":3,"timestamp":1790818723729})");
}

TEST_F(SourceOffsetFormatTest, TheFileSourcesEntriesAreConnectsBytes) {
  EXPECT_EQ(key("local-file-source", SourceMap{{"filename", Value::string("/tmp/test.txt")}}),
            R"(["local-file-source",{"filename":"/tmp/test.txt"}])");
  EXPECT_EQ(value(SourceMap{{"position", Value::integer(42)}}), R"({"position":42})");
}

TEST_F(SourceOffsetFormatTest, EntriesKeepTheOrderTheTaskGaveThem) {
  EXPECT_EQ(key("c", SourceMap{{"table", Value::string("t")}, {"protocol", Value::string("1")}}),
            R"(["c",{"table":"t","protocol":"1"}])");
}

TEST_F(SourceOffsetFormatTest, ANullPartitionIsANullInTheKeyAndANullOffsetHasNoBytes) {
  EXPECT_EQ(key("c", std::nullopt), R"(["c",null])");
  EXPECT_EQ(value(std::nullopt), std::nullopt);
}

TEST_F(SourceOffsetFormatTest, NumbersStringsAndBytesAreWrittenAsJacksonWritesThem) {
  EXPECT_EQ(value(SourceMap{{"d", Value::floating(1.0)},
                            {"e", Value::floating(1e10)},
                            {"f", Value::floating(0.001)},
                            {"neg", Value::integer(-9223372036854775807LL - 1)},
                            {"b", Value::boolean(true)},
                            {"n", Value()}}),
            R"({"d":1.0,"e":1.0E10,"f":0.001,"neg":-9223372036854775808,"b":true,"n":null})");
  EXPECT_EQ(value(SourceMap{{"s", Value::string("é\n\"\\\x01/")}}),
            "{\"s\":\"é\\n\\\"\\\\\\u0001/\"}");
  EXPECT_EQ(value(SourceMap{{"raw", Value::bytes(std::string("\x00\xff\x10", 3))}}),
            R"({"raw":"AP8Q"})");
}

TEST_F(SourceOffsetFormatTest, ReadBackWholeNumbersAreIntegersAndTheOthersDoubles) {
  const auto read = json->toConnectData("", R"({"position":42,"ratio":0.5,"big":1.0E10})").value;
  ASSERT_EQ(read.kind(), Value::Kind::kObject);
  const auto& entries = read.asObject();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].first, "position");
  EXPECT_EQ(entries[0].second.kind(), Value::Kind::kInt);
  EXPECT_EQ(entries[0].second.asInt(), 42);
  EXPECT_EQ(entries[1].second.kind(), Value::Kind::kDouble);
  EXPECT_EQ(entries[2].second.kind(), Value::Kind::kDouble);
  EXPECT_EQ(entries[2].second.asDouble(), 1e10);
}

TEST_F(SourceOffsetFormatTest, WhatIsWrittenReadsBackToTheSameEntries) {
  const SourceMap offset{
      {"file", Value::string("a")}, {"line", Value::integer(7)}, {"x", Value::floating(2.5)}};
  const auto bytes = value(offset);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(json->toConnectData("", *bytes).value, Value::object(offset));
}

}  // namespace
}  // namespace ksink
