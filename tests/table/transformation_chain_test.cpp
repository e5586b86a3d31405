// TransformationChain: Connect's transforms= / predicates= syntax, order, predicates and negate,
// every configuration problem named by its key; and RecordMapper running the chain.
#include "ksink/transformation_chain.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ksink/conversion_error.h"
#include "ksink/record_mapper.h"

namespace ksink {
namespace {

// Appends its `suffix` to the topic: the order of the steps shows in the result.
class AppendToTopic final : public Transformation {
 public:
  const ConfigDef& configDef() const override {
    static const ConfigDef def = [] {
      ConfigDef d;
      d.define("suffix", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh,
               "appended to the topic", ConfigDef::nonEmpty());
      d.define("drop", ConfigDef::Type::kBoolean, "false", ConfigDef::Importance::kLow,
               "drop the record instead");
      return d;
    }();
    return def;
  }
  void configure(const Config& config) override {
    suffix_ = config.getString("suffix");
    drop_ = config.getBoolean("drop");
    if (suffix_ == "bad")
      throw ConfigException(std::vector<ConfigProblem>{{"suffix", "'bad' is refused"}});
  }
  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    if (drop_) return std::nullopt;
    record.topic += suffix_;
    return record;
  }

 private:
  std::string suffix_;
  bool drop_ = false;
};

class TopicIs final : public Predicate {
 public:
  const ConfigDef& configDef() const override {
    static const ConfigDef def = [] {
      ConfigDef d;
      d.define("topic", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh,
               "the topic");
      return d;
    }();
    return def;
  }
  void configure(const Config& config) override { topic_ = config.getString("topic"); }
  bool test(const ConnectRecord& record) const override { return record.topic == topic_; }

 private:
  std::string topic_;
};

TransformationRegistry testRegistry() {
  TransformationRegistry r;
  r.addTransformation({"com.example.AppendToTopic", "Append"},
                      [] { return std::make_unique<AppendToTopic>(); });
  r.addPredicate({"com.example.TopicIs"}, [] { return std::make_unique<TopicIs>(); });
  return r;
}

ConnectRecord recordOn(std::string topic) {
  ConnectRecord r;
  r.topic = std::move(topic);
  r.value.value = Value::object({{"id", Value::integer(1)}});
  return r;
}

std::vector<ConfigProblem> problemsOf(const std::map<std::string, std::string>& values) {
  return TransformationChain::problems(values, testRegistry());
}

bool hasProblem(const std::vector<ConfigProblem>& problems, const std::string& key,
                const std::string& reason_part) {
  return std::any_of(problems.begin(), problems.end(), [&](const ConfigProblem& p) {
    return p.key == key && p.reason.find(reason_part) != std::string::npos;
  });
}

std::string describe(const std::vector<ConfigProblem>& problems) {
  std::string out;
  for (const auto& p : problems) out += p.key + ": " + p.reason + "\n";
  return out;
}

TEST(TransformationChainTest, StepsRunInTheListedOrderByClassNameOrAlias) {
  TransformationChain chain(Config({{"transforms", "b, a"},
                                    {"transforms.a.type", "com.example.AppendToTopic"},
                                    {"transforms.a.suffix", "-A"},
                                    {"transforms.b.type", "Append"},
                                    {"transforms.b.suffix", "-B"}}),
                            testRegistry());
  EXPECT_EQ(chain.size(), 2u);
  const auto out = chain.apply(recordOn("t"));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->topic, "t-B-A");
}

TEST(TransformationChainTest, APredicateLimitsAStepAndNegateInvertsIt) {
  const std::map<std::string, std::string> base{{"transforms", "only"},
                                                {"transforms.only.type", "Append"},
                                                {"transforms.only.suffix", "-x"},
                                                {"transforms.only.predicate", "isOrders"},
                                                {"predicates", "isOrders"},
                                                {"predicates.isOrders.type", "com.example.TopicIs"},
                                                {"predicates.isOrders.topic", "orders"}};
  TransformationChain chain(Config(base), testRegistry());
  EXPECT_EQ(chain.apply(recordOn("orders"))->topic, "orders-x");
  EXPECT_EQ(chain.apply(recordOn("users"))->topic, "users");

  auto negated = base;
  negated["transforms.only.negate"] = "true";
  TransformationChain inverse(Config(negated), testRegistry());
  EXPECT_EQ(inverse.apply(recordOn("orders"))->topic, "orders");
  EXPECT_EQ(inverse.apply(recordOn("users"))->topic, "users-x");
}

