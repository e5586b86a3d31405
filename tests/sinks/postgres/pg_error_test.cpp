// SQLSTATE classification: the one place the PostgreSQL sink decides retry / bad record / fatal.
#include "ksink/pg/pg_error.h"

#include <gtest/gtest.h>

#include <type_traits>

#include "ksink/write_failure.h"

namespace ksink::postgres {
namespace {

using Kind = PgError::Kind;

// A PgError's kind is the toolkit's WriteFailure: PgDestination throws it as a WriteError without
// translation.
static_assert(std::is_same_v<Kind, WriteFailure>);

TEST(PgErrorClassify, ConnectionLossIsRetriableWhateverTheServerSaid) {
  EXPECT_EQ(PgError::classify("", true), Kind::kRetriable);
  EXPECT_EQ(PgError::classify("22P02", true), Kind::kRetriable);
  EXPECT_EQ(PgError::classify("08006", false), Kind::kRetriable);
  EXPECT_EQ(PgError::classify("08001", false), Kind::kRetriable);
}

TEST(PgErrorClassify, SerializationDeadlockAndShutdownAreRetriable) {
  EXPECT_EQ(PgError::classify("40001", false), Kind::kRetriable);
  EXPECT_EQ(PgError::classify("40P01", false), Kind::kRetriable);
  EXPECT_EQ(PgError::classify("57P01", false), Kind::kRetriable);  // admin shutdown
  EXPECT_EQ(PgError::classify("57P02", false), Kind::kRetriable);  // crash shutdown
  EXPECT_EQ(PgError::classify("57P03", false), Kind::kRetriable);  // cannot connect now
  EXPECT_EQ(PgError::classify("55P03", false), Kind::kRetriable);  // lock timeout
  EXPECT_EQ(PgError::classify("53300", false), Kind::kRetriable);  // too many connections
}

TEST(PgErrorClassify, DataAndConstraintErrorsAreBadRecords) {
  EXPECT_EQ(PgError::classify("22P02", false), Kind::kBadData);  // invalid text representation
  EXPECT_EQ(PgError::classify("22003", false), Kind::kBadData);  // numeric value out of range
  EXPECT_EQ(PgError::classify("22001", false), Kind::kBadData);  // string too long
  EXPECT_EQ(PgError::classify("23505", false), Kind::kBadData);  // unique violation
  EXPECT_EQ(PgError::classify("23502", false), Kind::kBadData);  // not null violation
  EXPECT_EQ(PgError::classify("54000", false), Kind::kBadData);  // index row too large
}

TEST(PgErrorClassify, SchemaPermissionAndUnknownErrorsAreFatal) {
  EXPECT_EQ(PgError::classify("42P01", false), Kind::kFatal);  // undefined table
  EXPECT_EQ(PgError::classify("42703", false), Kind::kFatal);  // undefined column
  EXPECT_EQ(PgError::classify("42501", false), Kind::kFatal);  // insufficient privilege
  EXPECT_EQ(PgError::classify("XX000", false), Kind::kFatal);
  EXPECT_EQ(PgError::classify("", false), Kind::kFatal);
}

TEST(PgError, MessageCarriesSqlstateDetailAndContext) {
  const PgError e({"23505", "duplicate key value violates unique constraint \"t_pkey\"",
                   "Key (id)=(1) already exists.", "", "COPY t, line 3"},
                  false);
  EXPECT_EQ(e.kind(), Kind::kBadData);
  const std::string what = e.what();
  EXPECT_NE(what.find("SQLSTATE 23505"), std::string::npos) << what;
  EXPECT_NE(what.find("Key (id)=(1) already exists."), std::string::npos) << what;
  EXPECT_NE(what.find("COPY t, line 3"), std::string::npos) << what;
}

TEST(PgError, ACreateThatLostARaceIsToldApartFromOtherFailures) {
  auto created = [](std::string sqlstate, bool lost = false) {
    return PgError({std::move(sqlstate), "m", "", "", ""}, lost).createdByAnother();
  };
  EXPECT_TRUE(created("42P07"));  // relation already exists
  EXPECT_TRUE(created("42701"));  // column already exists
  EXPECT_TRUE(created("42710"));  // type already exists: CREATE TABLEs overlapping
  EXPECT_TRUE(created("23505"));  // pg_type's unique index, same race
  EXPECT_FALSE(created("42P01"));
  EXPECT_FALSE(created("42501"));
  EXPECT_FALSE(created(""));
  EXPECT_FALSE(created("42P07", /*lost=*/true));
}

TEST(PgError, CopyLineIsReadFromTheContext) {
  auto line = [](std::string context) {
    return PgError({"22P02", "bad", "", "", std::move(context)}, false).copyLine();
  };
  EXPECT_EQ(line("COPY t, line 3, column id: \"x\""), 3);
  EXPECT_EQ(line("COPY \"my table\", line 12"), 12);
  EXPECT_EQ(line("SQL statement \"INSERT ...\""), std::nullopt);
  EXPECT_EQ(line(""), std::nullopt);
}

}  // namespace
}  // namespace ksink::postgres
