// The SQLite sink against real database files, driven directly (no broker): SQL generation, each
// insert mode, deletes, auto.create/evolve, bad records, fencing, busy files, bad files.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "fake_sink_task_context.h"
#include "ksink/retriable_error.h"
#include "ksink/sqlite/sqlite_sink_task.h"
#include "ksink/sqlite_db/sqlite_failure.h"
#include "sqlite_dialect.h"
#include "sqlite_query.h"

namespace ksink::sqlite {
namespace {

namespace fs = std::filesystem;

class RecordingReporter : public ErrantRecordReporter {
 public:
  void report(const SinkRecord& record, const std::exception& error) override {
    reported.emplace_back(record.offset(), error.what());
  }
  Delivery awaitDelivered() override {
    ++awaited;
    return delivery;
  }
  std::vector<std::pair<int64_t, std::string>> reported;
  Delivery delivery = Delivery::kDelivered;  // what awaitDelivered() answers
  int awaited = 0;
};

using FakeContext = ksink::testing::FakeSinkTaskContext;

class SqliteSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("ksink-sqlite-unit-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_path_ = (dir_ / "out.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<SqliteSinkTask> start(std::map<std::string, std::string> props,
                                        FakeContext& context) {
    props.emplace("name", "conn");
    props.emplace("connection.url", "sqlite://" + db_path_);
    props.emplace("value.converter", "json");
    props.emplace("value.converter.schemas.enable", "false");
    props.emplace("key.converter", "string");
    auto task = std::make_unique<SqliteSinkTask>();
    task->initialize(context);
    task->start(Config(props, SqliteSinkTask::configDef()));
    task->open({{"t", 0}});
    return task;
  }

  ksink::testing::Rows query(const std::string& sql) {
    return ksink::testing::queryRows(db_path_, sql);
  }
  // Runs SQL on the sink's file, as a user preparing the database would.
  void execute(const std::string& sql) {
    SQLite::Database db(db_path_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(sql);
  }
  int64_t storedOffset() {
    auto rows = query("SELECT next_offset FROM ksink_offsets WHERE connector='conn' AND topic='t'");
    return rows.empty() ? -1 : std::stoll(rows[0][0]);
  }

  fs::path dir_;
  std::string db_path_;
};

SinkRecord rec(int64_t offset, std::optional<std::string_view> key,
               std::optional<std::string_view> value) {
  return SinkRecord("t", 0, offset, 0, key, value);
}

TEST(SqliteDialectTest, IdentifiersAreAlwaysQuoted) {
  EXPECT_EQ(quoteIdentifier("a\"b"), "\"a\"\"b\"");
  RecordMapper::Layout layout;
  layout.table = "my table";
  layout.columns = {{"id", Schema::of(Schema::Type::kInt64), true},
                    {"select", Schema::of(Schema::Type::kString, true), false}};
  layout.key_count = 1;
  EXPECT_EQ(
      SqliteDialect::createTable(layout),
      R"(CREATE TABLE IF NOT EXISTS "my table" ("id" INTEGER NOT NULL, "select" TEXT, PRIMARY KEY("id")))");
  EXPECT_EQ(SqliteDialect::write(layout, TableSinkConfig::InsertMode::kInsert),
            R"(INSERT INTO "my table" ("id","select") VALUES (?,?))");
  EXPECT_EQ(
      SqliteDialect::write(layout, TableSinkConfig::InsertMode::kUpsert),
      R"(INSERT INTO "my table" ("id","select") VALUES (?,?) ON CONFLICT("id") DO UPDATE SET "select"=excluded."select")");
  EXPECT_EQ(SqliteDialect::write(layout, TableSinkConfig::InsertMode::kUpdate),
            R"(UPDATE "my table" SET "select"=? WHERE "id"=?)");
  EXPECT_EQ(SqliteDialect::remove(layout), R"(DELETE FROM "my table" WHERE "id"=?)");
  EXPECT_EQ(SqliteDialect::addColumn("my table", layout.columns[1]),
            R"(ALTER TABLE "my table" ADD COLUMN "select" TEXT)");
}

TEST(SqliteDialectTest, AStringDefaultIsOneQuotedLiteral) {
  EXPECT_EQ(quoteLiteral(R"(it's "x" 'y')"), R"('it''s "x" ''y''')");
  auto with_default = std::make_shared<Schema>(*Schema::of(Schema::Type::kString, true));
  with_default->default_value = std::make_shared<const Value>(Value::string("o'clock"));
  RecordMapper::Layout layout;
  layout.table = "t";
  layout.columns = {{"note", with_default, false}};
  EXPECT_EQ(SqliteDialect::createTable(layout),
            R"(CREATE TABLE IF NOT EXISTS "t" ("note" TEXT DEFAULT 'o''clock'))");
}

TEST(SqliteDialectTest, TypesAndAffinities) {
  Schema decimal;
  decimal.type = Schema::Type::kBytes;
  decimal.name = std::string(Schema::kDecimalName);
  EXPECT_EQ(SqliteDialect::columnType(decimal), "NUMERIC");
  EXPECT_EQ(SqliteDialect::columnType(*Schema::of(Schema::Type::kBoolean)), "INTEGER");
  EXPECT_EQ(SqliteDialect::columnType(*Schema::of(Schema::Type::kFloat32)), "REAL");
  EXPECT_EQ(SqliteDialect::columnType(*Schema::of(Schema::Type::kBytes)), "BLOB");
  EXPECT_EQ(SqliteDialect::affinity("VARCHAR(20)"), SqliteDialect::Affinity::kText);
  EXPECT_EQ(SqliteDialect::affinity("BIGINT"), SqliteDialect::Affinity::kInteger);
  EXPECT_EQ(SqliteDialect::affinity("DOUBLE"), SqliteDialect::Affinity::kReal);
  EXPECT_EQ(SqliteDialect::affinity(""), SqliteDialect::Affinity::kBlob);
  EXPECT_EQ(SqliteDialect::affinity("DATE"), SqliteDialect::Affinity::kNumeric);
}

TEST(SqliteFailureTest, ResultCodesSortIntoRetriableBadRecordAndFatal) {
  EXPECT_EQ(sqliteFailure(SQLITE_BUSY), WriteFailure::kRetriable);
  EXPECT_EQ(sqliteFailure(SQLITE_BUSY_SNAPSHOT), WriteFailure::kRetriable);  // extended
  EXPECT_EQ(sqliteFailure(SQLITE_LOCKED), WriteFailure::kRetriable);
  EXPECT_EQ(sqliteFailure(SQLITE_FULL), WriteFailure::kRetriable);
  EXPECT_EQ(sqliteFailure(SQLITE_CONSTRAINT_UNIQUE), WriteFailure::kBadData);
  EXPECT_EQ(sqliteFailure(SQLITE_MISMATCH), WriteFailure::kBadData);
  EXPECT_EQ(sqliteFailure(SQLITE_TOOBIG), WriteFailure::kBadData);
  EXPECT_EQ(sqliteFailure(SQLITE_IOERR_WRITE), WriteFailure::kFatal);
  EXPECT_EQ(sqliteFailure(SQLITE_CORRUPT), WriteFailure::kFatal);
  EXPECT_EQ(sqliteFailure(SQLITE_NOTADB), WriteFailure::kFatal);
}

TEST(SqliteSinkUrlTest, AcceptsSqliteJdbcAndPlainPaths) {
  EXPECT_EQ(SqliteSinkTask::pathFromUrl("sqlite:///var/x.db"), "/var/x.db");
  EXPECT_EQ(SqliteSinkTask::pathFromUrl("sqlite:rel.db"), "rel.db");
  EXPECT_EQ(SqliteSinkTask::pathFromUrl("jdbc:sqlite:/a/b.db"), "/a/b.db");
  EXPECT_EQ(SqliteSinkTask::pathFromUrl("/a/b.db"), "/a/b.db");
  EXPECT_THROW(SqliteSinkTask::pathFromUrl("postgresql://h/db"), ConfigException);
}

TEST_F(SqliteSinkTest, InsertModeAutoCreatesTheTableAndStoresOffsetsWithTheRows) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"}, {"pk.mode", "kafka"}}, ctx);
  const std::vector<SinkRecord> batch = {rec(0, std::nullopt, R"({"id":1,"name":"a","p":1.5})"),
                                         rec(1, std::nullopt, R"({"id":2,"name":"b","p":2})")};
  task->put(batch);
  EXPECT_EQ(
      query(R"(SELECT "__connect_offset", id, name, p FROM "t" ORDER BY 1)"),
      (std::vector<std::vector<std::string>>{{"0", "1", "a", "1.5"}, {"1", "2", "b", "2.0"}}));
  EXPECT_EQ(storedOffset(), 2);
  EXPECT_EQ(task->preCommit({{{"t", 0}, 2}}), (OffsetMap{{{"t", 0}, 2}}));
  EXPECT_EQ(query("PRAGMA journal_mode")[0][0], "wal");
  task->stop();
}

TEST_F(SqliteSinkTest, ReopeningRewindsToTheStoredOffset) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"}}, ctx);
  task->put(std::vector<SinkRecord>{rec(41, std::nullopt, R"({"a":1})")});
  task->stop();
  FakeContext again;
  auto task2 = start({}, again);
  EXPECT_EQ(again.rewinds, (OffsetMap{{{"t", 0}, 42}}));
}

TEST_F(SqliteSinkTest, UpsertUpdatesByKeyAndTombstonesDelete) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"},
                     {"insert.mode", "upsert"},
                     {"pk.mode", "record_key"},
                     {"pk.fields", "id"},
                     {"delete.enabled", "true"}},
                    ctx);
  task->put(std::vector<SinkRecord>{rec(0, "a", R"({"v":1})"), rec(1, "b", R"({"v":2})"),
                                    rec(2, "c", R"({"v":3})")});
  task->put(std::vector<SinkRecord>{rec(3, "a", R"({"v":10})"), rec(4, "b", std::nullopt),
                                    rec(5, "b", std::nullopt)});
  EXPECT_EQ(query(R"(SELECT id, v FROM "t" ORDER BY id)"),
            (std::vector<std::vector<std::string>>{{"a", "10"}, {"c", "3"}}));
  EXPECT_EQ(storedOffset(), 6);
}

