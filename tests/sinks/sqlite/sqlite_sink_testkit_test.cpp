// The SQLite reference sink passes the test kit's sink scenarios, exactly-once claims included,
// on a temporary database file per run (named reference_sqlite: SQLite reserves tables named
// sqlite_*, and the table is named after the topic).
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <filesystem>
#include <memory>

#include "ksink/sqlite/sqlite_sink_task.h"
#include "ksink/testkit/sink_scenarios.h"

namespace ksink::sqlite {
namespace {

using testkit::ScenarioRun;
using testkit::StoredRecord;

std::filesystem::path databaseOf(const ScenarioRun& run) {
  return run.directory / "out.db";
}

// Runs `sql` on the run's database, one callback per row; nothing before the sink created the
// file or `table`.
template <typename Row>
void eachRow(const ScenarioRun& run, const std::string& table, const std::string& sql, Row row) {
  if (!std::filesystem::exists(databaseOf(run))) return;
  SQLite::Database db(databaseOf(run).string(), SQLite::OPEN_READONLY);
  db.setBusyTimeout(10000);
  if (!db.tableExists(table)) return;
  SQLite::Statement st(db, sql);
  while (st.executeStep()) row(st);
}

testkit::SinkUnderTest sqliteSink() {
  return testkit::SinkUnderTest("reference_sqlite",
                                [] { return std::make_unique<SqliteSinkTask>(); })
      .configDef(SqliteSinkTask::configDef())
      .config([](const ScenarioRun& run) {
        return testkit::Properties{{"connection.url", "sqlite://" + databaseOf(run).string()},
                                   {"auto.create", "true"},
                                   {"key.converter", "string"},
                                   {"value.converter", "json"},
                                   {"value.converter.schemas.enable", "false"}};
      })
      .readBack([](const ScenarioRun& run) {
        std::vector<StoredRecord> held;
        eachRow(
            run, run.topic, "SELECT kit_partition, kit_offset FROM \"" + run.topic + "\"",
            [&](SQLite::Statement& st) {
              held.push_back({{run.topic, st.getColumn(0).getInt()}, st.getColumn(1).getInt64()});
            });
        return held;
      })
      // A field the table (created from the first records, auto.evolve=false) has no column for.
      .badRecord(testkit::recordWithUnknownColumn)
      .exactlyOnce([](const ScenarioRun& run) {
        OffsetMap stored;
        eachRow(run, "ksink_offsets",
                "SELECT topic, partition, next_offset FROM ksink_offsets WHERE connector = '" +
                    run.connector + "'",
                [&](SQLite::Statement& st) {
                  stored[{st.getColumn(0).getString(), st.getColumn(1).getInt()}] =
                      st.getColumn(2).getInt64();
                });
        return stored;
      });
}

KSINK_TESTKIT_SINK_SCENARIOS(SqliteSink, sqliteSink());

}  // namespace
}  // namespace ksink::sqlite
