// The SQLite table source (Confluent's JDBC source, incrementing mode) through the test kit's
// source scenarios: two tables, each a source partition; the kit's items are rows (n, with id
// n + 1) and each record is recognised by its topic's table and its row's n.
#include <SQLiteCpp/Database.h>
#include <fmt/format.h>

#include "jdbc_source_config.h"
#include "jdbc_source_task.h"
#include "ksink/testkit/source_scenarios.h"

namespace {

using ksink::testkit::ScenarioRun;
using ksink::testkit::SourceItem;

std::string database(const ScenarioRun& run) {
  return (run.directory / "source.db").string();
}

ksink::testkit::SourceUnderTest sqliteSource() {
  return ksink::testkit::SourceUnderTest(
             "sqlite_source", [] { return std::make_unique<ksink::jdbc::JdbcSourceTask>(); })
      .configDef(ksink::jdbc::JdbcSourceConfig::configDef())
      .streams(2)
      .config([](const ScenarioRun& run) {
        return ksink::testkit::Properties{
            {"connection.url", "jdbc:sqlite:" + database(run)},
            {"mode", "incrementing"},
            {"incrementing.column.name", "id"},
            {"table.whitelist", "t0,t1"},
            {"topic.prefix", run.topic + "_"},
            {"poll.interval.ms", "1000"},
        };
      })
      .feed([](const ScenarioRun& run, int stream, int64_t first, int count) {
        SQLite::Database db(database(run), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        db.exec(fmt::format(
            "CREATE TABLE IF NOT EXISTS t{} (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)", stream));
        db.exec(fmt::format(
            "WITH RECURSIVE s(i) AS (SELECT {0} UNION ALL SELECT i + 1 FROM s WHERE i < {1}) "
            "INSERT INTO t{2} (id, n) SELECT i + 1, i FROM s",
            first, first + count - 1, stream));
      })
      .identify([](const ksink::SourceRecord& r) -> std::optional<SourceItem> {
        const int stream = r.topic().back() - '0';
        for (const auto& [field, value] : r.value().asObject())
          if (field == "n") return SourceItem{stream, value.asInt()};
        return std::nullopt;
      });
}

}  // namespace

KSINK_TESTKIT_SOURCE_SCENARIOS(SqliteTableSource, sqliteSource());