// Issue 36, item 2: records of one key with other columns, and deletes between them, in one batch.
TEST_F(SqliteSinkTest, ABatchGivesWhatApplyingItsRecordsOneByOneGives) {
  for (const std::string mode : {"upsert", "update"}) {
    SCOPED_TRACE(mode);
    execute(R"(DROP TABLE IF EXISTS "t"; DROP TABLE IF EXISTS ksink_offsets;)"
            R"(CREATE TABLE "t" (id TEXT PRIMARY KEY, name TEXT, email TEXT, phone TEXT);)"
            R"(INSERT INTO "t" VALUES ('7', 'old', 'o@x', NULL), ('8', 'h', 'h@x', '1'))");
    FakeContext ctx;
    auto task = start({{"insert.mode", mode},
                       {"pk.mode", "record_key"},
                       {"pk.fields", "id"},
                       {"delete.enabled", "true"}},
                      ctx);
    task->put(std::vector<SinkRecord>{
        rec(0, "6", R"({"name":"f"})"), rec(1, "7", R"({"name":"g","email":"g@x"})"),
        rec(2, "7", R"({"name":"g2"})"), rec(3, "8", R"({"name":"h1","email":"e1"})"),
        rec(4, "8", std::nullopt), rec(5, "8", R"({"name":"h2"})"),
        rec(6, "9", R"({"name":"i","email":"i@x"})"), rec(7, "9", R"({"phone":"555"})")});
    const auto rows = query(R"(SELECT id, name, email, phone FROM "t" ORDER BY id)");
    if (mode == "upsert")
      EXPECT_EQ(rows, (ksink::testing::Rows{{"6", "f", "NULL", "NULL"},
                                            {"7", "g2", "g@x", "NULL"},
                                            {"8", "h2", "NULL", "NULL"},
                                            {"9", "i", "i@x", "555"}}));
    else  // an update after its key's delete, or of a key never written, changes nothing
      EXPECT_EQ(rows, (ksink::testing::Rows{{"7", "g2", "g@x", "NULL"}}));
    task->stop();
  }
}

