// connection.url: JDBC URLs become libpq parameters; libpq's own syntaxes pass through; secrets
// never reach a log line.
#include "pg_connection_url.h"

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
  p = effective(PgConnectionUrl("jdbc:postgresql://h/db?ssl=true").params("", ""));
  EXPECT_EQ(p.at("sslmode"), "require");
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

TEST(PgConnectionUrl, MalformedUrlsAreRejectedWithTheReason) {
  EXPECT_THROW(PgConnectionUrl(""), std::invalid_argument);
  EXPECT_THROW(PgConnectionUrl("jdbc:mysql://h/db"), std::invalid_argument);
  EXPECT_THROW(PgConnectionUrl("jdbc:postgresql://h:port/db"), std::invalid_argument);
  EXPECT_THROW(PgConnectionUrl("postgresql://h/db?nosuchoption=1"), std::invalid_argument);
  EXPECT_THROW(PgConnectionUrl("host=h nosuchkeyword=1"), std::invalid_argument);
  try {
    PgConnectionUrl("postgresql://u:topsecret@h/db?nosuchoption=1");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).find("topsecret"), std::string::npos) << e.what();
  }
}

TEST(PgConnectionUrl, RedactHidesPasswordsInEverySyntax) {
  EXPECT_EQ(PgConnectionUrl::redact("postgresql://app:s3cret@h:5432/db"),
            "postgresql://app:****@h:5432/db");
  EXPECT_EQ(PgConnectionUrl::redact("jdbc:postgresql://h/db?user=a&password=s3cret&ssl=true"),
            "jdbc:postgresql://h/db?user=a&password=****&ssl=true");
  EXPECT_EQ(PgConnectionUrl::redact("host=h password=s3cret dbname=d"),
            "host=h password=**** dbname=d");
  EXPECT_EQ(PgConnectionUrl::redact("host=h password='a b' dbname=d"),
            "host=h password=**** dbname=d");
  EXPECT_EQ(PgConnectionUrl::redact("postgresql://app@h/db"), "postgresql://app@h/db");
}

}  // namespace
}  // namespace ksink::postgres
