// connection.url: JDBC URLs become libpq parameters; libpq's own syntaxes pass through; secrets
// never reach an error message (their redaction in general: Config::redactPasswords, config_test).
#include "ksink/pg/pg_connection_url.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace ksink::postgres {
namespace {

// The effective value of each keyword (the last one wins, as in PQconnectdbParams).
std::map<std::string, std::string> effective(const ConnectionParams& params) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : params) out[k] = v;
  return out;
}

TEST(PgConnectionUrl, JdbcUrlBecomesHostPortDbnameAndKnownProperties) {
  const PgConnectionUrl url(
      "jdbc:postgresql://db.example:6543/orders?user=app&password=s%40cret&sslmode=require"
      "&ApplicationName=etl&currentSchema=sales&reWriteBatchedInserts=true");
  const auto p = effective(url.params("", ""));
  EXPECT_EQ(p.at("host"), "db.example");
  EXPECT_EQ(p.at("port"), "6543");
  EXPECT_EQ(p.at("dbname"), "orders");
  EXPECT_EQ(p.at("user"), "app");
  EXPECT_EQ(p.at("password"), "s@cret");
  EXPECT_EQ(p.at("sslmode"), "require");
  EXPECT_EQ(p.at("application_name"), "etl");
  EXPECT_EQ(p.at("options"), "-c search_path=sales");
  EXPECT_EQ(url.ignoredProperties(), std::vector<std::string>{"reWriteBatchedInserts"});
}

TEST(PgConnectionUrl, JdbcDefaultsAndMultipleHosts) {
  auto p = effective(PgConnectionUrl("jdbc:postgresql://a,b:5433,[::1]:5434/db").params("", ""));
  EXPECT_EQ(p.at("host"), "a,b,::1");
  EXPECT_EQ(p.at("port"), "5432,5433,5434");
  p = effective(PgConnectionUrl("jdbc:postgresql:shop").params("", ""));
  EXPECT_EQ(p.at("host"), "localhost");
  EXPECT_EQ(p.at("port"), "5432");
  EXPECT_EQ(p.at("dbname"), "shop");
}

TEST(PgConnectionUrl, JdbcSslTrueVerifiesTheServerAsPgjdbcDoes) {
  auto p = effective(PgConnectionUrl("jdbc:postgresql://h/db?ssl=true").params("", ""));
  EXPECT_EQ(p.at("sslmode"), "verify-full");
  p = effective(PgConnectionUrl("jdbc:postgresql://h/db?ssl=true&sslfactory=org.postgresql.ssl."
                                "NonValidatingFactory")
                    .params("", ""));
  EXPECT_EQ(p.at("sslmode"), "require");
  p = effective(
      PgConnectionUrl("jdbc:postgresql://h/db?ssl=true&sslmode=verify-ca").params("", ""));
  EXPECT_EQ(p.at("sslmode"), "verify-ca");
  EXPECT_EQ(p.count("sslmode"), 1u);
  p = effective(PgConnectionUrl("jdbc:postgresql://h/db?ssl=false").params("", ""));
  EXPECT_EQ(p.count("sslmode"), 0u);  // libpq's default, prefer, as pgjdbc's
}

TEST(PgConnectionUrl, JdbcSslFilesAndPasswordsPassThroughToLibpq) {
  const auto p =
      effective(PgConnectionUrl("jdbc:postgresql://h/db?sslmode=verify-full&sslrootcert=/etc/ca.crt"
                                "&sslcert=/c.crt&sslkey=/c.key&sslpassword=k%26y&password=p%3Dw")
                    .params("", ""));
  const std::map<std::string, std::string> expected{
      {"sslmode", "verify-full"}, {"sslrootcert", "/etc/ca.crt"}, {"sslcert", "/c.crt"},
      {"sslkey", "/c.key"},       {"sslpassword", "k&y"},         {"password", "p=w"}};
  for (const auto& [key, value] : expected) EXPECT_EQ(p.at(key), value) << key;
}