// A truncate (Debezium's, kept by ExtractNewRecordState's truncate.handling.mode=truncate)
// empties the table in the batch's transaction, in order with the rows around it.
TEST_F(SqliteSinkTest, ATruncateEmptiesTheTableInOrderWithTheRowsAroundIt) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"},
                     {"insert.mode", "upsert"},
                     {"pk.mode", "record_key"},
                     {"pk.fields", "id"},
                     {"transforms", "unwrap"},
                     {"transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState"},
                     {"transforms.unwrap.truncate.handling.mode", "truncate"}},
                    ctx);
  const auto change = [](std::string_view v) {
    return fmt::format(R"({{"before":null,"after":{{"v":{}}},"op":"c"}})", v);
  };
  const std::string truncate = R"({"before":null,"after":null,"op":"t"})";
  const auto a = change("1"), b = change("2"), c = change("3"), d = change("4");
  task->put(std::vector<SinkRecord>{rec(0, std::nullopt, truncate)});  // no table yet: nothing
  task->put(std::vector<SinkRecord>{rec(1, "a", a), rec(2, "b", b)});
  task->put(
      std::vector<SinkRecord>{rec(3, "c", c), rec(4, std::nullopt, truncate), rec(5, "d", d)});
  EXPECT_EQ(query(R"(SELECT id, v FROM "t" ORDER BY id)"),
            (std::vector<std::vector<std::string>>{{"d", "4"}}));
  EXPECT_EQ(storedOffset(), 6);
  task->put(std::vector<SinkRecord>{rec(6, "a", a)});
  EXPECT_EQ(query(R"(SELECT id, v FROM "t" ORDER BY id)"),
            (std::vector<std::vector<std::string>>{{"a", "1"}, {"d", "4"}}));
}

