// The ksink command line as a user meets it: help, bad configurations, validation. No broker.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "command_output.h"

namespace {

namespace fs = std::filesystem;

// Runs `binary` (default: the example program) with `args`; returns its exit code and output.
ksink::test::CommandResult runKsink(const std::string& args,
                                    const std::string& binary = KSINK_JSONL_BIN) {
  return ksink::test::runCommand(fmt::format("'{}' {}", binary, args));
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("ksink-cli-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "worker.properties") << "bootstrap.servers=127.0.0.1:1\n";
  }
  fs::path connector(const std::string& body) {
    auto path = dir_ / "connector.properties";
    std::ofstream(path) << body;
    return path;
  }
  std::string files(const fs::path& connector) {
    return fmt::format("'{}' '{}'", (dir_ / "worker.properties").string(), connector.string());
  }
  fs::path dir_;
};

TEST_F(CliTest, HelpListsTheCommandsAndExitsZero) {
  auto r = runKsink("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* word : {"run", "validate", "offsets", "version"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word;
}

TEST_F(CliTest, RunRejectsBothTopicsAndRegexBeforeConnecting) {
  auto c =
      connector("name=x\nconnector.class=jsonl-file\nfile=/tmp/x\ntopics=a\ntopics.regex=b.*\n");
  auto r = runKsink("run " + files(c));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("topics.regex: topics and topics.regex are mutually exclusive"),
            std::string::npos)
      << r.output;
}

TEST_F(CliTest, RunRejectsANegativeIntervalNamingTheKey) {
  auto c = connector(
      "name=x\nconnector.class=jsonl-file\nfile=/tmp/x\ntopics=a\noffset.flush.interval.ms=-3\n");
  auto r = runKsink("run " + files(c));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("offset.flush.interval.ms: must be at least 0"), std::string::npos)
      << r.output;
}

TEST_F(CliTest, RunRejectsAnUnknownSinkListingTheKnownOnes) {
  auto c = connector("name=x\nconnector.class=nope\ntopics=a\n");
  auto r = runKsink("run " + files(c));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown connector 'nope'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("jsonl-file"), std::string::npos) << r.output;
}

// Issue 36, item 12: a JDBC class ksink serves for other databases says so, not "unknown", and
// does not echo the URL (it may hold a password).
TEST_F(CliTest, AJdbcClassWithADatabaseNotServedSaysWhichAreServed) {
  for (const char* cls : {"io.confluent.connect.jdbc.JdbcSinkConnector",
                          "io.debezium.connector.jdbc.JdbcSinkConnector",
                          "io.confluent.connect.jdbc.JdbcSourceConnector"}) {
    SCOPED_TRACE(cls);
    auto c =
        connector(fmt::format("name=x\nconnector.class={}\ntopics=a\ntopic.prefix=p-\n"
                              "connection.url=jdbc:mysql://db:3306/shop?user=app&password=s3cret\n",
                              cls));
    auto r = runKsink("validate " + files(c), KSINK_BIN);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find(fmt::format("connection.url: {} is served here for ", cls)),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("PostgreSQL (jdbc:postgresql://"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("SQLite (jdbc:sqlite:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("a connection.url of 'jdbc:mysql:…' is none of them"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("unknown connector"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("s3cret"), std::string::npos) << r.output;
  }
}

TEST_F(CliTest, ValidatePrintsEveryProblemAtOnce) {
  auto c = connector(
      "connector.class=jsonl-file\ntopics=a\ntasks.max=0\n"
      "consumer.override.partition.assignment.strategy=sticky-ish\n");
  auto r = runKsink("validate " + files(c));
  EXPECT_EQ(r.exit_code, 2);
  for (const char* key : {"name:", "file:", "tasks.max:", "partition.assignment.strategy:"})
    EXPECT_NE(r.output.find(key), std::string::npos) << key << "\n" << r.output;
}

// A misspelt key would silently take its default (insert.mdoe=upsert runs inserts): within two
// edits of a known key it is refused, by validate and by run before anything connects, naming
// the key it was likely meant to be; in the worker file as in the connector's.
TEST_F(CliTest, AMisspeltKeyIsRefusedNamingTheKeyItWasLikelyMeantToBe) {
  std::ofstream(dir_ / "worker.properties")
      << "bootstrap.servers=127.0.0.1:1\noffset.flush.intervl.ms=100\n";
  auto c = connector(
      "name=x\nconnector.class=postgres\nconnection.url=postgresql://127.0.0.1:1/x\ntopics=a\n"
      "insert.mdoe=upsert\npk.mode=record_key\nerrors.tolerence=all\n"
      "value.converter.schemas.enabel=false\ntransfroms=unwrap\n");
  for (const char* command : {"validate", "run"}) {
    auto r = runKsink(fmt::format("{} {}", command, files(c)), KSINK_BIN);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const auto& [key, meant] : std::vector<std::pair<std::string, std::string>>{
             {"insert.mdoe", "insert.mode"},
             {"errors.tolerence", "errors.tolerance"},
             {"offset.flush.intervl.ms", "offset.flush.interval.ms"},
             {"value.converter.schemas.enabel", "value.converter.schemas.enable"},
             {"transfroms", "transforms"}})
      EXPECT_NE(r.output.find(
                    fmt::format("{}: is not a key ksink knows; did you mean `{}`?", key, meant)),
                std::string::npos)
          << command << ": " << key << "\n"
          << r.output;
  }
}

// A key far from every known one (a Kafka Connect worker key with no meaning here, say) is
// reported and ignored; keys under the client and transform prefixes are their parts' to check.
// A sink the runtime converts for gets header values as text: a header converter that would give
// anything else is refused before the connector starts.
TEST_F(CliTest, AHeaderConverterTheRuntimeDoesNotServeIsRefusedForASinkItConvertsFor) {
  std::ofstream(dir_ / "worker.properties") << "bootstrap.servers=127.0.0.1:1\n";
  auto c = connector(
      "name=x\nconnector.class=jsonl-file\nfile=/tmp/x\ntopics=a\n"
      "header.converter=org.apache.kafka.connect.json.JsonConverter\n");
  auto r = runKsink("validate " + files(c));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("header.converter: 'org.apache.kafka.connect.json.JsonConverter' is not "
                          "served: the runtime gives header values as text"),
            std::string::npos)
      << r.output;
}

