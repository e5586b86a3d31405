// The table sources in `ksink run` processes, configured as a Confluent JDBC source
// (connector.class=io.confluent.connect.jdbc.JdbcSourceConnector, claimed by connection.url),
// against a real PostgreSQL 15, SQLite files and the real broker:
//   - every mode streams a table's rows, picks up inserts (and, with a timestamp, updates) while
//     running, and resumes after a graceful restart at its stored offset, nothing missed;
//   - kill -9 in the middle of a table whose rows share timestamps loses no row;
//   - offsets a Confluent JDBC source wrote (protocol 1 with the database in the name, the
//     schema.table form of older drivers, the legacy bare name) are resumed, and the offsets
//     ksink writes are the JDBC source's bytes;
//   - a table round-trips through Kafka into another table, row for row and value for value,
//     through ksink's own sink in the same process; a LATIN1 database's text as UTF-8 and back;
//   - the PostgreSQL cursor's batch read ahead survives the other statements a task runs between
//     two batches (PgSourceDatabase on its own).
#include <SQLiteCpp/Database.h>
#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "child_process.h"
#include "free_port.h"
#include "ksink/pg/pg_connection_url.h"
#include "pg_source_database.h"
#include "polling.h"
#include "sqlite_query.h"
#include "test_kafka.h"
#include "test_postgres.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr int kFlushIntervalMs = 300;

// A `ksink run` of one or more connector files, with offsets in a topic of its own.
class JdbcSourceProcess {
 public:
  JdbcSourceProcess(fs::path dir, std::string name)
      : dir_(std::move(dir)), name_(std::move(name)), offsets_topic_(name_ + "-offsets") {
    RealKafka::shared().createTopic(offsets_topic_, 1, {{"cleanup.policy", "compact"}});
  }

  std::unique_ptr<ChildProcess> start(const std::string& tag,
                                      const std::vector<std::string>& connectors) {
    const auto worker = dir_ / "worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nexit.on.task.failure=true\noffset.storage.topic={}\noffset.storage."
        "replication.factor=1\n"
        "offset.flush.interval.ms={}\nlisteners=\n",
        RealKafka::shared().bootstrap(), offsets_topic_, kFlushIntervalMs);
    std::vector<std::string> argv{KSINK_BIN, "run", worker.string()};
    for (size_t i = 0; i < connectors.size(); ++i) {
      const auto file = dir_ / fmt::format("{}-{}.properties", tag, i);
      std::ofstream(file) << connectors[i];
      argv.push_back(file.string());
    }
    return std::make_unique<ChildProcess>(argv, dir_ / (tag + ".log"));
  }

  static void stop(ChildProcess& ksink) {
    ASSERT_TRUE(waitUntil([&] { return ksink.log().find("started") != std::string::npos; }, 30s))
        << ksink.log();
    ksink.signal(SIGTERM);
    ASSERT_EQ(ksink.wait(30s), 0) << ksink.log();
  }

  const std::string& offsetsTopic() const { return offsets_topic_; }

 private:
  fs::path dir_;
  std::string name_;
  std::string offsets_topic_;
};

// The records of a topic (one partition: the topics are created so), values as JSON without the
// schema envelope.
std::vector<test::ConsumedRecord> records(const std::string& topic) {
  const auto end = RealKafka::shared().endOffset({topic, 0});
  return test::readPartition(RealKafka::shared().bootstrap(), topic, 0, static_cast<size_t>(end),
                             30s);
}

int64_t field(const std::string& json, const std::string& name) {
  const std::regex re("\"" + name + "\":(-?[0-9]+)");
  std::smatch m;
  if (!std::regex_search(json, m, re)) return -1;
  return std::stoll(m[1].str());
}

// How many records of each id the topic holds.
std::map<int64_t, int> idCounts(const std::string& topic) {
  std::map<int64_t, int> out;
  for (const auto& r : records(topic)) ++out[field(r.value.value_or(""), "id")];
  return out;
}

bool hasIds(const std::string& topic, int64_t from, int64_t to) {
  const auto counts = idCounts(topic);
  for (int64_t i = from; i <= to; ++i)
    if (!counts.contains(i)) return false;
  return true;
}

std::string connector(const std::string& name, const std::string& url, const std::string& extra) {
  return fmt::format(
      "name={}\nconnector.class=io.confluent.connect.jdbc.JdbcSourceConnector\n"
      "connection.url={}\npoll.interval.ms=200\nbatch.max.rows=7\n"
      "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
      "value.converter.schemas.enable=false\n"
      "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
      "key.converter.schemas.enable=false\n{}",
      name, url, extra);
}

// --- PostgreSQL ------------------------------------------------------------------------------

class PgSourceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = TestPostgres::shared().freshSchema("jdbcsrc");
    dir_ = freshDir("jdbc-source");
    name_ = uniqueName("jdbc-src");
    prefix_ = name_ + "-";
    process_ = std::make_unique<JdbcSourceProcess>(dir_, name_);
  }
  std::string topic(const std::string& table) const { return prefix_ + table; }
  std::string source(const std::string& extra) const {
    return connector(
        name_, schema_->url(),
        fmt::format("topic.prefix={}\nschema.pattern={}\n{}", prefix_, schema_->name(), extra));
  }
  std::string database() { return *schema_->scalar("SELECT current_database()"); }

  std::unique_ptr<PgTestSchema> schema_;
  fs::path dir_;
  std::string name_, prefix_;
  std::unique_ptr<JdbcSourceProcess> process_;
};

class PgJdbcSourceTest : public PgSourceFixture,
                         public ::testing::WithParamInterface<std::string> {};