TEST_F(SqliteSinkTest, UpdateModeOnlyChangesExistingRows) {
  execute(R"(CREATE TABLE "t" (id TEXT PRIMARY KEY, v INTEGER); INSERT INTO "t" VALUES ('a', 1))");
  FakeContext ctx;
  auto task =
      start({{"insert.mode", "update"}, {"pk.mode", "record_key"}, {"pk.fields", "id"}}, ctx);
  task->put(std::vector<SinkRecord>{rec(0, "a", R"({"v":5})"), rec(1, "z", R"({"v":6})")});
  EXPECT_EQ(query(R"(SELECT id, v FROM "t")"), (std::vector<std::vector<std::string>>{{"a", "5"}}));
}

TEST_F(SqliteSinkTest, SchemaEnvelopeLogicalTypesAreStoredAsSqlText) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"}, {"value.converter.schemas.enable", "true"}}, ctx);
  const std::string value =
      R"({"schema":{"type":"struct","fields":[)"
      R"({"field":"id","type":"int64","optional":false},)"
      R"({"field":"price","type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"},"optional":false},)"
      R"({"field":"day","type":"int32","name":"org.apache.kafka.connect.data.Date","optional":true},)"
      R"({"field":"ts","type":"int64","name":"org.apache.kafka.connect.data.Timestamp","optional":true},)"
      R"({"field":"raw","type":"bytes","optional":true},)"
      R"({"field":"tags","type":"array","items":{"type":"string"},"optional":true}]},)"
      R"("payload":{"id":7,"price":"MDk=","day":19000,"ts":1700000000123,"raw":"aGk=","tags":["x"]}})";
  task->put(std::vector<SinkRecord>{rec(0, std::nullopt, value)});
  EXPECT_EQ(query(R"(SELECT id, price, day, ts, hex(raw), tags FROM "t")"),
            (std::vector<std::vector<std::string>>{
                {"7", "123.45", "2022-01-08", "2023-11-14 22:13:20.123", "6869", R"(["x"])"}}));
  EXPECT_EQ(query(R"(SELECT type FROM pragma_table_info('t') ORDER BY cid)"),
            (std::vector<std::vector<std::string>>{
                {"INTEGER"}, {"NUMERIC"}, {"TEXT"}, {"TEXT"}, {"BLOB"}, {"TEXT"}}));
  EXPECT_EQ(query(R"(SELECT "notnull" FROM pragma_table_info('t') WHERE name='id')")[0][0], "1");
}