TEST(TransformationChainTest, ADroppedRecordStopsTheChain) {
  TransformationChain chain(Config({{"transforms", "drop,after"},
                                    {"transforms.drop.type", "Append"},
                                    {"transforms.drop.suffix", "-d"},
                                    {"transforms.drop.drop", "true"},
                                    {"transforms.after.type", "Append"},
                                    {"transforms.after.suffix", "-a"}}),
                            testRegistry());
  EXPECT_FALSE(chain.apply(recordOn("t")));
}

TEST(TransformationChainTest, AnEmptyChainPassesRecordsThrough) {
  TransformationChain chain(Config(std::map<std::string, std::string>{{"transforms", " "}}),
                            testRegistry());
  EXPECT_TRUE(chain.empty());
  EXPECT_EQ(chain.apply(recordOn("t"))->topic, "t");
}

TEST(TransformationChainTest, EveryProblemIsNamedByItsFullKey) {
  const auto problems = problemsOf({{"transforms", "a,b,c,d,e"},
                                    {"transforms.a.type", "com.example.Missing"},
                                    {"transforms.b.type", "Append"},
                                    {"transforms.b.suffix", "-b"},
                                    {"transforms.b.sufix", "-typo"},
                                    {"transforms.c.suffix", "-c"},
                                    {"transforms.d.type", "Append"},
                                    {"transforms.d.suffix", "bad"},
                                    {"transforms.e.type", "Append"},
                                    {"transforms.e.suffix", "-e"},
                                    {"transforms.e.predicate", "nope"},
                                    {"transforms.zz.type", "Append"},
                                    {"predicates", "unused"},
                                    {"predicates.unused.type", "com.example.TopicIs"},
                                    {"predicates.unused.topic", "x"}});
  const auto text = describe(problems);
  EXPECT_TRUE(hasProblem(problems, "transforms.a.type", "unknown transform 'com.example.Missing'"))
      << text;
  EXPECT_TRUE(hasProblem(problems, "transforms.a.type", "Append")) << "lists the known: " << text;
  EXPECT_TRUE(hasProblem(problems, "transforms.b.sufix", "not a key of this transform")) << text;
  EXPECT_TRUE(hasProblem(problems, "transforms.c.type", "is required")) << text;
  EXPECT_TRUE(hasProblem(problems, "transforms.d.suffix", "'bad' is refused")) << text;
  EXPECT_TRUE(hasProblem(problems, "transforms.e.predicate", "not listed in predicates")) << text;
  EXPECT_TRUE(hasProblem(problems, "transforms.zz.type", "would be ignored")) << text;
  EXPECT_TRUE(hasProblem(problems, "predicates.unused", "no transform names")) << text;
  EXPECT_EQ(problems.size(), 7u) << text;
}

TEST(TransformationChainTest, MissingRequiredKeysAndBadValuesOfATransformAreRefused) {
  const auto problems = problemsOf({{"transforms", "a,b"},
                                    {"transforms.a.type", "Append"},
                                    {"transforms.b.type", "Append"},
                                    {"transforms.b.suffix", "-b"},
                                    {"transforms.b.drop", "maybe"},
                                    {"transforms.b.negate", "true"}});
  const auto text = describe(problems);
  EXPECT_TRUE(hasProblem(problems, "transforms.a.suffix", "")) << text;
  EXPECT_TRUE(hasProblem(problems, "transforms.b.drop", "")) << text;
  EXPECT_TRUE(hasProblem(problems, "transforms.b.negate", "needs a predicate")) << text;
}