// Rows id 1..n of `items`, five to a timestamp (the timestamp modes must keep such groups whole).
void insertItems(PgTestSchema& db, int from, int to, const std::string& day = "2024-01-01") {
  db.exec(fmt::format(
      "INSERT INTO items (id, name, updated_at) SELECT i, 'item-' || i, TIMESTAMP '{}' + "
      "(i / 5) * INTERVAL '1 second' FROM generate_series({}, {}) i",
      day, from, to));
}

TEST_P(PgJdbcSourceTest, EveryModeStreamsInsertsAndUpdatesAndResumesAfterARestart) {
  const std::string mode = GetParam();
  schema_->exec(
      "CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, updated_at timestamp NOT "
      "NULL)");
  RealKafka::shared().createTopic(topic("items"), 1);
  insertItems(*schema_, 1, 40);
  const auto props = source(fmt::format(
      "mode={}\nincrementing.column.name=id\ntimestamp.column.name=updated_at\n", mode));
  auto first = process_->start("first", {props});
  ASSERT_TRUE(waitUntil([&] { return hasIds(topic("items"), 1, 40); }, 60s)) << first->log();
  // Later rows carry later timestamps (a row committed with an earlier one than what was read is
  // the out-of-order case timestamp modes cannot see).
  insertItems(*schema_, 41, 65, "2024-01-02");
  ASSERT_TRUE(waitUntil([&] { return hasIds(topic("items"), 41, 65); }, 60s)) << first->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*first));

  insertItems(*schema_, 66, 80, "2024-01-03");
  // Updates move a row's timestamp past every other: the timestamp modes read it again.
  schema_->exec(
      "UPDATE items SET name = 'changed', updated_at = TIMESTAMP '2025-01-01' WHERE id "
      "<= 3");
  auto second = process_->start("second", {props});
  ASSERT_TRUE(waitUntil([&] { return hasIds(topic("items"), 66, 80); }, 60s)) << second->log();
  if (mode != "incrementing") {
    ASSERT_TRUE(waitUntil(
        [&] {
          int changed = 0;
          for (const auto& r : records(topic("items")))
            changed += r.value->find("\"changed\"") != std::string::npos;
          return changed == 3;
        },
        60s))
        << second->log();
  }
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*second));

  const auto counts = idCounts(topic("items"));
  for (int64_t id = 1; id <= 80; ++id) {
    ASSERT_TRUE(counts.contains(id)) << id << " is missing";
    // Nothing read twice across the graceful restart (an updated row comes once more).
    EXPECT_EQ(counts.at(id), id <= 3 && mode != "incrementing" ? 2 : 1) << id;
  }
  // Keys are the primary key.
  const auto all = records(topic("items"));
  EXPECT_EQ(all.front().key, R"({"id":1})");
}

INSTANTIATE_TEST_SUITE_P(Modes, PgJdbcSourceTest,
                         ::testing::Values("incrementing", "timestamp", "timestamp+incrementing"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '+', '_');
                           return n;
                         });

TEST_F(PgJdbcSourceTest, BulkModeReadsTheWholeTableEveryPoll) {
  schema_->exec("CREATE TABLE items (id bigint, name text, updated_at timestamp)");
  RealKafka::shared().createTopic(topic("items"), 1);
  insertItems(*schema_, 1, 10);
  auto ksink = process_->start("bulk", {source("mode=bulk\npoll.interval.ms=500\n")});
  ASSERT_TRUE(waitUntil([&] { return records(topic("items")).size() >= 30; }, 60s)) << ksink->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));
  for (const auto& [id, n] : idCounts(topic("items"))) EXPECT_GE(n, 3) << id;
  EXPECT_FALSE(records(topic("items")).front().key) << "no primary key: no key";
}

TEST_F(PgJdbcSourceTest, KillNineAmidRowsSharingTimestampsLosesNoRowAndResumesAtTheCommit) {
  constexpr int kRows = 12000;
  constexpr int kPerTimestamp = 50;
  schema_->exec(
      "CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, updated_at "
      "timestamp NOT NULL)");
  RealKafka::shared().createTopic(topic("items"), 1);
  // A writer adds fifty rows to a timestamp, a timestamp every 25 ms or so; the source reads
  // them in batches of seven, so most batches end inside a group.
  std::atomic<bool> written{false};
  std::thread writer([&] {
    PgTestSchema db(TestPostgres::shared().url(), schema_->name());
    for (int g = 0; g < kRows / kPerTimestamp; ++g) {
      db.exec(fmt::format(
          "INSERT INTO items SELECT i, 'item-' || i, TIMESTAMP '2024-01-01' + {} * INTERVAL "
          "'1 second' FROM generate_series({}, {}) i",
          g, g * kPerTimestamp + 1, (g + 1) * kPerTimestamp));
      std::this_thread::sleep_for(25ms);
    }
    written = true;
  });
  struct Join {
    std::thread& t;
    ~Join() { t.join(); }
  } join{writer};
  const auto props = source("mode=timestamp\ntimestamp.column.name=updated_at\n");
  // The timestamp (seconds after 2024-01-01) of the table's newest committed offset; -1: none.
  constexpr int64_t kBase = 1704067200;
  const auto key = fmt::format(R"(["{}",{{"protocol":"1","table":"{}.{}.items"}}])", name_,
                               database(), schema_->name());
  auto committedSeconds = [&]() -> int64_t {
    int64_t out = -1;
    for (const auto& r : records(process_->offsetsTopic()))
      if (r.key == key && r.value) out = field(*r.value, "timestamp") / 1000 - kBase;
    return out;
  };
  std::vector<int64_t> committed;
  for (int round = 0; round < 2; ++round) {
    auto ksink = process_->start(fmt::format("kill-{}", round), {props});
    const int64_t before = committed.empty() ? -1 : committed.back();
    // Killed right after a commit of its own, in the middle of the table.
    ASSERT_TRUE(waitUntil([&] { return committedSeconds() > before; }, 60s, 20ms)) << ksink->log();
    committed.push_back(committedSeconds());
    ksink->signal(SIGKILL);
    ksink->wait(10s);
  }
  ASSERT_LT(committed.back(), kRows / kPerTimestamp - 1) << "the table was read before the kills";
  ASSERT_TRUE(waitUntil([&] { return written.load(); }, 60s));
  auto last = process_->start("last", {props});
  ASSERT_TRUE(waitUntil([&] { return hasIds(topic("items"), 1, kRows); }, 120s))
      << "ids in the topic: " << idCounts(topic("items")).size() << "\n"
      << last->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*last));
  // Nothing lost; rows up to the first kill's commit were read once (each restart resumed after
  // its commit), up to the second's at most twice.
  int duplicates = 0;
  for (const auto& [id, n] : idCounts(topic("items"))) {
    duplicates += n - 1;
    const int64_t seconds = (id - 1) / kPerTimestamp;
    if (seconds <= committed[0]) {
      EXPECT_EQ(n, 1) << id;
    } else if (seconds <= committed[1]) {
      EXPECT_LE(n, 2) << id;
    }
  }
  RecordProperty("duplicates_after_2_kills", duplicates);
}