TEST_F(SqliteSinkTest, DebeziumTypesAreStoredAsExactText) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"}, {"value.converter.schemas.enable", "true"}}, ctx);
  auto field = [](std::string_view name, std::string_view type, std::string_view logical,
                  std::string_view extra = "") {
    return fmt::format(R"({{"field":"{}","type":"{}","optional":true,"name":"{}"{}}})", name, type,
                       logical, extra);
  };
  const std::string fields = fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
      R"({"field":"id","type":"int64","optional":false})",
      field("d", "int32", "io.debezium.time.Date"), field("t_ms", "int32", "io.debezium.time.Time"),
      field("t_us", "int64", "io.debezium.time.MicroTime"),
      field("t_ns", "int64", "io.debezium.time.NanoTime"),
      field("ts_ms", "int64", "io.debezium.time.Timestamp"),
      field("ts_us", "int64", "io.debezium.time.MicroTimestamp"),
      field("ts_ns", "int64", "io.debezium.time.NanoTimestamp"),
      field("tstz", "string", "io.debezium.time.ZonedTimestamp"),
      field("ttz", "string", "io.debezium.time.ZonedTime"),
      field("u", "string", "io.debezium.data.Uuid"), field("j", "string", "io.debezium.data.Json"),
      field("x", "string", "io.debezium.data.Xml"), field("e", "string", "io.debezium.data.Enum"),
      field("es", "string", "io.debezium.data.EnumSet"),
      field("bits", "bytes", "io.debezium.data.Bits", R"(,"parameters":{"length":"10"})"),
      R"({"field":"vsd","type":"struct","optional":true,"name":"io.debezium.data.VariableScaleDecimal","fields":[{"field":"scale","type":"int32","optional":false},{"field":"value","type":"bytes","optional":false}]})",
      R"({"field":"dec_str","type":"string","optional":true})",
      R"({"field":"dec_dbl","type":"double","optional":true})");
  const std::string value = fmt::format(
      R"({{"schema":{{"type":"struct","fields":[{}]}},"payload":{{"id":1,"d":19783,)"
      R"("t_ms":36930123,"t_us":36930123456,"t_ns":36930123456789,"ts_ms":1709288130123,)"
      R"("ts_us":1709288130123456,"ts_ns":1709288130123456789,)"
      R"("tstz":"2024-03-01T10:15:30.123456Z","ttz":"10:15:30.123Z",)"
      R"("u":"123e4567-e89b-12d3-a456-426614174000","j":"{{\"a\": 1}}","x":"<a>1</a>",)"
      R"("e":"green","es":"red,green","bits":"BQI=",)"
      R"("vsd":{{"scale":9,"value":"J+QbMka+ybFuOYEV"}},"dec_str":"12.345","dec_dbl":12.345}}}})",
      fields);
  task->put(std::vector<SinkRecord>{rec(0, std::nullopt, value)});
  EXPECT_EQ(query(R"(SELECT d, t_ms, t_us, t_ns, ts_ms, ts_us, ts_ns, tstz, ttz, u, j, x, e, es,
                            bits, vsd, typeof(vsd), dec_str, dec_dbl, typeof(dec_dbl) FROM "t")"),
            (std::vector<std::vector<std::string>>{{"2024-03-01",
                                                    "10:15:30.123",
                                                    "10:15:30.123456",
                                                    "10:15:30.123456789",
                                                    "2024-03-01 10:15:30.123",
                                                    "2024-03-01 10:15:30.123456",
                                                    "2024-03-01 10:15:30.123456789",
                                                    "2024-03-01T10:15:30.123456Z",
                                                    "10:15:30.123Z",
                                                    "123e4567-e89b-12d3-a456-426614174000",
                                                    R"({"a": 1})",
                                                    "<a>1</a>",
                                                    "green",
                                                    "red,green",
                                                    "1000000101",
                                                    "12345678901234567890.123456789",
                                                    "text",
                                                    "12.345",
                                                    "12.345",
                                                    "real"}}));
  std::vector<std::vector<std::string>> types{{"INTEGER"}};
  for (int i = 0; i < 17; ++i) types.push_back({"TEXT"});
  types.push_back({"REAL"});
  EXPECT_EQ(query(R"(SELECT type FROM pragma_table_info('t') ORDER BY cid)"), types);
  // SQLite's own date functions read the text.
  EXPECT_EQ(query(R"(SELECT strftime('%Y-%m-%d %H:%M:%f', ts_us), date(d) FROM "t")"),
            (std::vector<std::vector<std::string>>{{"2024-03-01 10:15:30.123", "2024-03-01"}}));
}

TEST_F(SqliteSinkTest, AutoEvolveAddsNullableColumns) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"}, {"auto.evolve", "true"}}, ctx);
  task->put(std::vector<SinkRecord>{rec(0, std::nullopt, R"({"a":1})")});
  task->put(std::vector<SinkRecord>{rec(1, std::nullopt, R"({"a":2,"b":"new"})")});
  EXPECT_EQ(query(R"(SELECT a, b FROM "t" ORDER BY a)"),
            (std::vector<std::vector<std::string>>{{"1", "NULL"}, {"2", "new"}}));
}

// Issue 36, item 3: a field's default reaches the column evolution adds, so the rows that were
// there before it, and later records without the field, read the default (as under Connect).
TEST_F(SqliteSinkTest, AutoEvolveAddsAFieldsDefaultWithItsColumn) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"},
                     {"auto.evolve", "true"},
                     {"value.converter.schemas.enable", "true"}},
                    ctx);
  const std::string v1 =
      R"({"schema":{"type":"struct","fields":[{"field":"a","type":"int32"}]},"payload":{"a":1}})";
  const std::string v2 = R"({"schema":{"type":"struct","fields":[{"field":"a","type":"int32"},)"
                         R"({"field":"score","type":"int32","optional":true,"default":7},)"
                         R"({"field":"tier","type":"string","optional":true,"default":"gold"}]},)"
                         R"("payload":{"a":2,"score":3,"tier":null}})";
  task->put(std::vector<SinkRecord>{rec(0, std::nullopt, v1)});
  task->put(std::vector<SinkRecord>{rec(1, std::nullopt, v2), rec(2, std::nullopt, v1)});
  EXPECT_EQ(query(R"(SELECT a, score, tier FROM "t" ORDER BY rowid)"),
            (ksink::testing::Rows{{"1", "7", "gold"}, {"2", "3", "gold"}, {"1", "7", "gold"}}));
}

TEST_F(SqliteSinkTest, MissingColumnWithoutAutoEvolveFailsAndWritesNothing) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"}}, ctx);
  task->put(std::vector<SinkRecord>{rec(0, std::nullopt, R"({"a":1})")});
  try {
    task->put(std::vector<SinkRecord>{rec(1, std::nullopt, R"({"a":2,"b":3})")});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("auto.evolve"), std::string::npos) << e.what();
  }
  EXPECT_EQ(query(R"(SELECT count(*) FROM "t")")[0][0], "1");
  EXPECT_EQ(storedOffset(), 1);
}