TEST_F(CliTest, AnUnknownKeyFarFromEveryKnownOneIsWarnedAndTheConfigAccepted) {
  std::ofstream(dir_ / "worker.properties")
      << "bootstrap.servers=127.0.0.1:1\nmy.custom.worker.key=h\nrest.advertised.host.name=h\n"
         "rest.advertised.listener=http\n";
  auto c = connector(
      "name=x\nconnector.class=sqlite\nconnection.url=sqlite:///tmp/x.db\ntopics=a\n"
      "consumer.override.session.timeout.ms=10000\nsecurity.protocol=PLAINTEXT\n"
      "transforms=r\ntransforms.r.type=RegexRouter\ntransforms.r.regex=a\n"
      "transforms.r.replacement=b\n"
      "header.converter=org.apache.kafka.connect.converters.ByteArrayConverter\n");
  auto r = runKsink("validate " + files(c), KSINK_BIN);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ok (sqlite)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("warning: my.custom.worker.key: not a key ksink knows; ignored"),
            std::string::npos)
      << r.output;
  // A Connect distributed worker's key: accepted, saying what ksink does instead.
  EXPECT_NE(r.output.find("warning: rest.advertised.listener: no meaning in ksink, ignored "
                          "(there is no leader: every process applies the config topic's "
                          "changes itself)"),
            std::string::npos)
      << r.output;
  // One ksink takes (how a process names itself to its cluster): no warning.
  EXPECT_EQ(r.output.find("warning: rest.advertised.host.name"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("warning: consumer."), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("warning: transforms."), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("warning: security."), std::string::npos) << r.output;
}

// What run refuses, validate refuses, before anything connects: Confluent's rules between keys
// included; enum values in any case, as Confluent's sink reads them.
TEST_F(CliTest, ValidateAndRunApplyTheRulesBetweenKeysBeforeConnecting) {
  auto bad = connector(
      "name=x\nconnector.class=postgres\nconnection.url=postgresql://127.0.0.1:1/x\ntopics=a\n"
      "insert.mode=upsert\npk.mode=none\ndelete.enabled=true\n");
  for (const char* command : {"validate", "run"}) {
    auto r = runKsink(fmt::format("{} {}", command, files(bad)), KSINK_BIN);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("insert.mode: insert.mode=upsert needs a primary key"),
              std::string::npos)
        << command << "\n"
        << r.output;
    EXPECT_NE(r.output.find("delete.enabled: delete.enabled=true requires pk.mode=record_key"),
              std::string::npos)
        << command << "\n"
        << r.output;
  }
  auto upper = connector(
      "name=x\nconnector.class=postgres\nconnection.url=postgresql://127.0.0.1:1/x\ntopics=a\n"
      "insert.mode=UPSERT\npk.mode=Record_Value\npk.fields=id\n");
  auto r = runKsink("validate " + files(upper), KSINK_BIN);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// Two connectors of one name would share a consumer group and stored offsets.