TEST_F(PgJdbcSourceTest, OffsetsAConfluentJdbcSourceLeftAreResumedAndWrittenAsItWritesThem) {
  for (const char* t : {"t1", "t2", "t3"}) {
    schema_->exec(fmt::format(
        "CREATE TABLE {0} (id serial PRIMARY KEY, v text); INSERT INTO {0} (v) SELECT 'x' FROM "
        "generate_series(1, 10)",
        t));
    RealKafka::shared().createTopic(topic(t), 1);
  }
  // What Confluent's JDBC source stores, in the bytes its JsonConverter writes: protocol 1 with
  // the database in the name (pgjdbc 42.7.5 and later), with only schema.table (drivers before
  // it), and the legacy partition of the table's bare name (before protocol 1).
  const auto db = database();
  const auto& s = schema_->name();
  RealKafka::shared().produce(
      process_->offsetsTopic(),
      {{0, fmt::format(R"(["{}",{{"protocol":"1","table":"{}.{}.t1"}}])", name_, db, s),
        R"({"incrementing":4})"},
       {0, fmt::format(R"(["{}",{{"protocol":"1","table":"{}.t2"}}])", name_, s),
        R"({"incrementing":6})"},
       {0, fmt::format(R"(["{}",{{"table":"t3"}}])", name_), R"({"incrementing":8})"}});
  auto ksink = process_->start("resume", {source("mode=incrementing\n")});
  ASSERT_TRUE(waitUntil(
      [&] {
        return hasIds(topic("t1"), 5, 10) && hasIds(topic("t2"), 7, 10) &&
               hasIds(topic("t3"), 9, 10);
      },
      60s))
      << ksink->log();
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * kFlushIntervalMs));
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));
  EXPECT_EQ(idCounts(topic("t1")).size(), 6u);
  EXPECT_EQ(idCounts(topic("t2")).size(), 4u);
  EXPECT_EQ(idCounts(topic("t3")).size(), 2u);

  // The newest entry for t1 is the JDBC source's key and value bytes.
  std::map<std::string, std::string> latest;
  for (const auto& r : records(process_->offsetsTopic()))
    if (r.key && r.value) latest[*r.key] = *r.value;
  const auto key = fmt::format(R"(["{}",{{"protocol":"1","table":"{}.{}.t1"}}])", name_, db, s);
  ASSERT_TRUE(latest.contains(key)) << "offsets topic keys: " << latest.size();
  EXPECT_EQ(latest.at(key), R"({"incrementing":10})");
  EXPECT_TRUE(latest.contains(
      fmt::format(R"(["{}",{{"protocol":"1","table":"{}.{}.t3"}}])", name_, db, s)));
}