TEST(TransformationChainTest, TheConstructorThrowsWhatProblemsReports) {
  try {
    TransformationChain chain(Config({{"transforms", "a"}, {"transforms.a.type", "Nope"}}),
                              testRegistry());
    FAIL() << "an unknown type was accepted";
  } catch (const ConfigException& e) {
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_EQ(e.problems()[0].key, "transforms.a.type");
  }
}

TEST(TransformationChainTest, TheGlobalRegistryServesDebeziumsUnwrap) {
  const auto names = TransformationRegistry::global().transformationNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "io.debezium.transforms.ExtractNewRecordState"),
            names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "ExtractNewRecordState"), names.end());
}

// The record mapper runs the chain between conversion and mapping. A table sink's configuration
// checks transforms= against the global registry, the one the sinks build their chains from, so
// the test transform is registered there as a plugin would.
class MapperWithChain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static const bool registered = [] {
      TransformationRegistry::global().addTransformation(
          {"com.example.AppendToTopic", "Append"},
          [] { return std::make_unique<AppendToTopic>(); });
      return true;
    }();
    (void)registered;
  }
  static RecordMapper mapper(std::map<std::string, std::string> values) {
    values.emplace("name", "c");
    values.emplace("value.converter", "json");
    values.emplace("value.converter.schemas.enable", "false");
    values.emplace("key.converter", "json");
    values.emplace("key.converter.schemas.enable", "false");
    const Config config(values);
    return RecordMapper(TableSinkConfig::parse(config), Converter::create(config, true),
                        Converter::create(config, false), TransformationChain(config, registry_));
  }
  static inline TransformationRegistry registry_ = testRegistry();
};

TEST_F(MapperWithChain, ARouterPicksTheTableAndTheKafkaColumnsButTheRowKeepsTheOriginal) {
  auto m = mapper({{"pk.mode", "kafka"},
                   {"table.name.format", "t_${topic}"},
                   {"transforms", "route"},
                   {"transforms.route.type", "Append"},
                   {"transforms.route.suffix", "_v2"}});
  const SinkRecord r("orders", 3, 41, 1000, std::nullopt, R"({"id":7})");
  const auto row = m.map(r);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->layout->table, "t_orders_v2");
  EXPECT_EQ(row->values[0], Value::string("orders_v2"));  // __connect_topic, as Connect's sink
  EXPECT_EQ(row->values[2], Value::integer(41));
  EXPECT_EQ(row->record, &r);  // what the offsets come from
  EXPECT_EQ(row->record->topic(), "orders");
}

TEST_F(MapperWithChain, ADroppedRecordGivesNoRowAndNoFailure) {
  auto m = mapper({{"transforms", "f"},
                   {"transforms.f.type", "Append"},
                   {"transforms.f.suffix", "x"},
                   {"transforms.f.drop", "true"}});
  const std::vector<SinkRecord> records{{"orders", 0, 1, 1, std::nullopt, R"({"id":1})"},
                                        {"orders", 0, 2, 1, std::nullopt, R"({"id":2})"}};
  const auto batch = m.map(records);
  EXPECT_TRUE(batch.rows.empty());
  EXPECT_TRUE(batch.failures.empty());
}

TEST_F(MapperWithChain, WithAChainTheKeyIsConvertedSoABadKeyIsABadRecord) {
  auto m =
      mapper({{"transforms", "a"}, {"transforms.a.type", "Append"}, {"transforms.a.suffix", "x"}});
  const std::vector<SinkRecord> records{{"orders", 0, 1, 1, "{not json", R"({"id":1})"},
                                        {"orders", 0, 2, 1, std::nullopt, R"({"id":2})"}};
  const auto batch = m.map(records);
  ASSERT_EQ(batch.failures.size(), 1u);
  EXPECT_EQ(batch.failures[0].record, &records[0]);
  ASSERT_EQ(batch.rows.size(), 1u);
  EXPECT_EQ(batch.rows[0].record, &records[1]);
}

}  // namespace
}  // namespace ksink
