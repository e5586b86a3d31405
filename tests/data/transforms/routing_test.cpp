// RegexRouter, Filter and the predicates (TopicNameMatches, HasHeaderKey, RecordIsTombstone)
// against Connect's documented behaviour.
#include "transform_test_support.h"

namespace ksink::testing {
namespace {

using Type = Schema::Type;

ConnectRecord onTopic(const Records& rs, std::string topic) {
  auto r = rs.make({prim(Type::kString), str("v")});
  r.topic = std::move(topic);
  return r;
}

std::string routed(TransformationChain& chain, const Records& rs, std::string topic) {
  return applied(chain, onTopic(rs, std::move(topic))).topic;
}

TEST(RegexRouterTest, RewritesTopicsThatMatchWhollyWithGroupReferences) {
  auto chain = chainOf("org.apache.kafka.connect.transforms.RegexRouter",
                       {{"regex", "(.*)-(\\d\\d)"}, {"replacement", "$1_$2_x"}});
  Records rs;
  EXPECT_EQ(routed(chain, rs, "orders-42"), "orders_42_x");
  // matches() wants the whole topic: a partial match leaves the topic alone.
  EXPECT_EQ(routed(chain, rs, "orders-421"), "orders-421");
  EXPECT_EQ(routed(chain, rs, "orders"), "orders");
  // The value is left as it was.
  const auto out = applied(chain, onTopic(rs, "a-01"));
  EXPECT_EQ(out.value.value, str("v"));
  EXPECT_EQ(out.original->topic(), "orders");
}

TEST(RegexRouterTest, JavaReplacementSyntax) {
  Records rs;
  auto literal = chainOf("RegexRouter", {{"regex", "(.*)"}, {"replacement", "\\$1-$1"}});
  EXPECT_EQ(routed(literal, rs, "t"), "$1-t");
  auto all = chainOf("RegexRouter", {{"regex", ".*"}, {"replacement", "fixed"}});
  EXPECT_EQ(routed(all, rs, "anything"), "fixed");
  // Connect's documented example: strip a prefix.
  auto prefix = chainOf("RegexRouter", {{"regex", "prefix\\.(.*)"}, {"replacement", "$1"}});
  EXPECT_EQ(routed(prefix, rs, "prefix.orders"), "orders");
  // `$12` with one group is group 1 followed by '2', as Java reads it.
  auto digits = chainOf("RegexRouter", {{"regex", "(a)"}, {"replacement", "$12"}});
  EXPECT_EQ(routed(digits, rs, "a"), "a2");
}

TEST(RegexRouterTest, BadRegexOrReplacementIsAConfigErrorNamingTheKey) {
  EXPECT_EQ(problemKeys("RegexRouter", {{"regex", "(unclosed"}, {"replacement", "x"}}),
            (Strings{"transforms.x.regex"}));
  EXPECT_TRUE(hasOnly(problemsOf("RegexRouter", {{"regex", "(?<name>a)"}, {"replacement", "x"}}),
                      "transforms.x.regex: Invalid regex: ksink does not support"));
  EXPECT_TRUE(
      hasOnly(problemsOf("RegexRouter", {{"regex", "a++"}, {"replacement", "x"}}), "possessive"));
  EXPECT_TRUE(hasOnly(problemsOf("RegexRouter", {{"regex", "(a)"}, {"replacement", "$2"}}),
                      "transforms.x.replacement: No group 2"));
  EXPECT_EQ(problemKeys("RegexRouter", {{"regex", "a"}, {"replacement", "${name}"}}),
            (Strings{"transforms.x.replacement"}));
  EXPECT_EQ(problemKeys("RegexRouter", {{"regex", "a"}}), (Strings{"transforms.x.replacement"}));
}

TEST(FilterTest, DropsEveryRecordOrOnlyThoseItsPredicateSelects) {
  Records rs;
  auto all = chainOf("org.apache.kafka.connect.transforms.Filter");
  EXPECT_FALSE(all.apply(onTopic(rs, "a")));

  auto some = TransformationChain(Config({{"transforms", "drop"},
                                          {"transforms.drop.type", "Filter"},
                                          {"transforms.drop.predicate", "isFoo"},
                                          {"predicates", "isFoo"},
                                          {"predicates.isFoo.type", "TopicNameMatches"},
                                          {"predicates.isFoo.pattern", "foo.*"}}));
  EXPECT_FALSE(some.apply(onTopic(rs, "foo-1")));
  EXPECT_TRUE(some.apply(onTopic(rs, "bar")));

  auto negated = TransformationChain(Config({{"transforms", "keep"},
                                             {"transforms.keep.type", "Filter"},
                                             {"transforms.keep.predicate", "isFoo"},
                                             {"transforms.keep.negate", "true"},
                                             {"predicates", "isFoo"},
                                             {"predicates.isFoo.type", "TopicNameMatches"},
                                             {"predicates.isFoo.pattern", "foo.*"}}));
  EXPECT_TRUE(negated.apply(onTopic(rs, "foo-1")));
  EXPECT_FALSE(negated.apply(onTopic(rs, "bar")));

  EXPECT_EQ(problemKeys("Filter", {{"condition", "x"}}), (Strings{"transforms.x.condition"}));
}

// A chain that drops the records `predicate` (type and keys) holds for.
TransformationChain dropWhere(const std::string& type,
                              const std::map<std::string, std::string>& keys = {}) {
  std::map<std::string, std::string> values{{"transforms", "f"},
                                            {"transforms.f.type", "Filter"},
                                            {"transforms.f.predicate", "p"},
                                            {"predicates", "p"},
                                            {"predicates.p.type", type}};
  for (const auto& [k, v] : keys) values.emplace("predicates.p." + k, v);
  return TransformationChain(Config(values));
}

std::vector<std::string> predicateProblems(const std::string& type,
                                           const std::map<std::string, std::string>& keys) {
  std::map<std::string, std::string> values{{"transforms", "f"},
                                            {"transforms.f.type", "Filter"},
                                            {"transforms.f.predicate", "p"},
                                            {"predicates", "p"},
                                            {"predicates.p.type", type}};
  for (const auto& [k, v] : keys) values.emplace("predicates.p." + k, v);
  std::vector<std::string> out;
  for (const auto& p : TransformationChain::problems(values))
    out.push_back(p.key + ": " + p.reason);
  return out;
}

TEST(PredicatesTest, TopicNameMatchesTheWholeTopic) {
  Records rs;
  auto chain = dropWhere("org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
                         {{"pattern", "my-prefix-.*"}});
  EXPECT_FALSE(chain.apply(onTopic(rs, "my-prefix-orders")));
  EXPECT_TRUE(chain.apply(onTopic(rs, "x-my-prefix-orders")));
  EXPECT_TRUE(chain.apply(onTopic(rs, "my-prefix")));
  EXPECT_TRUE(hasOnly(predicateProblems("TopicNameMatches", {{"pattern", "["}}),
                      "predicates.p.pattern: Invalid regex"));
  EXPECT_TRUE(hasOnly(predicateProblems("TopicNameMatches", {{"pattern", ""}}),
                      "predicates.p.pattern: String must be non-empty"));
  EXPECT_TRUE(
      hasOnly(predicateProblems("TopicNameMatches", {}), "predicates.p.pattern: is required"));
}

TEST(PredicatesTest, HasHeaderKeyLooksForAnyHeaderOfTheName) {
  Records rs;
  auto chain = dropWhere("HasHeaderKey", {{"name", "trace"}});
  auto with = onTopic(rs, "t");
  with.headers.push_back({"trace", {prim(Type::kString, true), Value()}});
  EXPECT_FALSE(chain.apply(with));
  auto without = onTopic(rs, "t");
  without.headers.push_back({"other", {prim(Type::kString, true), str("x")}});
  EXPECT_TRUE(chain.apply(without));
  EXPECT_TRUE(hasOnly(predicateProblems("HasHeaderKey", {{"name", ""}}), "predicates.p.name"));
}

TEST(PredicatesTest, RecordIsTombstoneHoldsForANullValue) {
  Records rs;
  auto chain = dropWhere("RecordIsTombstone");
  EXPECT_FALSE(chain.apply(rs.make({prim(Type::kString, true), Value()})));
  EXPECT_FALSE(chain.apply(rs.make({nullptr, Value()})));
  EXPECT_TRUE(chain.apply(rs.make({nullptr, str("")})));
  EXPECT_TRUE(hasOnly(predicateProblems("RecordIsTombstone", {{"x", "1"}}), "predicates.p.x"));
}

}  // namespace
}  // namespace ksink::testing