TEST_F(PgJdbcSourceTest, ATableRoundTripsThroughKafkaIntoAnotherTableValueForValue) {
  schema_->exec(R"(
    CREATE TABLE src (
      id bigint PRIMARY KEY, small smallint, i integer, big bigint, r real, d double precision,
      flag boolean, price numeric(12,3), amount numeric, label varchar(20), body text,
      raw bytea, day date, at_time time, local_ts timestamp, zoned_ts timestamptz, u uuid,
      doc jsonb, ints integer[], words text[]);
    INSERT INTO src SELECT i, (i % 100)::smallint, i * 1000, i * 10000000000, i / 4.0,
      i / 3.0, i % 2 = 0, i * 1.125, (i * 7) / 3.0 + 0.5, 'label-' || i, repeat('x', i),
      decode(md5(i::text), 'hex'), DATE '2024-02-29' + i, TIME '13:45:07.250' + i * INTERVAL '1 s',
      TIMESTAMP '2024-02-29 13:45:07.123' + i * INTERVAL '1 day',
      TIMESTAMPTZ '2024-02-29 13:45:07.456+02' + i * INTERVAL '1 hour',
      md5(i::text)::uuid, jsonb_build_object('n', i, 'tags', jsonb_build_array('a', i)),
      ARRAY[i, i + 1, NULL], ARRAY['w' || i, 'has "quote", comma']
    FROM generate_series(1, 60) i;
    INSERT INTO src (id) VALUES (1000);  -- every other column NULL
  )");
  RealKafka::shared().createTopic(topic("src"), 1);
  const auto src = connector(name_, schema_->url(),
                             fmt::format("topic.prefix={}\nschema.pattern={}\ntable.whitelist=src\n"
                                         "mode=incrementing\nincrementing.column.name=id\n"
                                         "value.converter.schemas.enable=true\n"
                                         "key.converter.schemas.enable=true\n",
                                         prefix_, schema_->name()));
  const auto sink = fmt::format(
      "name={}-sink\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\n"
      "connection.url={}\ntopics={}\ntable.name.format=copy\nauto.create=true\n"
      "insert.mode=upsert\npk.mode=record_key\n",
      name_, schema_->url(), topic("src"));
  auto ksink = process_->start("round-trip", {src, sink});
  ASSERT_TRUE(waitUntil(
      [&] {
        try {
          return schema_->count("copy") == 61;
        } catch (const std::exception&) {
          return false;  // not created yet
        }
      },
      60s))
      << ksink->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));

  // Every column of every row, compared by value (the copy's types are the sink's: timestamptz
  // for both timestamps, numeric without a scale).
  const auto differing = schema_->query(R"(
    SELECT coalesce(s.id, c.id) FROM src s FULL JOIN copy c ON c.id = s.id
    WHERE s.id IS NULL OR c.id IS NULL
      OR s.small IS DISTINCT FROM c.small OR s.i IS DISTINCT FROM c.i
      OR s.big IS DISTINCT FROM c.big OR s.r IS DISTINCT FROM c.r OR s.d IS DISTINCT FROM c.d
      OR s.flag IS DISTINCT FROM c.flag OR s.price IS DISTINCT FROM c.price
      OR s.amount IS DISTINCT FROM c.amount OR s.label IS DISTINCT FROM c.label
      OR s.body IS DISTINCT FROM c.body OR s.raw IS DISTINCT FROM c.raw
      OR s.day IS DISTINCT FROM c.day OR s.at_time IS DISTINCT FROM c.at_time
      OR (s.local_ts AT TIME ZONE 'UTC') IS DISTINCT FROM c.local_ts
      OR s.zoned_ts IS DISTINCT FROM c.zoned_ts OR s.u IS DISTINCT FROM c.u
      OR s.doc IS DISTINCT FROM c.doc OR s.ints IS DISTINCT FROM c.ints
      OR s.words IS DISTINCT FROM c.words
    ORDER BY 1)");
  std::string ids;
  for (const auto& row : differing) ids += row[0].value_or("?") + " ";
  EXPECT_TRUE(differing.empty()) << "rows that differ: " << ids;
  // The types that carry over as they were (the sink recreates them from the schemas).
  const auto types = schema_->query(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = "
      "current_schema() AND table_name = 'copy' AND column_name IN ('small', 'u', 'doc', 'raw', "
      "'day', 'flag') ORDER BY 1");
  std::string seen;
  for (const auto& row : types) seen += *row[0] + ":" + *row[1] + " ";
  EXPECT_EQ(seen, "day:date doc:jsonb flag:boolean raw:bytea small:smallint u:uuid ");
}

// A database in LATIN1 (as older installations are): its text reaches Kafka as UTF-8, and the
// sink writes it back as the same LATIN1 characters, as pgjdbc's client_encoding=UTF8 has the
// server convert both ways (without it, libpq speaks the database's encoding: the topic held
// bytes that are not UTF-8 and the copy held "cafÃ©").
TEST_F(PgJdbcSourceTest, ALatin1DatabasesTextReachesKafkaAsUtf8AndIsWrittenBack) {
  auto db_name = uniqueName("latin1");
  std::replace(db_name.begin(), db_name.end(), '-', '_');
  schema_->exec(fmt::format(
      "CREATE DATABASE {} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0",
      db_name));
  const std::regex path(R"((://[^/?]*/)[^?]*)");
  const auto url = std::regex_replace(TestPostgres::shared().url(), path, "$1" + db_name);
  // Dropped whatever the assertions below decide (an ASSERT returns early).
  struct DropDatabase {
    PgTestSchema& admin;
    std::string name;
    ~DropDatabase() {
      try {
        admin.exec(fmt::format("DROP DATABASE {} WITH (FORCE)", name));
      } catch (const std::exception&) {
      }
    }
  } drop{*schema_, db_name};
  {
    PgTestSchema latin1(url, "public");
    // "café ü" in LATIN1 bytes, whatever this test connection's own encoding.
    latin1.exec(
        "CREATE TABLE src (id integer PRIMARY KEY, s text);"
        "INSERT INTO src VALUES (1, convert_from('\\x636166e920fc'::bytea, 'LATIN1'))");
    RealKafka::shared().createTopic(topic("src"), 1);
    const auto src = connector(name_, url,
                               fmt::format("topic.prefix={}\nschema.pattern=public\n"
                                           "table.whitelist=src\nmode=incrementing\n"
                                           "incrementing.column.name=id\n"
                                           "value.converter.schemas.enable=true\n",
                                           prefix_));
    const auto sink = fmt::format(
        "name={}-sink\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\n"
        "connection.url={}\ntopics={}\ntable.name.format=copy\nauto.create=true\n"
        "insert.mode=upsert\npk.mode=record_value\npk.fields=id\n",
        name_, url, topic("src"));
    auto ksink = process_->start("latin1", {src, sink});
    ASSERT_TRUE(waitUntil(
        [&] {
          try {
            return latin1.count("copy") == 1;
          } catch (const std::exception&) {
            return false;  // not created yet
          }
        },
        60s))
        << ksink->log();
    ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));
    const auto written = records(topic("src"));
    ASSERT_EQ(written.size(), 1u);
    EXPECT_NE(written[0].value.value_or("").find("\"s\":\"caf\xc3\xa9 \xc3\xbc\""),
              std::string::npos)
        << written[0].value.value_or("");
    EXPECT_EQ(latin1.scalar("SELECT encode(convert_to(s, 'LATIN1'), 'hex') FROM copy"),
              "636166e920fc");
  }
}