// With a reporter (errors.tolerance=all, a DLQ), a row whose column is missing and may not be
// added is a bad record, as in the PostgreSQL sink: reported, the rest written, offsets covered.
TEST_F(SqliteSinkTest, MissingColumnWithoutAutoEvolveIsABadRecordForTheReporter) {
  execute(R"(CREATE TABLE "t" (a INTEGER))");
  RecordingReporter reporter;
  FakeContext ctx;
  ctx.reporter = &reporter;
  auto task = start({}, ctx);
  task->put(std::vector<SinkRecord>{rec(0, std::nullopt, R"({"a":1})"),
                                    rec(1, std::nullopt, R"({"a":2,"b":3})"),
                                    rec(2, std::nullopt, R"({"a":4})")});
  EXPECT_EQ(query(R"(SELECT a FROM "t" ORDER BY a)"),
            (std::vector<std::vector<std::string>>{{"1"}, {"4"}}));
  ASSERT_EQ(reporter.reported.size(), 1u);
  EXPECT_EQ(reporter.reported[0].first, 1);
  EXPECT_EQ(storedOffset(), 3);
}

TEST_F(SqliteSinkTest, MissingTableWithoutAutoCreateFailsAtStart) {
  FakeContext ctx;
  try {
    start({{"topics", "t"}}, ctx);
    FAIL();
  } catch (const ConfigException& e) {
    EXPECT_NE(std::string(e.what()).find("auto.create"), std::string::npos) << e.what();
  }
}

TEST_F(SqliteSinkTest, AFileThatIsNotADatabaseFailsAtStartWithTheReason) {
  std::ofstream(db_path_) << "this is not a database, it is a text file with enough bytes to fool "
                             "nobody about what it is: definitely not SQLite format 3\n";
  FakeContext ctx;
  try {
    start({}, ctx);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a database"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(db_path_), std::string::npos) << e.what();
  }
  db_path_ = (dir_ / "no-such-dir" / "x.db").string();
  EXPECT_THROW(start({}, ctx), std::runtime_error);
}

TEST_F(SqliteSinkTest, ConstraintViolationWithoutAReporterFailsNamingTheRecordAndCommitsNothing) {
  execute(R"(CREATE TABLE "t" (a INTEGER NOT NULL, b TEXT))");
  FakeContext ctx;
  auto task = start({}, ctx);
  try {
    task->put(std::vector<SinkRecord>{rec(0, std::nullopt, R"({"a":1})"),
                                      rec(1, std::nullopt, R"({"a":null,"b":"x"})")});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("topic t, partition 0, offset 1"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("NOT NULL"), std::string::npos) << e.what();
  }
  EXPECT_EQ(query(R"(SELECT count(*) FROM "t")")[0][0], "0");
  EXPECT_EQ(storedOffset(), -1);
}

TEST_F(SqliteSinkTest, BadRecordsGoToTheReporterAndTheRestIsCommitted) {
  execute(R"(CREATE TABLE "t" (a INTEGER NOT NULL))");
  RecordingReporter reporter;
  FakeContext ctx;
  ctx.reporter = &reporter;
  auto task = start({}, ctx);
  task->put(std::vector<SinkRecord>{
      rec(0, std::nullopt, R"({"a":1})"), rec(1, std::nullopt, R"({"a":null})"),
      rec(2, std::nullopt, R"({"a":"text"})"), rec(3, std::nullopt, R"({"a":)"),
      rec(4, std::nullopt, R"({"a":5})")});
  EXPECT_EQ(query(R"(SELECT a FROM "t" ORDER BY a)"),
            (std::vector<std::vector<std::string>>{{"1"}, {"5"}}));
  ASSERT_EQ(reporter.reported.size(), 3u);
  std::set<int64_t> offsets;
  for (const auto& [o, why] : reporter.reported) offsets.insert(o);
  EXPECT_EQ(offsets, (std::set<int64_t>{1, 2, 3}));
  EXPECT_EQ(storedOffset(), 5) << "bad records are covered: they are not read again";
}