TEST_F(CliTest, TheSameConnectorNameTwiceIsRefused) {
  auto c = connector("name=x\nconnector.class=jsonl-file\nfile=/tmp/x\ntopics=a\n");
  for (const char* command : {"validate", "run"}) {
    auto r = runKsink(fmt::format("{} {} '{}'", command, files(c), c.string()));
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("name: 'x' is the name of an earlier connector"), std::string::npos)
        << command << "\n"
        << r.output;
  }
}

// Secrets kept out of the files with Connect's providers: a reference resolves, or the
// configuration is refused naming the key; it is never passed on as its own text.
TEST_F(CliTest, ConfigProviderReferencesResolveOrAreRefused) {
  auto c =
      connector("name=x\nconnector.class=jsonl-file\nfile=${env:KSINK_CLI_TEST_FILE}\ntopics=a\n");
  auto refused = runKsink("validate " + files(c));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("file: a ${…:…} reference names config provider 'env', which "
                                "config.providers does not declare"),
            std::string::npos)
      << refused.output;
  std::ofstream(dir_ / "worker.properties")
      << "bootstrap.servers=127.0.0.1:1\nconfig.providers=env\n"
         "config.providers.env.class=org.apache.kafka.common.config.provider."
         "EnvVarConfigProvider\n";
  ::setenv("KSINK_CLI_TEST_FILE", "/tmp/ksink-cli-provided.jsonl", 1);
  auto resolved = runKsink("validate " + files(c));
  EXPECT_EQ(resolved.exit_code, 0) << resolved.output;
  EXPECT_NE(resolved.output.find("ok (jsonl-file)"), std::string::npos) << resolved.output;
  ::unsetenv("KSINK_CLI_TEST_FILE");
  auto unset = runKsink("validate " + files(c));
  EXPECT_EQ(unset.exit_code, 2) << unset.output;
  EXPECT_NE(unset.output.find("environment variable KSINK_CLI_TEST_FILE is not set"),
            std::string::npos)
      << unset.output;
}

TEST_F(CliTest, ValidateAcceptsAGoodConfig) {
  auto c = connector("name=x\nconnector.class=jsonl-file\nfile=/tmp/x\ntopics=a\n");
  auto r = runKsink("validate " + files(c));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ok (jsonl-file)"), std::string::npos) << r.output;
}

}  // namespace

namespace {

TEST_F(CliTest, StockKsinkLoadsASinkFromPluginPath) {
  std::ofstream(dir_ / "worker.properties")
      << "bootstrap.servers=127.0.0.1:1\nplugin.path=" << KSINK_PLUGIN_DIR << "\n";
  auto c = connector("name=x\nconnector.class=jsonl-file\nfile=/tmp/x\ntopics=a\n");
  auto r = runKsink("validate " + files(c), KSINK_BIN);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ok (jsonl-file)"), std::string::npos) << r.output;
}

TEST_F(CliTest, ATransformFromAPluginServesTheChain) {
  auto c = connector(
      "name=x\nconnector.class=sqlite\nconnection.url=sqlite:///tmp/x.db\ntopics=a\n"
      "transforms=t\ntransforms.t.type=com.example.AppendToTopic\ntransforms.t.suffix=_v2\n");
  auto without = runKsink("validate " + files(c), KSINK_BIN);
  EXPECT_EQ(without.exit_code, 2) << without.output;
  EXPECT_NE(without.output.find("unknown transform 'com.example.AppendToTopic'"), std::string::npos)
      << without.output;
  std::ofstream(dir_ / "worker.properties")
      << "bootstrap.servers=127.0.0.1:1\nplugin.path=" << KSINK_TRANSFORM_PLUGIN_DIR << "\n";
  auto with = runKsink("validate " + files(c), KSINK_BIN);
  EXPECT_EQ(with.exit_code, 0) << with.output;
  EXPECT_NE(with.output.find("ok (sqlite)"), std::string::npos) << with.output;
}

TEST_F(CliTest, APluginBuiltForAnOlderAbiIsRefusedWithTheReason) {
  const std::pair<std::string, std::string> plugins[] = {
      {KSINK_ABI1_PLUGIN_DIR,
       "old_sink.so was built for plugin ABI 1 (the sinks-only SinkRegistry)"},
      {KSINK_ABI3_PLUGIN_DIR,
       "unconverted_sink.so was built for plugin ABI 3 (sinks that got records unconverted)"}};
  for (const auto& [dir, why] : plugins) {
    std::ofstream(dir_ / "worker.properties")
        << "bootstrap.servers=127.0.0.1:1\nplugin.path=" << dir << "\n";
    auto c =
        connector("name=x\nconnector.class=sqlite\nconnection.url=sqlite:///tmp/x.db\ntopics=a\n");
    auto r = runKsink("validate " + files(c), KSINK_BIN);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(why + ", this ksink loads ABI 4: rebuild it against this SDK"),
              std::string::npos)
        << r.output;
  }
}