TEST_F(PgJdbcSourceTest, ATableDroppedWhileReadIsLetGoAndTheOthersGoOn) {
  for (const char* t : {"kept", "dropped"}) {
    schema_->exec(fmt::format("CREATE TABLE {} (id serial PRIMARY KEY, v text)", t));
    RealKafka::shared().createTopic(topic(t), 1);
  }
  schema_->exec("INSERT INTO kept (v) VALUES ('a'); INSERT INTO dropped (v) VALUES ('a')");
  auto ksink = process_->start("drop", {source("mode=incrementing\n")});
  ASSERT_TRUE(
      waitUntil([&] { return hasIds(topic("kept"), 1, 1) && hasIds(topic("dropped"), 1, 1); }, 30s))
      << ksink->log();
  schema_->exec("DROP TABLE dropped; INSERT INTO kept (v) VALUES ('b')");
  ASSERT_TRUE(waitUntil([&] { return hasIds(topic("kept"), 2, 2); }, 30s)) << ksink->log();
  EXPECT_NE(ksink->log().find("is gone"), std::string::npos) << ksink->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));
}

// The cursor sends each FETCH ahead while the rows before it are converted; a statement in
// between (the table listing, the clock, a horizon) takes the batch off the connection first,
// and the cursor returns it next: every row once, in order.
TEST_F(PgJdbcSourceTest, ABatchReadAheadSurvivesOtherStatementsBetweenBatches) {
  schema_->exec(
      "CREATE TABLE seq (id bigint PRIMARY KEY, v text);"
      "INSERT INTO seq SELECT i, 'row ' || i FROM generate_series(1, 1000) i");
  jdbc::PgSourceDatabase db(postgres::PgConnectionUrl(schema_->url()).params("", ""), "UTC", 10s);
  jdbc::QuerySpec spec;
  spec.sql = "SELECT * FROM seq ORDER BY id";
  spec.incrementing_column = "id";
  for (int round = 0; round < 2; ++round) {
    auto cursor = db.query(spec);
    std::vector<jdbc::FetchedRow> rows;
    for (int batch = 0; cursor->fetch(100, rows); ++batch) {
      if (batch % 2 == 0) {
        EXPECT_EQ(db.listTables({"TABLE"}, schema_->name()).size(), 1u);
      }
      if (batch % 3 == 0) db.now();
    }
    ASSERT_EQ(rows.size(), 1000u);
    for (size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i].incrementing, int64_t(i + 1));
    // A newer query takes the connection over: the older cursor cannot read its rows. Left with
    // a batch still under way, the newer one drops the connection; the next query starts clean.
    rows.clear();
    auto abandoned = db.query(spec);
    abandoned->fetch(10, rows);
    EXPECT_THROW(cursor->fetch(10, rows), std::logic_error);
  }
}

// --- commits out of order (PostgreSQL) -------------------------------------------------------

class PgCommitOrderTest : public PgSourceFixture {
 protected:
  void SetUp() override {
    PgSourceFixture::SetUp();
    schema_->exec(
        "CREATE TABLE items (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT "
        "NULL, at timestamptz NOT NULL DEFAULT now())");
    for (const char* p : {"inc-", "ts-"}) RealKafka::shared().createTopic(prefix_ + p + "items", 1);
  }
  // An incrementing and a timestamp connector on the same table.
  std::vector<std::string> connectors(const std::string& horizon) const {
    auto one = [&](const std::string& tag, const std::string& mode) {
      return connector(name_ + "-" + tag, schema_->url(),
                       fmt::format("topic.prefix={}{}-\nschema.pattern={}\n{}\n"
                                   "commit.horizon={}\npoll.interval.ms=100\nbatch.max.rows=50\n",
                                   prefix_, tag, schema_->name(), mode, horizon));
    };
    return {one("inc", "mode=incrementing"), one("ts", "mode=timestamp\ntimestamp.column.name=at")};
  }
  std::string incTopic() const { return prefix_ + "inc-items"; }
  std::string tsTopic() const { return prefix_ + "ts-items"; }
};

// The JDBC source's blind spot, and ksink's default closing it: a transaction takes id 1 (and
// its timestamp) first but commits after others took ids 2..4 and committed.
class PgCommitHorizonTest : public PgCommitOrderTest,
                            public ::testing::WithParamInterface<std::string> {};

TEST_P(PgCommitHorizonTest, ARowCommittedBehindLaterOnesIsReadOnlyWithTheCommitHorizon) {
  const std::string horizon = GetParam();
  PgTestSchema late(TestPostgres::shared().url(), schema_->name());
  late.exec("BEGIN; INSERT INTO items (name) VALUES ('late')");
  schema_->exec("INSERT INTO items (name) VALUES ('early'), ('early'), ('early')");
  auto ksink = process_->start("order", connectors(horizon));
  if (horizon == "none") {
    ASSERT_TRUE(waitUntil([&] { return hasIds(incTopic(), 2, 4) && hasIds(tsTopic(), 2, 4); }, 30s))
        << ksink->log();
  } else {
    std::this_thread::sleep_for(2s);  // twenty polls
    EXPECT_TRUE(idCounts(incTopic()).empty()) << "read past a transaction still open";
    EXPECT_TRUE(idCounts(tsTopic()).empty()) << "read past a transaction still open";
  }
  late.exec("COMMIT");
  if (horizon == "wait") {
    ASSERT_TRUE(waitUntil([&] { return hasIds(incTopic(), 1, 4) && hasIds(tsTopic(), 1, 4); }, 30s))
        << ksink->log();
  } else {
    std::this_thread::sleep_for(2s);
    EXPECT_FALSE(idCounts(incTopic()).contains(1)) << "the JDBC source's way skips id 1";
    EXPECT_FALSE(idCounts(tsTopic()).contains(1)) << "the JDBC source's way skips id 1";
  }
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));
}

INSTANTIATE_TEST_SUITE_P(Horizon, PgCommitHorizonTest, ::testing::Values("none", "wait"));