// A row that absorbed an earlier record of its key (upsert) and is rejected is reported as both:
// the bad value may be either's, and neither was written.
TEST_F(SqliteSinkTest, ARejectedMergedRowReportsEveryRecordItStandsFor) {
  execute(R"(CREATE TABLE "t" (id TEXT PRIMARY KEY, a INTEGER, b INTEGER NOT NULL))");
  RecordingReporter reporter;
  FakeContext ctx;
  ctx.reporter = &reporter;
  auto task =
      start({{"insert.mode", "upsert"}, {"pk.mode", "record_key"}, {"pk.fields", "id"}}, ctx);
  task->put(std::vector<SinkRecord>{rec(0, "1", R"({"a":1,"b":"text"})"), rec(1, "1", R"({"a":2})"),
                                    rec(2, "2", R"({"a":3,"b":4})")});
  EXPECT_EQ(query(R"(SELECT id, a, b FROM "t" ORDER BY id)"),
            (ksink::testing::Rows{{"2", "3", "4"}}));
  std::set<int64_t> offsets;
  for (const auto& [o, why] : reporter.reported) offsets.insert(o);
  EXPECT_EQ(offsets, (std::set<int64_t>{0, 1}));
  EXPECT_EQ(storedOffset(), 3);
}

// The transaction that skips a reported record commits only once the dead-letter queue has it.
TEST_F(SqliteSinkTest, ABatchSkippingRecordsTheDlqDidNotAcknowledgeIsNotCommitted) {
  execute(R"(CREATE TABLE "t" (a INTEGER NOT NULL))");
  RecordingReporter reporter;
  FakeContext ctx;
  ctx.reporter = &reporter;
  auto task = start({}, ctx);
  const std::vector<SinkRecord> batch = {rec(0, std::nullopt, R"({"a":1})"),
                                         rec(1, std::nullopt, R"({"a":null})"),
                                         rec(2, std::nullopt, R"({"a":3})")};
  reporter.delivery = ErrantRecordReporter::Delivery::kPending;
  EXPECT_THROW(task->put(batch), RetriableError);
  EXPECT_EQ(query(R"(SELECT count(*) FROM "t")")[0][0], "0");
  EXPECT_EQ(storedOffset(), -1);

  reporter.delivery = ErrantRecordReporter::Delivery::kFailed;
  try {
    task->put(batch);
    FAIL() << "a failed DLQ write must fail the batch";
  } catch (const RetriableError&) {
    FAIL() << "a failed DLQ write is not retriable";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("dead-letter queue"), std::string::npos) << e.what();
  }
  EXPECT_EQ(query(R"(SELECT count(*) FROM "t")")[0][0], "0");
  EXPECT_EQ(storedOffset(), -1);

  reporter.delivery = ErrantRecordReporter::Delivery::kDelivered;
  task->put(batch);
  EXPECT_EQ(query(R"(SELECT a FROM "t" ORDER BY a)"),
            (std::vector<std::vector<std::string>>{{"1"}, {"3"}}));
  EXPECT_EQ(storedOffset(), 3);
  EXPECT_EQ(reporter.awaited, 3);
  // A batch without bad records does not wait for the DLQ.
  task->put(std::vector<SinkRecord>{rec(3, std::nullopt, R"({"a":4})")});
  EXPECT_EQ(reporter.awaited, 3);
  EXPECT_EQ(storedOffset(), 4);
}

TEST_F(SqliteSinkTest, LargeBatchesGoThroughMultiRowStatementsAndStillIsolateBadRows) {
  execute(R"(CREATE TABLE "t" (a INTEGER NOT NULL, s TEXT))");
  RecordingReporter reporter;
  FakeContext ctx;
  ctx.reporter = &reporter;
  auto task = start({}, ctx);
  std::vector<std::string> values;
  for (int i = 0; i < 300; ++i) {
    if (i == 70)
      values.push_back(R"({"a":"not a number","s":"x"})");  // misfit found while binding
    else if (i == 130)
      values.push_back(R"({"a":null,"s":"x"})");  // NOT NULL: SQLite refuses the whole chunk
    else
      values.push_back(
          fmt::format(R"({{"a":{},"s":"row {} with a text long enough to allocate"}})", i, i));
  }
  std::vector<SinkRecord> batch;
  for (int i = 0; i < 300; ++i)
    batch.push_back(rec(i, std::nullopt, values[static_cast<size_t>(i)]));
  task->put(batch);
  EXPECT_EQ(query(R"(SELECT count(*), count(DISTINCT a), sum(a) FROM "t")"),
            (ksink::testing::Rows{{"298", "298", std::to_string(299 * 300 / 2 - 70 - 130)}}));
  EXPECT_EQ(query(R"(SELECT s FROM "t" WHERE a = 299)")[0][0],
            "row 299 with a text long enough to allocate");
  std::set<int64_t> reported;
  for (const auto& [o, why] : reporter.reported) reported.insert(o);
  EXPECT_EQ(reported, (std::set<int64_t>{70, 130}));
  EXPECT_EQ(storedOffset(), 300);
}

