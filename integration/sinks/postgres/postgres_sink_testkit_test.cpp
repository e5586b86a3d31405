// The PostgreSQL reference sink passes the test kit's sink scenarios, exactly-once claims
// included: the kit's embedded broker, the real PostgreSQL server (TestPostgres), a fresh schema
// per run (the table is named after the run's topic, ksink_offsets beside it).
#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>

#include "ksink/postgres/postgres_sink_task.h"
#include "ksink/testkit/sink_scenarios.h"
#include "test_postgres.h"

namespace ksink::postgres {
namespace {

using it::PgTestSchema;
using it::TestPostgres;
using testkit::ScenarioRun;
using testkit::StoredRecord;

// Each run's schema, made at its first worker's configuration.
class RunSchemas {
 public:
  std::string forRun(const ScenarioRun& run) {
    std::lock_guard lock(mutex_);
    auto& name = by_run_[run.connector];
    if (name.empty()) name = TestPostgres::shared().freshSchema("testkit")->name();
    return name;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> by_run_;
};

// Rows of `sql` in the run's schema, on a connection of its own (readBack() also runs on the
// task's thread); none while `table` does not exist yet.
PgTestSchema::Rows rowsOf(RunSchemas& schemas, const ScenarioRun& run, const std::string& table,
                          const std::string& sql) {
  PgTestSchema schema(TestPostgres::shared().url(), schemas.forRun(run));
  if (!schema.scalar(fmt::format("SELECT to_regclass('\"{}\"')::text", table))) return {};
  return schema.query(sql);
}

testkit::SinkUnderTest postgresSink() {
  auto schemas = std::make_shared<RunSchemas>();
  return testkit::SinkUnderTest("reference_pg", [] { return std::make_unique<PostgresSinkTask>(); })
      .configDef(PostgresSinkTask::configDef())
      .config([schemas](const ScenarioRun& run) {
        return testkit::Properties{
            {"connection.url",
             TestPostgres::withSearchPath(TestPostgres::shared().url(), schemas->forRun(run))},
            {"auto.create", "true"},
            {"key.converter", "string"},
            {"value.converter", "json"},
            {"value.converter.schemas.enable", "false"}};
      })
      .readBack([schemas](const ScenarioRun& run) {
        std::vector<StoredRecord> held;
        for (const auto& row :
             rowsOf(*schemas, run, run.topic,
                    fmt::format("SELECT kit_partition, kit_offset FROM \"{}\"", run.topic)))
          held.push_back({{run.topic, std::stoi(*row[0])}, std::stoll(*row[1])});
        return held;
      })
      // A field the table (created from the first records, auto.evolve=false) has no column for.
      .badRecord(testkit::recordWithUnknownColumn)
      .exactlyOnce([schemas](const ScenarioRun& run) {
        OffsetMap stored;
        for (const auto& row :
             rowsOf(*schemas, run, "ksink_offsets",
                    fmt::format("SELECT topic, \"partition\", next_offset FROM ksink_offsets "
                                "WHERE connector = '{}'",
                                run.connector)))
          stored[{*row[0], std::stoi(*row[1])}] = std::stoll(*row[2]);
        return stored;
      });
}

KSINK_TESTKIT_SINK_SCENARIOS(PostgresSink, postgresSink());

}  // namespace
}  // namespace ksink::postgres
