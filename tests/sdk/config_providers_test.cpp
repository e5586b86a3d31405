// Kafka Connect's configuration providers: ${provider:[path:]key} resolved from the environment,
// a properties file or a directory's files; what cannot be resolved refused, naming the key.
#include "config_providers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ksink/config_exception.h"

namespace ksink {
namespace {

namespace fs = std::filesystem;
using Values = std::map<std::string, std::string>;

class ConfigProvidersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ksink-providers-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "secrets");
    std::ofstream(dir_ / "db.properties") << "user=app\npassword=s3cret\n";
    std::ofstream(dir_ / "secrets" / "pgpass") << "from-a-file";
    ::setenv("KSINK_TEST_TABLE", "orders_copy", 1);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static Values worker(Values extra = {}) {
    Values w{{"config.providers", "env,file,dir"},
             {"config.providers.env.class",
              "org.apache.kafka.common.config.provider.EnvVarConfigProvider"},
             {"config.providers.file.class",
              "org.apache.kafka.common.config.provider.FileConfigProvider"},
             {"config.providers.dir.class",
              "org.apache.kafka.common.config.provider.DirectoryConfigProvider"}};
    for (auto& [k, v] : extra) w[k] = v;
    return w;
  }

  // The problems resolve() reports for `values`, as "key: reason" lines.
  static std::vector<std::string> problems(const ConfigProviders& providers, Values values) {
    try {
      providers.resolve(std::move(values));
    } catch (const ConfigException& e) {
      std::vector<std::string> out;
      for (const auto& p : e.problems()) out.push_back(p.key + ": " + p.reason);
      return out;
    }
    return {};
  }

  fs::path dir_;
};

TEST_F(ConfigProvidersTest, ReferencesResolveFromTheEnvironmentAFileAndADirectory) {
  const auto providers = ConfigProviders::fromWorker(worker());
  const auto out = providers.resolve(
      {{"table.name.format", "${env:KSINK_TEST_TABLE}"},
       {"connection.user", "${file:" + (dir_ / "db.properties").string() + ":user}"},
       {"connection.password", "${dir:" + (dir_ / "secrets").string() + ":pgpass}"},
       {"mixed", "a-${env:KSINK_TEST_TABLE}-${env:KSINK_TEST_TABLE}-z"},
       {"untouched", "${topic}_v2"}});
  EXPECT_EQ(out.at("table.name.format"), "orders_copy");
  EXPECT_EQ(out.at("connection.user"), "app");
  EXPECT_EQ(out.at("connection.password"), "from-a-file");
  EXPECT_EQ(out.at("mixed"), "a-orders_copy-orders_copy-z");
  EXPECT_EQ(out.at("untouched"), "${topic}_v2");
}

// Connect leaves what it cannot resolve in place (the text would become a table name, a
// password); ksink refuses it, naming the key, and never quotes the value.
TEST_F(ConfigProvidersTest, WhatCannotBeResolvedIsRefusedNamingTheKey) {
  const auto none = ConfigProviders::fromWorker({});
  EXPECT_EQ(problems(none, {{"connection.password", "${env:PGPASS}"}}),
            (std::vector<std::string>{
                "connection.password: a ${…:…} reference names config provider 'env', which "
                "config.providers does not declare"}));
  const auto providers = ConfigProviders::fromWorker(worker());
  ::unsetenv("KSINK_TEST_UNSET");
  EXPECT_EQ(problems(providers, {{"a", "${env:KSINK_TEST_UNSET}"},
                                 {"b", "${file:" + (dir_ / "db.properties").string() + ":nokey}"},
                                 {"c", "${file:" + (dir_ / "missing").string() + ":user}"},
                                 {"d", "${dir:" + (dir_ / "secrets").string() + ":nofile}"}})
                .size(),
            4u);
}

TEST_F(ConfigProvidersTest, ParametersLimitWhatAProviderMayRead) {
  const auto providers = ConfigProviders::fromWorker(
      worker({{"config.providers.env.param.allowlist.pattern", "KSINK_TEST_.*"},
              {"config.providers.file.param.allowed.paths", (dir_ / "secrets").string()}}));
  ::setenv("HOME_OTHER", "x", 1);
  EXPECT_EQ(providers.resolve({{"a", "${env:KSINK_TEST_TABLE}"}}).at("a"), "orders_copy");
  EXPECT_EQ(problems(providers, {{"a", "${env:HOME_OTHER}"}}).size(), 1u);
  EXPECT_EQ(
      problems(providers, {{"b", "${file:" + (dir_ / "db.properties").string() + ":user}"}}).size(),
      1u)
      << "outside allowed.paths";
}

TEST_F(ConfigProvidersTest, BadDeclarationsAreRefusedNamingTheKey) {
  try {
    ConfigProviders::fromWorker({{"config.providers", "vault,env"},
                                 {"config.providers.vault.class", "com.example.Vault"},
                                 {"config.providers.env.class",
                                  "org.apache.kafka.common.config.provider.EnvVarConfigProvider"},
                                 {"config.providers.env.param.nosuch", "1"},
                                 {"config.providers.env.param.allowlist.pattern", "KSINK_[("},
                                 {"config.providers.other.class", "x"}});
    FAIL() << "accepted";
  } catch (const ConfigException& e) {
    std::vector<std::string> keys;
    for (const auto& p : e.problems()) keys.push_back(p.key);
    EXPECT_EQ(keys,
              (std::vector<std::string>{
                  "config.providers.vault.class", "config.providers.env.param.allowlist.pattern",
                  "config.providers.env.param.nosuch", "config.providers.other.class"}));
  }
}

}  // namespace
}  // namespace ksink