TEST_F(SqliteSinkTest, LargeUpsertBatchesKeepTheLastValuePerKey) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"},
                     {"insert.mode", "upsert"},
                     {"pk.mode", "record_value"},
                     {"pk.fields", "k"}},
                    ctx);
  std::vector<std::string> values;
  for (int i = 0; i < 500; ++i) values.push_back(fmt::format(R"({{"k":{},"v":{}}})", i % 100, i));
  std::vector<SinkRecord> batch;
  for (int i = 0; i < 500; ++i)
    batch.push_back(rec(i, std::nullopt, values[static_cast<size_t>(i)]));
  task->put(std::span(batch).subspan(0, 250));
  task->put(std::span(batch).subspan(250));
  EXPECT_EQ(query(R"(SELECT count(*), min(v), max(v) FROM "t")"),
            (ksink::testing::Rows{{"100", "400", "499"}}));
}

TEST_F(SqliteSinkTest, AZombieTaskOnTheSameFileIsFenced) {
  FakeContext zombie_ctx, owner_ctx;
  auto zombie = start({{"auto.create", "true"}}, zombie_ctx);
  zombie->put(std::vector<SinkRecord>{rec(0, std::nullopt, R"({"a":0})")});
  auto owner = start({}, owner_ctx);
  EXPECT_EQ((owner_ctx.rewinds[TopicPartition{"t", 0}]), 1);
  owner->put(std::vector<SinkRecord>{rec(1, std::nullopt, R"({"a":1})")});
  zombie->put(std::vector<SinkRecord>{rec(1, std::nullopt, R"({"a":1})")});  // stale: fenced
  EXPECT_EQ(query(R"(SELECT count(*) FROM "t")")[0][0], "2");
  EXPECT_EQ((zombie_ctx.rewinds[TopicPartition{"t", 0}]), 2);
}

TEST_F(SqliteSinkTest, ALockedFileIsARetriableErrorAndTheBatchSucceedsLater) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"}, {"sqlite.busy.timeout.ms", "100"}}, ctx);
  const std::vector<SinkRecord> batch = {rec(0, std::nullopt, R"({"a":1})")};
  {
    SQLite::Database other(db_path_, SQLite::OPEN_READWRITE);
    SQLite::Transaction hold(other, SQLite::TransactionBehavior::IMMEDIATE);
    EXPECT_THROW(task->put(batch), RetriableError);
  }
  task->put(batch);  // redelivered
  EXPECT_EQ(query(R"(SELECT count(*) FROM "t")")[0][0], "1");
  EXPECT_EQ(storedOffset(), 1);
}

TEST_F(SqliteSinkTest, BatchSizeBoundsTheRowsPerTransaction) {
  FakeContext ctx;
  auto task = start({{"auto.create", "true"}, {"batch.size", "2"}}, ctx);
  std::vector<SinkRecord> batch;
  for (int i = 0; i < 5; ++i) batch.push_back(rec(i, std::nullopt, R"({"a":1})"));
  task->put(batch);
  EXPECT_EQ(query(R"(SELECT count(*) FROM "t")")[0][0], "5");
  EXPECT_EQ(storedOffset(), 5);
}

// Tasks of one connector start at once on one file (tasks.max > 1): the first to switch it to WAL
// and create ksink_offsets and the table must not make the others fail with "database is locked"
// (seen in 2 of 127 launches of a two-task process).
TEST_F(SqliteSinkTest, TasksStartingAtOnceOnAFreshFileAllStart) {
  constexpr int kRounds = 30, kTasks = 4;
  for (int round = 0; round < kRounds; ++round) {
    const auto file = (dir_ / fmt::format("fresh-{}.db", round)).string();
    std::vector<std::string> errors(kTasks);
    std::vector<std::thread> threads;
    std::atomic<int> ready{0};
    for (int t = 0; t < kTasks; ++t) {
      threads.emplace_back([&, t] {
        std::map<std::string, std::string> props{{"name", "conn"},
                                                 {"connection.url", "sqlite://" + file},
                                                 {"auto.create", "true"},
                                                 {"topics", "t"},
                                                 {"value.converter", "json"},
                                                 {"value.converter.schemas.enable", "false"}};
        FakeContext context;
        SqliteSinkTask task;
        task.initialize(context);
        ++ready;
        while (ready < kTasks) std::this_thread::yield();
        try {
          task.start(Config(props, SqliteSinkTask::configDef()));
          task.open({{"t", t}});
          const std::string value = fmt::format(R"({{"id":{}}})", t);
          const std::vector<SinkRecord> records{SinkRecord("t", t, 0, 0, std::nullopt, value)};
          task.put(records);
          task.flush({});
          task.stop();
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kTasks; ++t) EXPECT_EQ(errors[t], "") << "round " << round << " task " << t;
  }
}

}  // namespace
}  // namespace ksink::sqlite