TEST_F(CliTest, PluginPathThatIsNotADirectoryIsAConfigError) {
  std::ofstream(dir_ / "worker.properties")
      << "bootstrap.servers=127.0.0.1:1\nplugin.path=/nonexistent/plugins\n";
  auto c = connector("name=x\nconnector.class=jsonl-file\nfile=/tmp/x\ntopics=a\n");
  auto r = runKsink("run " + files(c));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("plugin.path: '/nonexistent/plugins' is not a directory"),
            std::string::npos)
      << r.output;
}

}  // namespace

namespace {

// A Debezium-style configuration for the Confluent JDBC sink: the chain is checked whole, and
// nothing of it is silently ignored.
TEST_F(CliTest, ValidateChecksTheTransformChainAndRefusesJdbcKeysKsinkDoesNotImplement) {
  auto c = connector(
      "name=x\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\ntopics=a\n"
      "connection.url=jdbc:postgresql://db:5432/app\ntransforms=unwrap,route\n"
      "transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState\n"
      "transforms.unwrap.drop.tombstones=false\n"
      "transforms.route.type=com.example.Router\n"
      "quote.sql.identifiers=never\nmax.retries=10\n");
  auto r = runKsink("validate " + files(c), KSINK_BIN);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("2 problem(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("transforms.route.type: unknown transform 'com.example.Router'"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("quote.sql.identifiers: 'never' is not supported"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("max.retries:"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("transforms.unwrap"), std::string::npos) << r.output;
}

TEST_F(CliTest, ConfluentJdbcSinkClassPicksTheSinkByTheConnectionUrl) {
  for (const auto& [url, sink] : std::vector<std::pair<std::string, std::string>>{
           {"jdbc:postgresql://db:5432/app", "postgres"},
           {"postgresql://u@db/app", "postgres"},
           {"host=db dbname=app", "postgres"},
           {"sqlite:///tmp/x.db", "sqlite"},
           {"jdbc:sqlite:/tmp/x.db", "sqlite"}}) {
    auto c = connector(
        "name=x\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\n"
        "topics=a\nconnection.url=" +
        url + "\n");
    auto r = runKsink("validate " + files(c), KSINK_BIN);
    EXPECT_NE(r.output.find("ok (" + sink + ")"), std::string::npos) << url << "\n" << r.output;
  }
  // A URL no sink claims: the key is refused, naming the databases served.
  auto c = connector(
      "name=x\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\n"
      "topics=a\nconnection.url=jdbc:mysql://db/app\n");
  auto r = runKsink("validate " + files(c), KSINK_BIN);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("connection.url: io.confluent.connect.jdbc.JdbcSinkConnector is served "
                          "here for SQLite"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("a connection.url of 'jdbc:mysql:…' is none of them"), std::string::npos)
      << r.output;
}

// Debezium's configuration for its JDBC sink, as its documentation gives it.
TEST_F(CliTest, DebeziumJdbcSinkClassIsServedWithItsOwnKeys) {
  for (const auto& [url, sink] : std::vector<std::pair<std::string, std::string>>{
           {"jdbc:postgresql://db:5432/app", "debezium-postgres"},
           {"jdbc:sqlite:/tmp/x.db", "debezium-sqlite"}}) {
    auto c = connector(
        "name=x\nconnector.class=io.debezium.connector.jdbc.JdbcSinkConnector\ntopics=a\n"
        "connection.url=" +
        url +
        "\nconnection.username=u\nconnection.password=p\ninsert.mode=upsert\n"
        "delete.enabled=true\nprimary.key.mode=record_key\nschema.evolution=basic\n"
        "collection.name.format=${source.table}\nconnection.pool.max_size=4\n");
    auto r = runKsink("validate " + files(c), KSINK_BIN);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("ok (" + sink + ")"), std::string::npos) << url << "\n" << r.output;
  }
  auto c = connector(
      "name=x\nconnector.class=io.debezium.connector.jdbc.JdbcSinkConnector\ntopics=a\n"
      "connection.url=jdbc:postgresql://db/app\nprimary.key.mode=record_key\n"
      "truncate.enabled=maybe\npk.mode=record_key\n");
  auto r = runKsink("validate " + files(c), KSINK_BIN);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("truncate.enabled: 'maybe' is not one of true, false"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("pk.mode: is a key of the Confluent JDBC sink"), std::string::npos)
      << r.output;
}

}  // namespace