namespace ksink::testing {
namespace {

TEST(BuiltinRegistryTest, EveryConnectTransformAndPredicateIsRegisteredByClassAndAlias) {
  const auto& registry = TransformationRegistry::global();
  for (const std::string name : {"InsertField$Key",
                                 "InsertField$Value",
                                 "ReplaceField$Key",
                                 "ReplaceField$Value",
                                 "ValueToKey",
                                 "ExtractField$Key",
                                 "ExtractField$Value",
                                 "HoistField$Key",
                                 "HoistField$Value",
                                 "Cast$Key",
                                 "Cast$Value",
                                 "MaskField$Key",
                                 "MaskField$Value",
                                 "Flatten$Key",
                                 "Flatten$Value",
                                 "TimestampConverter$Key",
                                 "TimestampConverter$Value",
                                 "HeaderFrom$Key",
                                 "HeaderFrom$Value",
                                 "RegexRouter",
                                 "TimestampRouter",
                                 "Filter",
                                 "InsertHeader",
                                 "DropHeaders"}) {
    EXPECT_TRUE(registry.createTransformation(name)) << name;
    EXPECT_TRUE(registry.createTransformation("org.apache.kafka.connect.transforms." + name))
        << name;
  }
  for (const std::string name : {"TopicNameMatches", "HasHeaderKey", "RecordIsTombstone"}) {
    EXPECT_TRUE(registry.createPredicate(name)) << name;
    EXPECT_TRUE(registry.createPredicate("org.apache.kafka.connect.transforms.predicates." + name))
        << name;
  }
  EXPECT_FALSE(registry.createTransformation("InsertField"));
}

}  // namespace
}  // namespace ksink::testing