// A prepared transaction (two-phase commit) holds its rows out of sight with no session behind
// it: the horizon counts it as open until COMMIT PREPARED, then reads its row.
TEST_F(PgCommitOrderTest, APreparedTransactionHoldsTheHorizonUntilItCommits) {
  const auto gid = "ksink_" + schema_->name();
  // Left prepared by a failure, it would hold every later test's horizon on this server.
  struct RollBackIfLeft {
    PgTestSchema& db;
    std::string gid;
    ~RollBackIfLeft() {
      try {
        if (db.scalar("SELECT count(*) FROM pg_prepared_xacts WHERE gid = '" + gid + "'") != "0")
          db.exec("ROLLBACK PREPARED '" + gid + "'");
      } catch (...) {
      }
    }
  } guard{*schema_, gid};
  {
    PgTestSchema preparer(TestPostgres::shared().url(), schema_->name());
    preparer.exec("BEGIN; INSERT INTO items (name) VALUES ('prepared'); PREPARE TRANSACTION '" +
                  gid + "'");
  }  // its session is gone: only pg_prepared_xacts knows the transaction
  schema_->exec("INSERT INTO items (name) VALUES ('early'), ('early'), ('early')");
  auto ksink = process_->start("prepared", connectors("wait"));
  std::this_thread::sleep_for(2s);  // twenty polls
  EXPECT_TRUE(idCounts(incTopic()).empty()) << "read past a prepared transaction";
  EXPECT_TRUE(idCounts(tsTopic()).empty()) << "read past a prepared transaction";
  schema_->exec("COMMIT PREPARED '" + gid + "'");
  ASSERT_TRUE(waitUntil([&] { return hasIds(incTopic(), 1, 4) && hasIds(tsTopic(), 1, 4); }, 30s))
      << ksink->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));
}

TEST_F(PgCommitOrderTest, ConcurrentWritersCommittingOutOfOrderLoseNoRow) {
  auto ksink = process_->start("writers", connectors("wait"));
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      PgTestSchema db(TestPostgres::shared().url(), schema_->name());
      std::mt19937 random(static_cast<unsigned>(w));
      while (!stop) {
        // Two rows a transaction, held open 0–60 ms between them: ids and timestamps are taken
        // in one order and committed in another.
        db.exec("BEGIN; INSERT INTO items (name) VALUES ('w')");
        std::this_thread::sleep_for(std::chrono::milliseconds(random() % 60));
        db.exec("INSERT INTO items (name) VALUES ('w'); COMMIT");
      }
    });
  std::this_thread::sleep_for(5s);
  stop = true;
  for (auto& t : writers) t.join();
  const int64_t rows = std::stoll(*schema_->scalar("SELECT count(*) FROM items"));
  ASSERT_GT(rows, 100);
  ASSERT_TRUE(
      waitUntil([&] { return hasIds(incTopic(), 1, rows) && hasIds(tsTopic(), 1, rows); }, 60s))
      << "incrementing: " << idCounts(incTopic()).size()
      << ", timestamp: " << idCounts(tsTopic()).size() << " of " << rows << "\n"
      << ksink->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));
  RecordProperty("rows", static_cast<int>(rows));
}

// --- SQLite ----------------------------------------------------------------------------------

class SqliteJdbcSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("sqlite-source");
    name_ = uniqueName("sqlite-src");
    prefix_ = name_ + "-";
    file_ = (dir_ / "source.db").string();
    process_ = std::make_unique<JdbcSourceProcess>(dir_, name_);
    exec("PRAGMA journal_mode=WAL");
  }
  void exec(const std::string& sql) {
    SQLite::Database db(file_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(sql);
  }
  std::string topic(const std::string& table) const { return prefix_ + table; }
  std::string source(const std::string& extra) const {
    return connector(name_, "jdbc:sqlite:" + file_,
                     fmt::format("topic.prefix={}\n{}", prefix_, extra));
  }

  fs::path dir_;
  std::string name_, prefix_, file_;
  std::unique_ptr<JdbcSourceProcess> process_;
};

TEST_F(SqliteJdbcSourceTest, IncrementingAndTimestampModesResumeAfterARestart) {
  exec("CREATE TABLE seq (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  exec("CREATE TABLE events (n INTEGER NOT NULL, at TIMESTAMP NOT NULL)");
  RealKafka::shared().createTopic(topic("seq"), 1);
  RealKafka::shared().createTopic(topic("events"), 1);
  auto fill = [&](int from, int to, int shift_seconds) {
    exec(
        fmt::format("WITH RECURSIVE s(i) AS (SELECT {} UNION ALL SELECT i + 1 FROM s WHERE i < "
                    "{}) INSERT INTO seq (id, v) SELECT i, 'v' || i FROM s",
                    from, to));
    // Three events to a millisecond, in SQLite's own text (and ISO 'T' text for some).
    exec(
        fmt::format("WITH RECURSIVE s(i) AS (SELECT {} UNION ALL SELECT i + 1 FROM s WHERE i < "
                    "{}) INSERT INTO events SELECT i, CASE WHEN i % 2 = 0 THEN "
                    "strftime('%Y-%m-%d %H:%M:%f', '2024-01-01', '+' || (i / 3 + {}) || ' "
                    "seconds') ELSE strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || (i / 3 + "
                    "{}) || ' seconds') END FROM s",
                    from, to, shift_seconds, shift_seconds));
  };
  fill(1, 30, 0);
  const auto seq =
      connector(name_ + "-seq", "jdbc:sqlite:" + file_,
                fmt::format("topic.prefix={}\nmode=incrementing\ntable.whitelist=seq\n", prefix_));
  const auto events =
      connector(name_ + "-events", "jdbc:sqlite:" + file_,
                fmt::format("topic.prefix={}\nmode=timestamp\ntimestamp.column.name=at\n"
                            "table.whitelist=events\n",
                            prefix_));
  auto first = process_->start("first", {seq, events});
  ASSERT_TRUE(waitUntil([&] { return hasIds(topic("seq"), 1, 30); }, 60s)) << first->log();
  auto eventCounts = [&] {
    std::map<int64_t, int> out;
    for (const auto& r : records(topic("events"))) ++out[field(*r.value, "n")];
    return out;
  };
  ASSERT_TRUE(waitUntil([&] { return eventCounts().size() == 30; }, 60s)) << first->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*first));
  fill(31, 50, 100);
  auto second = process_->start("second", {seq, events});
  ASSERT_TRUE(waitUntil([&] { return hasIds(topic("seq"), 31, 50); }, 60s)) << second->log();
  ASSERT_TRUE(waitUntil([&] { return eventCounts().size() == 50; }, 60s)) << second->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*second));
  for (const auto& [id, n] : idCounts(topic("seq"))) EXPECT_EQ(n, 1) << id;
  for (const auto& [n, count] : eventCounts()) EXPECT_EQ(count, 1) << n;
  EXPECT_EQ(records(topic("events")).front().value, R"({"n":1,"at":1704067200000})");
}