TEST(PgConnectionUrl, ConnectionUserAndPasswordWinOverTheUrl) {
  const auto p =
      effective(PgConnectionUrl("jdbc:postgresql://h/db?user=a&password=b").params("svc", "pw"));
  EXPECT_EQ(p.at("user"), "svc");
  EXPECT_EQ(p.at("password"), "pw");
}

TEST(PgConnectionUrl, LibpqUrisAndConninfoPassThroughAsExpandedDbname) {
  auto params = PgConnectionUrl("postgresql://u@127.0.0.1:5432/db?sslmode=disable").params("", "");
  EXPECT_EQ(effective(params).at("dbname"), "postgresql://u@127.0.0.1:5432/db?sslmode=disable");
  // Defaults come first so the URL can override them.
  EXPECT_EQ(params.front().first, "application_name");
  params = PgConnectionUrl("host=127.0.0.1 port=5432 dbname=db").params("", "");
  EXPECT_EQ(effective(params).at("dbname"), "host=127.0.0.1 port=5432 dbname=db");
}

// Text is exchanged as UTF-8 whatever the database's encoding, as pgjdbc exchanges it: the server
// converts (integration: PgJdbcSourceTest.ALatin1DatabasesTextReachesKafkaAsUtf8AndIsWrittenBack).
TEST(PgConnectionUrl, TextIsExchangedAsUtf8WhateverTheUrlOrTheEnvironmentSays) {
  for (const char* url : {"jdbc:postgresql://h/db", "postgresql://h/db?client_encoding=utf-8",
                          "host=h dbname=db client_encoding=UTF8"}) {
    const auto params = PgConnectionUrl(url).params("u", "p");
    EXPECT_EQ(params.back(), (std::pair<std::string, std::string>{"client_encoding", "UTF8"}))
        << url;
  }
  for (const char* url :
       {"postgresql://h/db?client_encoding=LATIN1", "host=h dbname=db client_encoding=SQL_ASCII"}) {
    try {
      PgConnectionUrl{url};
      ADD_FAILURE() << url << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("ksink exchanges text with PostgreSQL as UTF-8"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(PgConnectionUrl, MalformedUrlsAreRejectedWithTheReason) {
  EXPECT_THROW(PgConnectionUrl(""), std::invalid_argument);
  EXPECT_THROW(PgConnectionUrl("jdbc:mysql://h/db"), std::invalid_argument);
  EXPECT_THROW(PgConnectionUrl("jdbc:postgresql://h:port/db"), std::invalid_argument);
  EXPECT_THROW(PgConnectionUrl("postgresql://h/db?nosuchoption=1"), std::invalid_argument);
  EXPECT_THROW(PgConnectionUrl("host=h nosuchkeyword=1"), std::invalid_argument);
}

// Another database's URL is named for what it is, with the forms the sink takes, not libpq's
// "missing \"=\" after …"; a password in it stays hidden.
TEST(PgConnectionUrl, AnotherDatabasesUrlNamesTheFormsServed) {
  for (const auto* url : {"mysql://u:secret@h/db", "sqlite:///tmp/x.db", "mongodb://h"}) {
    try {
      PgConnectionUrl{url};
      ADD_FAILURE() << url << " accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("is not a PostgreSQL URL"), std::string::npos) << what;
      EXPECT_NE(what.find("postgresql://"), std::string::npos) << what;
      EXPECT_EQ(what.find("secret"), std::string::npos) << what;
    }
  }
  EXPECT_NO_THROW(PgConnectionUrl("postgres://u@h/db"));
  EXPECT_NO_THROW(PgConnectionUrl("host=h dbname=x options='-c a=b://c'"));
}

TEST(PgConnectionUrl, ErrorsAboutAMalformedUrlNeverQuoteItsPassword) {
  for (const char* url :
       {"postgresql://u:topsecret@h/db?nosuchoption=1", "postgresql://u:topsecret%zz@h/db",
        "host=h password=x topsecret", "jdbc:postgresql://h:x/db?password=topsecret",
        "jdbc:postgresql://h/db?password=topsecret%zz", "jdbc:postgresql://u:topsecret@h/db"}) {
    try {
      PgConnectionUrl{url};
      ADD_FAILURE() << url << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).find("topsecret"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ksink::postgres
