#include "ksink/config.h"

#include <gtest/gtest.h>

#include "ksink/detail/config_parse.h"

namespace ksink {
namespace {

using Type = ConfigDef::Type;

ConfigDef sampleDef() {
  ConfigDef def;
  def.define("name", Type::kString, std::nullopt, ConfigDef::Importance::kHigh, "name",
             ConfigDef::nonEmpty())
      .define("interval.ms", Type::kLong, "1000", ConfigDef::Importance::kLow, "",
              ConfigDef::atLeast(0))
      .define("mode", Type::kString, "insert", ConfigDef::Importance::kLow, "",
              ConfigDef::oneOf({"insert", "upsert"}))
      .define("enabled", Type::kBoolean, "false", ConfigDef::Importance::kLow, "");
  return def;
}

TEST(Config, ParsesJavaPropertiesSyntax) {
  auto values = Config::parseProperties(
      "# comment\n! also a comment\n"
      "a=1\n b : two \nc three\nlong=first \\\n    second\nesc=tab\\there\nempty=\n");
  EXPECT_EQ(values.at("a"), "1");
  EXPECT_EQ(values.at("b"), "two");  // trailing blanks are dropped (Java keeps them)
  EXPECT_EQ(values.at("c"), "three");
  EXPECT_EQ(values.at("long"), "first second");
  EXPECT_EQ(values.at("esc"), "tab\there");
  EXPECT_EQ(values.at("empty"), "");
  EXPECT_EQ(values.size(), 6u);
}

TEST(Config, AByteOrderMarkIsNotPartOfTheFirstKey) {
  const auto values = Config::parseProperties("\xEF\xBB\xBFname=x\nmode=upsert\n");
  EXPECT_EQ(values, (std::map<std::string, std::string>{{"name", "x"}, {"mode", "upsert"}}));
}

TEST(Config, OneOfAnyCaseAcceptsTheAllowedValuesInAnyCase) {
  const auto check = ConfigDef::oneOfAnyCase({"insert", "upsert"});
  EXPECT_EQ(check("UPSERT"), std::nullopt);
  EXPECT_EQ(check(" Insert "), std::nullopt);
  EXPECT_NE(check("upserts"), std::nullopt);
}

// What the unknown-key check stands on: a key is known when defined or under a claimed prefix.
TEST(Config, ClaimedPrefixesMakeTheirKeysKnownAndIncludeCarriesThem) {
  ConfigDef def = sampleDef();
  def.claimPrefix("consumer.");
  ConfigDef combined;
  combined.include(def);
  for (const auto* d : {&def, &combined}) {
    EXPECT_TRUE(d->claims("mode"));
    EXPECT_TRUE(d->claims("consumer.session.timeout.ms"));
    EXPECT_FALSE(d->claims("consumer"));
    EXPECT_FALSE(d->claims("mdoe"));
  }
}

TEST(Config, AsciiCaseIsFoldedForLettersOnly) {
  EXPECT_EQ(detail::asciiLower("UPSERT Mode_1"), "upsert mode_1");
  EXPECT_EQ(detail::asciiLower("ÉCOLE"), "École") << "bytes beyond ASCII stay as they are";
  EXPECT_TRUE(detail::equalsIgnoreCase("Record_Key", "record_KEY"));
  EXPECT_FALSE(detail::equalsIgnoreCase("record_key", "record_keys"));
  EXPECT_FALSE(detail::equalsIgnoreCase("a", "b"));
  EXPECT_TRUE(detail::equalsIgnoreCase("", ""));
  EXPECT_EQ(detail::parseBoolean(" TRUE "), true);
  EXPECT_EQ(detail::parseBoolean("False"), false);
  EXPECT_EQ(detail::parseBoolean("yes"), std::nullopt);
}

TEST(Config, ACheckIncludedTwiceReportsItsProblemOnce) {
  ConfigDef chain;
  chain.check([](const std::map<std::string, std::string>& values) {
    return values.contains("bad") ? std::vector<ConfigProblem>{{"bad", "is bad"}}
                                  : std::vector<ConfigProblem>{};
  });
  ConfigDef both;
  both.include(chain).include(chain);
  const auto problems = both.validate({{"bad", "1"}});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "bad");
  EXPECT_EQ(problems[0].reason, "is bad");
}

TEST(Config, TypedGettersFallBackToDeclaredDefaults) {
  Config config({{"name", "x"}}, sampleDef());
  EXPECT_EQ(config.getLong("interval.ms"), 1000);
  EXPECT_EQ(config.getString("mode"), "insert");
  EXPECT_FALSE(config.getBoolean("enabled"));
}

TEST(Config, RejectsEveryProblemAtOnceNamingTheKeys) {
  try {
    Config config({{"interval.ms", "-5"}, {"mode", "merge"}, {"enabled", "yes"}}, sampleDef());
    FAIL() << "expected ConfigException";
  } catch (const ConfigException& e) {
    std::set<std::string> keys;
    for (const auto& p : e.problems()) keys.insert(p.key);
    EXPECT_EQ(keys, (std::set<std::string>{"name", "interval.ms", "mode", "enabled"}));
    EXPECT_NE(std::string(e.what()).find("interval.ms: must be at least 0"), std::string::npos);
  }
}

TEST(Config, RejectsNonNumericLong) {
  EXPECT_THROW(Config({{"name", "x"}, {"interval.ms", "soon"}}, sampleDef()), ConfigException);
}

TEST(Config, ListsAreTrimmedDeduplicatedAndSkipEmpties) {
  Config config(std::map<std::string, std::string>{{"topics", " a, b ,,a , c"}});
  EXPECT_EQ(config.getList("topics"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Config, WithPrefixStripsThePrefix) {
  Config config({{"consumer.override.a", "1"}, {"consumer.b", "2"}, {"other", "3"}});
  EXPECT_EQ(config.withPrefix("consumer."),
            (std::map<std::string, std::string>{{"override.a", "1"}, {"b", "2"}}));
}

TEST(Config, DisplayValueMasksSecrets) {
  Config config({{"connection.password", "hunter2"},
                 {"sasl.jaas.config", "x required password=\"p\";"},
                 {"connection.url", "postgresql://bob:hunter2@db:5432/app"},
                 {"topics", "a"}});
  EXPECT_EQ(config.displayValue("connection.password"), "[hidden]");
  EXPECT_EQ(config.displayValue("sasl.jaas.config"), "[hidden]");
  EXPECT_EQ(config.displayValue("connection.url"), "postgresql://bob:[hidden]@db:5432/app");
  EXPECT_EQ(config.displayValue("topics"), "a");
}

TEST(Config, RedactPasswordsHidesPasswordsInEveryUrlSyntax) {
  EXPECT_EQ(Config::redactPasswords("postgresql://app:s3cret@h:5432/db"),
            "postgresql://app:[hidden]@h:5432/db");
  EXPECT_EQ(Config::redactPasswords("jdbc:postgresql://app:s3cret@h/db"),
            "jdbc:postgresql://app:[hidden]@h/db");
  EXPECT_EQ(Config::redactPasswords("jdbc:postgresql://h/db?user=a&password=s3cret&ssl=true"),
            "jdbc:postgresql://h/db?user=a&password=[hidden]&ssl=true");
  EXPECT_EQ(Config::redactPasswords("jdbc:postgresql://h/db?sslkey=k&sslpassword=s3cret"),
            "jdbc:postgresql://h/db?sslkey=k&sslpassword=[hidden]");
  EXPECT_EQ(Config::redactPasswords("host=h password=s3cret dbname=d"),
            "host=h password=[hidden] dbname=d");
  EXPECT_EQ(Config::redactPasswords("host=h password='a b' dbname=d"),
            "host=h password=[hidden] dbname=d");
  EXPECT_EQ(Config::redactPasswords("host=h sslpassword=s3cret"), "host=h sslpassword=[hidden]");
  EXPECT_EQ(Config::redactPasswords("postgresql://app@h/db"), "postgresql://app@h/db");
}

TEST(Config, DisplayValueMasksAPasswordInAUrlQuery) {
  Config config(std::map<std::string, std::string>{
      {"connection.url", "jdbc:postgresql://h/db?user=a&password=hunter2"}});
  EXPECT_EQ(config.displayValue("connection.url"),
            "jdbc:postgresql://h/db?user=a&password=[hidden]");
}

TEST(Config, MissingFileIsAConfigException) {
  EXPECT_THROW(Config::readProperties("/nonexistent/ksink.properties"), ConfigException);
}

}  // namespace
}  // namespace ksink

namespace ksink {
namespace {

TEST(ConfigDefTest, SupportedOnlyRefusesEveryOtherItemWithTheReason) {
  const auto check = ConfigDef::supportedOnly({"TABLE", "VIEW"}, "only tables and views");
  EXPECT_EQ(check("table, View"), std::nullopt);
  EXPECT_EQ(check("TABLE,SYNONYM"), "'SYNONYM' is not supported: only tables and views");
  EXPECT_EQ(ConfigDef::supportedOnly({}, "never")("x"), "'x' is not supported: never");
  EXPECT_EQ(ConfigDef::supportedOnly({}, "never")(""), std::nullopt);
}

TEST(ConfigDefTest, SupportedOnlyKeysDefaultToTheirFirstValueAndRefuseTheOthers) {
  const ConfigDef::SupportedOnlyKey keys[] = {
      {"table.types", ConfigDef::Type::kList, {"TABLE", "VIEW"}, "only tables and views"},
      {"by.name", ConfigDef::Type::kList, {}, "not implemented"},
  };
  ConfigDef def;
  def.defineSupportedOnly(keys, "Someone's");
  const auto* types = def.find("table.types");
  ASSERT_NE(types, nullptr);
  EXPECT_EQ(types->default_value, "TABLE");
  EXPECT_EQ(types->importance, ConfigDef::Importance::kLow);
  EXPECT_EQ(types->doc, "Someone's key: only tables and views");
  EXPECT_EQ(def.find("by.name")->default_value, "");
  EXPECT_TRUE(def.validate({{"table.types", "view"}, {"by.name", ""}}).empty());
  const auto problems = def.validate({{"table.types", "TABLE,SYNONYM"}, {"by.name", "a"}});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].key, "by.name");
  EXPECT_EQ(problems[0].reason, "'a' is not supported: not implemented");
  EXPECT_EQ(problems[1].reason, "'SYNONYM' is not supported: only tables and views");
}

TEST(ConfigDefTest, IgnoredKeysAreKnownAndNamedWhenSet) {
  ConfigDef def;
  def.define("real", ConfigDef::Type::kString, "", ConfigDef::Importance::kLow, "")
      .defineIgnored("tuning.knob", "Someone's tuning", "ksink paces itself");
  EXPECT_TRUE(def.claims("tuning.knob"));
  EXPECT_TRUE(def.validate({{"tuning.knob", "3"}}).empty());
  EXPECT_TRUE(def.ignoredIn({{"real", "1"}}).empty());
  EXPECT_EQ(
      def.ignoredIn({{"real", "1"}, {"tuning.knob", "3"}}),
      (std::vector<std::string>{"tuning.knob: no meaning in ksink, ignored (ksink paces itself)"}));
  ConfigDef outer;
  outer.include(def);
  EXPECT_EQ(outer.ignoredIn({{"tuning.knob", ""}}).size(), 1u);
}

}  // namespace
}  // namespace ksink