TEST_F(SqliteJdbcSourceTest, ATableRoundTripsIntoAnotherSqliteFileValueForValue) {
  exec(
      "CREATE TABLE src (id INTEGER PRIMARY KEY, n BIGINT, f DOUBLE, flag BOOLEAN, price "
      "DECIMAL(10,2), label TEXT, raw BLOB, day DATE, at TIMESTAMP)");
  exec(
      "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 40) "
      "INSERT INTO src SELECT i, i * 10000000000, i / 8.0, i % 2, i * 1.25, 'label ' || i, "
      "randomblob(8), date('2024-02-29', '+' || i || ' days'), "
      "strftime('%Y-%m-%d %H:%M:%f', '2024-02-29 13:45:07.250', '+' || i || ' hours') FROM s");
  exec("INSERT INTO src (id) VALUES (1000)");
  RealKafka::shared().createTopic(topic("src"), 1);
  const auto copy = (dir_ / "copy.db").string();
  const auto sink = fmt::format(
      "name={}-sink\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\n"
      "connection.url=jdbc:sqlite:{}\ntopics={}\ntable.name.format=copy\nauto.create=true\n"
      "insert.mode=upsert\npk.mode=record_key\n",
      name_, copy, topic("src"));
  auto ksink = process_->start("round-trip",
                               {source("mode=incrementing\nvalue.converter.schemas.enable=true\n"
                                       "key.converter.schemas.enable=true\n"),
                                sink});
  ASSERT_TRUE(waitUntil(
      [&] {
        try {
          return testing::queryRows(copy, "SELECT count(*) FROM copy")[0][0] == "41";
        } catch (const std::exception&) {
          return false;
        }
      },
      60s))
      << ksink->log();
  ASSERT_NO_FATAL_FAILURE(JdbcSourceProcess::stop(*ksink));
  const auto rows = [&](const std::string& file, const std::string& table) {
    return testing::queryRows(
        file, fmt::format("SELECT id, n, f, flag, price + 0.0, label, hex(raw), day, "
                          "strftime('%Y-%m-%d %H:%M:%f', at) FROM {} ORDER BY id",
                          table));
  };
  EXPECT_EQ(rows(file_, "src"), rows(copy, "copy"));
}

// --- A database that stops answering ----------------------------------------------------------

// The pids of `parent`'s children (a postmaster's backends and helpers).
std::vector<pid_t> childrenOf(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(std::stoi(name));
  }
  return out;
}

// A PostgreSQL server of the test's own, to freeze: its postmaster and every backend SIGSTOPped,
// so connections stay open and acknowledged but nothing answers (and a cancel request too).
class FrozenPostgres {
 public:
  FrozenPostgres() : server_(freshDir("ksink-pg-frozen")) { url_ = server_.start(); }
  ~FrozenPostgres() { thaw(); }
  const std::string& url() const { return url_; }
  void freeze() {
    std::ifstream pidfile(server_.workdir() / "data" / "postmaster.pid");
    pid_t postmaster = 0;
    pidfile >> postmaster;
    ASSERT_GT(postmaster, 0);
    frozen_ = childrenOf(postmaster);
    frozen_.push_back(postmaster);
    for (pid_t pid : frozen_) ::kill(pid, SIGSTOP);
  }
  void thaw() {
    for (pid_t pid : frozen_) ::kill(pid, SIGCONT);
    frozen_.clear();
  }

 private:
  PostgresServerProcess server_;
  std::string url_;
  std::vector<pid_t> frozen_;
};

using test::freePort;

