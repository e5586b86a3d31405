// The JDBC source's parts without a database: its offsets as Connect's bytes (the JDBC source's
// key order and number types), the SQL text per mode, SQL date/time text, the configuration's
// refusals, and TableQuerier over a scripted database — above all the timestamp mode's rule that
// rows sharing a timestamp are never lost across a restart.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <limits>

#include "jdbc_offset.h"
#include "jdbc_source_config.h"
#include "ksink/config_exception.h"
#include "ksink/pg/pg_type_oids.h"
#include "pg_column.h"
#include "source_task_adapter.h"
#include "sql_time.h"
#include "table_querier.h"
#include "table_query.h"

namespace ksink::jdbc {
namespace {

using Mode = JdbcSourceConfig::Mode;

// --- offsets -------------------------------------------------------------------------------

TEST(JdbcOffsetTest, OffsetsAreWrittenInTheKeyOrderAndNumberTypesOfTheJdbcSource) {
  // TimestampIncrementingOffset.toMap() puts its entries in a `new HashMap<>(3)`: four buckets,
  // "timestamp_nanos" in 1, "incrementing" in 2, "timestamp" in 3; values are Longs.
  JdbcOffset both{Instant{1700000000, 123456000}, 42};
  EXPECT_EQ(SourceTaskAdapter::offsetValue(both.toMap()),
            R"({"timestamp_nanos":123456000,"incrementing":42,"timestamp":1700000000123})");
  EXPECT_EQ(SourceTaskAdapter::offsetValue(JdbcOffset{std::nullopt, 7}.toMap()),
            R"({"incrementing":7})");
  EXPECT_EQ(SourceTaskAdapter::offsetValue(JdbcOffset{Instant{0, 5}, std::nullopt}.toMap()),
            R"({"timestamp_nanos":5,"timestamp":0})");
}

TEST(JdbcOffsetTest, PartitionsAreTheJdbcSourcesBytes) {
  // OffsetProtocols: a HashMap of "table" and "protocol" iterates "protocol" first.
  EXPECT_EQ(SourceTaskAdapter::offsetKey("jdbc", tablePartition("shop.public.orders")),
            R"(["jdbc",{"protocol":"1","table":"shop.public.orders"}])");
  EXPECT_EQ(SourceTaskAdapter::offsetKey("jdbc", legacyTablePartition("orders")),
            R"(["jdbc",{"table":"orders"}])");
  EXPECT_EQ(SourceTaskAdapter::offsetKey("q", queryPartition()), R"(["q",{"query":"query"}])");
}

TEST(JdbcOffsetTest, StoredOffsetsReadBackAsTheJdbcSourceReadsThem) {
  // java.sql.Timestamp(millis) then setNanos(nanos): the nanoseconds replace the fraction.
  const auto read = JdbcOffset::fromMap({{"timestamp_nanos", Value::integer(123456789)},
                                         {"incrementing", Value::integer(9)},
                                         {"timestamp", Value::integer(1700000000123)}});
  EXPECT_EQ(read.timestamp, (Instant{1700000000, 123456789}));
  EXPECT_EQ(read.incrementing, 9);
  // Without nanos the milliseconds give the fraction; entries in any order.
  const auto millis = JdbcOffset::fromMap({{"timestamp", Value::integer(-1)}});
  EXPECT_EQ(millis.timestamp, (Instant{-1, 999000000}));
  EXPECT_FALSE(millis.incrementing);
  EXPECT_EQ(JdbcOffset::fromMap({}), JdbcOffset{});
  EXPECT_THROW(JdbcOffset::fromMap({{"incrementing", Value::string("9")}}), std::runtime_error);
  JdbcOffset round{Instant{1234, 5000}, -1};
  EXPECT_EQ(JdbcOffset::fromMap(round.toMap()), round);
}

// --- SQL time text --------------------------------------------------------------------------

TEST(SqlTimeTest, TimestampsInTheFormsPostgresAndSqliteWriteThem) {
  EXPECT_EQ(parseSqlTimestamp("1970-01-01 00:00:01"), (Instant{1, 0}));
  EXPECT_EQ(parseSqlTimestamp("2024-02-29 13:45:07.123456+00"), (Instant{1709214307, 123456000}));
  EXPECT_EQ(parseSqlTimestamp("2024-02-29T14:45:07.123456789+01:00"),
            (Instant{1709214307, 123456789}));
  EXPECT_EQ(parseSqlTimestamp("2024-02-29 08:45:07.5-05"), (Instant{1709214307, 500000000}));
  EXPECT_EQ(parseSqlTimestamp("2024-02-29T13:45:07Z"), (Instant{1709214307, 0}));
  EXPECT_EQ(parseSqlTimestamp("1969-12-31 23:59:59.999"), (Instant{-1, 999000000}));
  EXPECT_EQ(parseSqlTimestamp("2024-02-29"), (Instant{1709164800, 0}));
  EXPECT_THROW(parseSqlTimestamp("infinity"), std::invalid_argument);
  EXPECT_THROW(parseSqlTimestamp("2024-02-29 13:45:07 BC"), std::invalid_argument);
  EXPECT_EQ(parseSqlDate("2000-03-01"), 11017);
  EXPECT_EQ(parseSqlTime("13:45:07.25"), ((13 * 60 + 45) * 60 + 7) * 1000000000LL + 250000000);
  EXPECT_EQ(formatUtcTimestamp({1709214307, 123456789}), "2024-02-29 13:45:07.123456789+00");
  EXPECT_EQ(formatUtcTimestamp({-1, 0}), "1969-12-31 23:59:59.000000000+00");
  EXPECT_EQ(formatUtcTimestampMillis({1709214307, 123456789}), "2024-02-29 13:45:07.123");
  EXPECT_EQ(parseSqlTimestamp(formatUtcTimestamp({-86401, 7})), (Instant{-86401, 7}));
  EXPECT_EQ((Instant{10, 100}).minusMillis(1), (Instant{9, 999000100}));
}

// --- PostgreSQL's text output -----------------------------------------------------------------

Value readAs(uint32_t oid, int fmod, std::string_view text) {
  return PgColumn("c", oid, fmod, true).read(text.data(), text.size());
}

TEST(PgColumnTest, ValuesAreReadFromPostgresqlsTextOutput) {
  using Oids = postgres::PgTypeOids;
  EXPECT_EQ(readAs(Oids::kFloat8, -1, "1.5e-07").asDouble(), 1.5e-07);
  EXPECT_TRUE(std::isnan(readAs(Oids::kFloat8, -1, "NaN").asDouble()));
  EXPECT_EQ(readAs(Oids::kFloat4, -1, "-Infinity").asDouble(),
            -std::numeric_limits<double>::infinity());
  EXPECT_THROW(readAs(Oids::kFloat8, -1, "1.5x"), std::invalid_argument);
  EXPECT_EQ(readAs(Oids::kInt8, -1, "-9223372036854775808").asInt(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(readAs(Oids::kTimestamptz, -1, "2024-02-29 13:45:07.123456+00").asInt(), 1709214307123);
  EXPECT_EQ(readAs(Oids::kDate, -1, "2000-03-01").asInt(), 11017);
  EXPECT_EQ(readAs(Oids::kBytea, -1, "\\x00ff").asBytes(), std::string("\0\xff", 2));
  // numeric(10,2): typmod (10 << 16 | 2) + 4.
  const auto decimal = readAs(Oids::kNumeric, (10 << 16 | 2) + 4, "-12.30");
  EXPECT_EQ(decimal.asBytes(), std::string("\xfb\x32", 2));  // -1230
  EXPECT_THROW(readAs(Oids::kNumeric, (10 << 16 | 2) + 4, "NaN"), std::invalid_argument);
  const auto array = readAs(Oids::kTextArray, -1, R"({a,"b \"c\"",NULL})");
  ASSERT_EQ(array.asArray().size(), 3u);
  EXPECT_EQ(array.asArray()[1].asString(), R"(b "c")");
  EXPECT_TRUE(array.asArray()[2].isNull());
}

// --- configuration --------------------------------------------------------------------------

std::map<std::string, std::string> base(std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> v{{"connection.url", "postgresql://localhost/db"},
                                       {"mode", "incrementing"}};
  for (auto& [k, x] : extra) v[k] = x;
  return v;
}

std::string problemsOf(const std::map<std::string, std::string>& values) {
  std::string out;
  for (const auto& p : JdbcSourceConfig::configDef().validate(values))
    out += p.key + ": " + p.reason + "\n";
  return out;
}

TEST(JdbcSourceConfigTest, KeysItDoesNotServeAreRefusedByName) {
  EXPECT_EQ(problemsOf(base()), "");
  EXPECT_NE(problemsOf(base({{"numeric.mapping", "best_fit"}})).find("numeric.mapping: "),
            std::string::npos);
  EXPECT_NE(
      problemsOf(base({{"timestamp.granularity", "nanos_long"}})).find("timestamp.granularity: "),
      std::string::npos);
  EXPECT_NE(problemsOf(base({{"quote.sql.identifiers", "never"}})).find("quote.sql.identifiers"),
            std::string::npos);
  EXPECT_NE(problemsOf(base({{"table.types", "TABLE,SYNONYM"}})).find("'SYNONYM'"),
            std::string::npos);
  EXPECT_NE(problemsOf({{"connection.url", "x"}}).find("mode: "), std::string::npos);
  EXPECT_NE(problemsOf(base({{"mode", "timestamp"}})).find("timestamp.column.name: "),
            std::string::npos);
  EXPECT_NE(problemsOf(base({{"table.whitelist", "a"}, {"table.blacklist", "b"}}))
                .find("table.blacklist: "),
            std::string::npos);
  EXPECT_NE(problemsOf(base({{"query", "SELECT 1"}, {"table.whitelist", "a"}})).find("query: "),
            std::string::npos);
  EXPECT_NE(problemsOf(base({{"query", "SELECT * FROM t"}, {"topic.prefix", "t"}}))
                .find("incrementing.column.name: "),
            std::string::npos);
  EXPECT_NE(problemsOf(base({{"topic.prefix", "a/b"}})).find("topic.prefix: "), std::string::npos);
  EXPECT_NE(problemsOf(base({{"timestamp.initial", "-2"}})).find("timestamp.initial: "),
            std::string::npos);
}

TEST(JdbcSourceConfigTest, TheNewerListNamesAndTuningKeysAreRead) {
  const Config c(base({{"table.include.list", "a, b"},
                       {"query.retry.attempts", "3"},
                       {"tasks.max", "4"},
                       {std::string(kSourceTaskIdKey), "2"}}));
  const auto parsed = JdbcSourceConfig::parse(c);
  EXPECT_EQ(parsed.table_whitelist, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(parsed.tasks_max, 4);
  EXPECT_EQ(parsed.task_id, 2);
  EXPECT_EQ(parsed.batch_max_rows, 100);
  EXPECT_EQ(parsed.poll_interval, std::chrono::milliseconds(5000));
  const auto ignored = JdbcSourceConfig::configDef().ignoredIn(c.values());
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_EQ(ignored[0].rfind("query.retry.attempts: ", 0), 0u);
}

// --- a scripted database ----------------------------------------------------------------------

class ScriptedDatabase final : public SourceDatabase {
 public:
  struct Row {
    int64_t id;
    std::optional<Instant> ts;
  };
  std::vector<Row> rows;  // the table, in no particular order
  Instant clock{1000, 0};
  std::vector<QuerySpec> queries;

  std::vector<TableRef> listTables(const std::vector<std::string>&, const std::string&) override {
    return {{"db", "public", "t"}};
  }
  TableInfo describe(const TableRef&) override {
    return {{{"id", false, false}, {"ts", false, false}}, {"id"}, "id"};
  }
  Instant now() override { return clock; }
  std::string placeholder(int n) const override { return "$" + std::to_string(n); }
  std::string timestampExpression(const std::string& c, bool zoneless) const override {
    return zoneless ? "(" + c + " AT TIME ZONE 'X')" : c;
  }
  // Evaluates the mode's conditions over `rows` as the SQL would.
  std::unique_ptr<RowCursor> query(const QuerySpec& spec) override;
};

class ScriptedCursor final : public RowCursor {
 public:
  explicit ScriptedCursor(std::deque<FetchedRow> rows) : rows_(std::move(rows)) {
    fields_ = {{"id", Schema::of(Schema::Type::kInt64)},
               {"ts", Schema::of(Schema::Type::kInt64, true)}};
  }
  const std::vector<Schema::Field>& columns() const override { return fields_; }
  bool fetch(size_t max, std::vector<FetchedRow>& out) override {
    for (size_t i = 0; i < max; ++i) {
      if (rows_.empty()) return false;
      out.push_back(std::move(rows_.front()));
      rows_.pop_front();
    }
    return !rows_.empty();
  }

 private:
  std::deque<FetchedRow> rows_;
  std::vector<Schema::Field> fields_;
};

std::unique_ptr<RowCursor> ScriptedDatabase::query(const QuerySpec& spec) {
  queries.push_back(spec);
  std::vector<Row> match;
  const bool inc = !spec.incrementing_column.empty();
  const bool ts = !spec.timestamp_columns.empty();
  for (const auto& r : rows) {
    if (inc && !ts && r.id <= std::get<int64_t>(spec.params[0])) continue;
    if (ts && !inc &&
        !(r.ts > std::get<Instant>(spec.params[0]) && r.ts < std::get<Instant>(spec.params[1])))
      continue;
    if (ts && inc) {
      const auto end = std::get<Instant>(spec.params[0]);
      const auto begin = std::get<Instant>(spec.params[1]);
      const auto last = std::get<int64_t>(spec.params[2]);
      if (!(r.ts < end && ((r.ts == begin && r.id > last) || r.ts > begin))) continue;
    }
    match.push_back(r);
  }
  std::stable_sort(match.begin(), match.end(), [&](const Row& a, const Row& b) {
    if (ts) return inc ? std::tie(a.ts, a.id) < std::tie(b.ts, b.id) : a.ts < b.ts;
    return inc ? a.id < b.id : false;
  });
  std::deque<FetchedRow> out;
  for (const auto& r : match)
    out.push_back(
        {{Value::integer(r.id), r.ts ? Value::integer(r.ts->epochMillis()) : Value()}, r.ts, r.id});
  return std::make_unique<ScriptedCursor>(std::move(out));
}

JdbcSourceConfig configFor(Mode mode, int batch) {
  JdbcSourceConfig c;
  c.mode = mode;
  c.batch_max_rows = batch;
  c.timestamp_columns = {"ts"};
  c.topic_prefix = "p-";
  c.poll_interval = std::chrono::milliseconds(10);
  return c;
}

// Every record's id and the offset it carries, polling until the querier's query is done.
struct Read {
  std::vector<int64_t> ids;
  std::vector<JdbcOffset> offsets;
};

Read readAll(TableQuerier& q, ScriptedDatabase& db, size_t max_polls = 100) {
  Read out;
  auto now = TableQuerier::Clock::now();
  for (size_t i = 0; i < max_polls; ++i) {
    for (auto& r : q.poll(db, now)) {
      out.ids.push_back(r.value().find("id")->asInt());
      out.offsets.push_back(JdbcOffset::fromMap(*r.sourceOffset()));
      EXPECT_EQ(r.topic(), "p-t");
      EXPECT_EQ(SourceTaskAdapter::offsetKey("c", *r.sourcePartition()),
                R"(["c",{"protocol":"1","table":"db.public.t"}])");
      EXPECT_EQ(r.key().find("id")->asInt(), out.ids.back());
    }
    if (!q.reading()) break;
  }
  return out;
}

TableQuerier querier(const JdbcSourceConfig& config, ScriptedDatabase& db, JdbcOffset start = {}) {
  const TableRef t{"db", "public", "t"};
  return TableQuerier(config, t, db.describe(t), "id", start);
}

Instant at(int64_t seconds) {
  return {seconds, 0};
}

TEST(TableQuerierTest, TimestampModeNeverCommitsPastARowThatSharesItsTimestampWithAnUnreadOne) {
  ScriptedDatabase db;
  db.clock = at(100);
  // Five rows at t=10, two at t=20, one at t=30; batches of two rows end inside the group at 10.
  for (int64_t id = 1; id <= 5; ++id) db.rows.push_back({id, at(10)});
  db.rows.push_back({6, at(20)});
  db.rows.push_back({7, at(20)});
  db.rows.push_back({8, at(30)});
  const auto config = configFor(Mode::kTimestamp, 2);
  auto q = querier(config, db);
  const auto read = readAll(q, db);
  ASSERT_EQ(read.ids, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  // Until the last row at 10 no record carries 10; the last row at 20 carries 20.
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(read.offsets[i].timestamp) << i;
  EXPECT_EQ(read.offsets[4].timestamp, at(10));
  EXPECT_EQ(read.offsets[5].timestamp, at(10));
  EXPECT_EQ(read.offsets[6].timestamp, at(20));
  EXPECT_EQ(read.offsets[7].timestamp, at(30));

  // A restart from any record's offset reads every row after it again: none is lost.
  for (size_t k = 0; k < read.offsets.size(); ++k) {
    auto again = querier(config, db, read.offsets[k]);
    const auto rest = readAll(again, db);
    std::set<int64_t> seen(read.ids.begin(), read.ids.begin() + static_cast<long>(k) + 1);
    seen.insert(rest.ids.begin(), rest.ids.end());
    EXPECT_EQ(seen.size(), 8u) << "restart after record " << k;
  }
}

TEST(TableQuerierTest, TimestampModeReadsOnlyRowsOlderThanTheDelay) {
  ScriptedDatabase db;
  db.clock = at(100);
  db.rows = {{1, at(50)}, {2, at(98)}, {3, at(99)}};
  auto config = configFor(Mode::kTimestamp, 10);
  config.timestamp_delay = std::chrono::milliseconds(1500);  // end = 98.5 s
  auto q = querier(config, db);
  EXPECT_EQ(readAll(q, db).ids, (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(db.queries.size(), 1u);
  EXPECT_EQ(std::get<Instant>(db.queries[0].params[1]), (Instant{98, 500000000}));
  EXPECT_EQ(
      db.queries[0].sql,
      R"(SELECT "id", "ts" FROM "public"."t" WHERE "ts" > $1 AND "ts" < $2 ORDER BY "ts" ASC)");
}

TEST(TableQuerierTest, IncrementingModeCarriesEachRowsValueAndResumesAfterIt) {
  ScriptedDatabase db;
  for (int64_t id : {5, 1, 3, 2, 4}) db.rows.push_back({id, std::nullopt});
  const auto config = configFor(Mode::kIncrementing, 2);
  auto q = querier(config, db);
  const auto read = readAll(q, db);
  EXPECT_EQ(read.ids, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(read.offsets[2].incrementing, 3);
  EXPECT_FALSE(read.offsets[2].timestamp);
  auto again = querier(config, db, read.offsets[2]);
  EXPECT_EQ(readAll(again, db).ids, (std::vector<int64_t>{4, 5}));
  // The querier reads again only after poll.interval.ms, from where it stopped.
  db.rows.push_back({6, std::nullopt});
  EXPECT_FALSE(q.due(TableQuerier::Clock::now() - std::chrono::hours(1)));
  EXPECT_EQ(readAll(q, db).ids, (std::vector<int64_t>{6}));
  EXPECT_EQ(std::get<int64_t>(db.queries.back().params[0]), 5);
}

TEST(TableQuerierTest, TimestampIncrementingModeResumesInsideATimestamp) {
  ScriptedDatabase db;
  db.clock = at(100);
  db.rows = {{3, at(10)}, {1, at(10)}, {2, at(20)}, {4, at(10)}};
  const auto config = configFor(Mode::kTimestampIncrementing, 2);
  auto q = querier(config, db);
  const auto read = readAll(q, db);
  EXPECT_EQ(read.ids, (std::vector<int64_t>{1, 3, 4, 2}));
  EXPECT_EQ(read.offsets[1], (JdbcOffset{at(10), 3}));
  auto again = querier(config, db, read.offsets[1]);
  EXPECT_EQ(readAll(again, db).ids, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(
      db.queries.back().sql,
      R"(SELECT "id", "ts" FROM "public"."t" WHERE "ts" < $1 AND (("ts" = $2 AND "id" > $3) OR "ts" > $4) ORDER BY "ts","id" ASC)");
}

// A database whose writers commit out of order: `committed` rows are visible, `open` are the
// transactions running (the horizon sees them; their rows are not visible yet).
class ConcurrentDatabase final : public SourceDatabase {
 public:
  std::vector<ScriptedDatabase::Row> committed;
  std::vector<std::string> open;
  ScriptedDatabase inner;
  int horizons = 0;

  std::vector<TableRef> listTables(const std::vector<std::string>& t,
                                   const std::string& s) override {
    return inner.listTables(t, s);
  }
  TableInfo describe(const TableRef& t) override { return inner.describe(t); }
  Instant now() override { return inner.clock; }
  std::string placeholder(int n) const override { return inner.placeholder(n); }
  std::string timestampExpression(const std::string& c, bool z) const override {
    return inner.timestampExpression(c, z);
  }
  bool commitsOutOfOrder() const override { return true; }
  Horizon horizon(const std::string& from, const std::string& inc, bool timestamps) override {
    ++horizons;
    EXPECT_EQ(from, R"("public"."t")");
    Horizon h;
    for (const auto& r : committed) {
      if (!inc.empty()) h.incrementing_bound = std::max(h.incrementing_bound.value_or(0), r.id);
    }
    if (timestamps) h.timestamp_bound = inner.clock;
    h.open = open;
    return h;
  }
  std::unique_ptr<RowCursor> query(const QuerySpec& spec) override {
    inner.rows = committed;
    auto rows = inner.query(spec);
    // The bound the horizon set: the scripted database filters by it as PostgreSQL would.
    if (spec.params.size() == 2 && std::holds_alternative<int64_t>(spec.params[1])) {
      const auto bound = std::get<int64_t>(spec.params[1]);
      inner.rows.erase(std::remove_if(inner.rows.begin(), inner.rows.end(),
                                      [&](const auto& r) { return r.id > bound; }),
                       inner.rows.end());
      rows = inner.query(spec);
    }
    return rows;
  }
};

TEST(TableQuerierTest, WithTheCommitHorizonARowCommittedBehindALaterOneIsNotSkipped) {
  for (const bool horizon : {true, false}) {
    ConcurrentDatabase db;
    auto config = configFor(Mode::kIncrementing, 10);
    config.commit_horizon = horizon;
    // Transaction T1 took id 1 and is still open; T2 took id 2 and committed.
    db.committed = {{2, std::nullopt}};
    db.open = {"3/7"};
    const TableRef t{"db", "public", "t"};
    TableQuerier q(config, t, db.inner.describe(t), "id", {});
    std::vector<int64_t> ids;
    auto poll = [&] {
      for (auto& r : q.poll(db, TableQuerier::Clock::now()))
        ids.push_back(r.value().find("id")->asInt());
    };
    poll();
    if (horizon) {
      EXPECT_TRUE(ids.empty()) << "read past an open transaction";
      EXPECT_EQ(db.inner.queries.size(), 0u);
    } else {
      EXPECT_EQ(ids, (std::vector<int64_t>{2}));
    }
    // T1 commits; another transaction T3 (id 3, open) began meanwhile.
    db.committed = {{1, std::nullopt}, {2, std::nullopt}};
    db.open = {"4/9"};
    poll();
    if (horizon) {
      // The first horizon (bound 2, T1 open) settled: T1 ended. T3's row is beyond it.
      EXPECT_EQ(ids, (std::vector<int64_t>{1, 2}));
      EXPECT_EQ(
          db.inner.queries.back().sql,
          R"(SELECT "id", "ts" FROM "public"."t" WHERE "id" > $1 AND "id" <= $2 ORDER BY "id" ASC)");
    } else {
      EXPECT_EQ(ids, (std::vector<int64_t>{2})) << "the JDBC source's blind spot: 1 is skipped";
    }
  }
}

TEST(TableQueryTest, BulkQueryModeCoalesceZonelessColumnsAndTheSuffix) {
  ScriptedDatabase db;
  auto config = configFor(Mode::kBulk, 10);
  config.query_suffix = "FOR SHARE";
  const TableRef t{"", "", "weird\"name"};
  const TableInfo info{{{"a", true, false}, {"b", true, true}}, {}, ""};
  EXPECT_EQ(TableQuery::build(config, db, t, &info, "", {}, std::nullopt).sql,
            R"(SELECT "a", ("b" AT TIME ZONE 'X') AS "b" FROM "weird""name" FOR SHARE)");
  config = configFor(Mode::kTimestamp, 10);
  config.timestamp_columns = {"a", "b"};
  config.query = "SELECT * FROM v";
  const auto spec = TableQuery::build(config, db, std::nullopt, nullptr, "", {}, at(5));
  EXPECT_EQ(
      spec.sql,
      R"(SELECT * FROM v WHERE COALESCE("a", "b") > $1 AND COALESCE("a", "b") < $2 ORDER BY COALESCE("a", "b") ASC)");
  EXPECT_EQ(std::get<Instant>(spec.params[0]), Instant{});
}

}  // namespace
}  // namespace ksink::jdbc