// Issue 36, item 10: SIGTERM while the database stopped answering (a table source waiting in a
// query, a sink in a write): the process ends within task.shutdown.graceful.timeout.ms, its stuck
// tasks abandoned, and /status answers meanwhile. The source's wakeup() used to cancel the query
// with libpq's PQcancel, which waits for the server without a timeout, under the worker's lock.
TEST(JdbcSourceStopTest, AStopEndsWithinTheGracefulTimeoutWhileTheDatabaseDoesNotAnswer) {
  FrozenPostgres pg;
  PgTestSchema db(pg.url(), "public");
  db.exec(
      "CREATE TABLE items (id serial PRIMARY KEY, v text); "
      "INSERT INTO items (v) SELECT 'x' FROM generate_series(1, 20)");
  const auto dir = freshDir("jdbc-frozen");
  const auto name = uniqueName("frozen");
  const auto in = name + "-in";
  RealKafka::shared().createTopic(name + "-items", 1);
  RealKafka::shared().createTopic(in, 1);
  auto produce = [&](int from, int to) {
    std::vector<RealKafka::Message> messages;
    for (int i = from; i < to; ++i)
      messages.push_back({0, std::nullopt, fmt::format(R"({{"id":{}}})", i)});
    RealKafka::shared().produce(in, messages);
  };
  produce(0, 20);
  const int port = freePort();
  const auto worker = dir / "worker.properties";
  std::ofstream(worker) << fmt::format(
      "bootstrap.servers={}\nexit.on.task.failure=true\noffset.storage.topic={}-offsets\noffset."
      "storage.replication.factor=1\n"
      "offset.flush.interval.ms=300\ntask.shutdown.graceful.timeout.ms=5000\n"
      "listeners=http://127.0.0.1:{}\n",
      RealKafka::shared().bootstrap(), name, port);
  const auto source = dir / "source.properties";
  std::ofstream(source) << connector(
      name + "-source", pg.url(),
      fmt::format("mode=incrementing\nincrementing.column.name=id\ntable.whitelist=items\n"
                  "topic.prefix={}-\n",
                  name));
  const auto sink = dir / "sink.properties";
  std::ofstream(sink) << fmt::format(
      "name={}-sink\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\ntopics={}\n"
      "connection.url={}\nauto.create=true\nvalue.converter.schemas.enable=false\n",
      name, in, pg.url());
  ChildProcess ksink({KSINK_BIN, "run", worker.string(), source.string(), sink.string()},
                     dir / "ksink.log");
  const auto sunk = [&](int64_t rows) {
    return db.scalar(fmt::format("SELECT count(*) FROM \"{}\"", in)) == std::to_string(rows);
  };
  ASSERT_TRUE(waitUntil(
      [&] {
        try {
          return records(name + "-items").size() == 20 && sunk(20);
        } catch (const std::exception&) {
          return false;  // the sink's table not there yet
        }
      },
      60s))
      << ksink.log();

  ASSERT_NO_FATAL_FAILURE(pg.freeze());
  produce(20, 30);
  std::this_thread::sleep_for(1s);  // the source's next poll and the sink's next write hang
  const auto stopping = std::chrono::steady_clock::now();
  ksink.signal(SIGTERM);
  // Asked once the stop is under way (the tasks being woken), not before.
  ASSERT_TRUE(
      waitUntil([&] { return ksink.log().find("stopping gracefully") != std::string::npos; }, 5s));
  std::this_thread::sleep_for(500ms);
  httplib::Client status("127.0.0.1", port);
  status.set_read_timeout(3s);
  const auto res = status.Get("/status");
  EXPECT_TRUE(res && res->status == 200) << "/status did not answer during the stop";
  const auto exited = ksink.wait(20s);
  const auto took = std::chrono::steady_clock::now() - stopping;
  pg.thaw();
  ASSERT_TRUE(exited) << "still running 20 s after SIGTERM\n" << ksink.log();
  EXPECT_LT(took, 12s) << "the graceful timeout is 5 s (and a task abandoned then is let go)";
  RecordProperty(
      "stop_ms",
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
}

// Issue 36, item 19: a wrong password (or a server away) is tried again connection.attempts times,
// connection.backoff.ms apart, as Confluent's JDBC source bounds it; /status shows why meanwhile
// (RUNNING, the last error), and then the task fails with the reason. It looked healthy before: one
// warning, then a retry every table.poll.interval.ms (60 s), /status RUNNING without an error.
TEST(JdbcSourceConnectTest, AWrongPasswordIsRetriedBoundedAndShownInStatusThenFailsTheTask) {
  PostgresServerProcess server(freshDir("ksink-pg-scram"), {"KSINK_PG_AUTH=scram"});
  const auto url = server.start();
  std::string password;
  std::ifstream(server.workdir() / "password") >> password;
  ASSERT_FALSE(password.empty());
  const auto dir = freshDir("jdbc-wrong-password");
  const auto name = uniqueName("wrong-pw");
  const int port = freePort();
  const auto worker = dir / "worker.properties";
  std::ofstream(worker) << fmt::format(
      "bootstrap.servers={}\nexit.on.task.failure=true\noffset.storage.topic={}-offsets\noffset."
      "storage.replication.factor=1\n"
      "listeners=http://127.0.0.1:{}\n",
      RealKafka::shared().bootstrap(), name, port);
  const auto source = dir / "source.properties";
  std::ofstream(source) << connector(
      name, url,
      fmt::format("mode=bulk\ntopic.prefix={}-\nconnection.password={}-wrong\n"
                  "connection.attempts=3\nconnection.backoff.ms=1500\n",
                  name, password));
  ChildProcess ksink({KSINK_BIN, "run", worker.string(), source.string()}, dir / "ksink.log");
  const auto started = std::chrono::steady_clock::now();
  httplib::Client status("127.0.0.1", port);
  status.set_read_timeout(2s);
  std::string shown;
  ASSERT_TRUE(waitUntil(
      [&] {
        const auto res = status.Get("/status");
        if (!res || res->status != 200) return false;
        shown = res->body;
        return shown.find("password authentication failed") != std::string::npos;
      },
      10s, 100ms))
      << "/status: " << shown << "\n"
      << ksink.log();
  EXPECT_NE(shown.find(R"("state":"RUNNING")"), std::string::npos) << shown;
  EXPECT_NE(shown.find("attempt 1 of 3"), std::string::npos) << shown;
  const auto exited = ksink.wait(30s);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(exited) << ksink.log();
  EXPECT_NE(*exited, 0);
  EXPECT_NE(ksink.log().find("cannot connect to the database: 3 failed attempts in a row"),
            std::string::npos)
      << ksink.log();
  EXPECT_GE(took, 3s) << "two waits of connection.backoff.ms";
  EXPECT_LT(took, 20s);
}

}  // namespace
}  // namespace ksink::it
