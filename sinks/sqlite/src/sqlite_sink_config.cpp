#include "sqlite_sink_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "ksink/sqlite_db/sqlite_url.h"

namespace ksink::sqlite {
namespace {

ConfigDef makeConfigDef() {
  using Type = ConfigDef::Type;
  using Importance = ConfigDef::Importance;
  ConfigDef d;
  d.include(TableSinkConfig::configDef());
  d.define("connection.url", Type::kString, std::nullopt, Importance::kHigh,
           "The database file: sqlite:///absolute/path.db, sqlite:relative.db, "
           "jdbc:sqlite:path or a plain path",
           ConfigDef::nonEmpty())
      .define("sqlite.synchronous", Type::kString, "FULL", Importance::kLow,
              "PRAGMA synchronous: FULL (default) makes each committed batch — rows and offsets "
              "— survive power loss; NORMAL survives process crashes only",
              ConfigDef::oneOf({"OFF", "NORMAL", "FULL", "EXTRA"}))
      .define("sqlite.busy.timeout.ms", Type::kLong, "30000", Importance::kLow,
              "How long a write waits for another connection's lock before the batch is "
              "retried",
              ConfigDef::atLeast(0));
  for (const char* key : {"connection.attempts", "connection.backoff.ms"})
    d.defineIgnored(key, "Confluent JDBC sink tuning",
                    "SQLite opens a file: there is no server to connect to again");
  return d;
}

}  // namespace

const ConfigDef& SqliteSinkConfig::configDef() {
  static const ConfigDef def = makeConfigDef();
  return def;
}

SqliteSinkConfig SqliteSinkConfig::parse(const Config& config) {
  // The definitions decide what is valid (Config throws ConfigException), whether or not `config`
  // was built with them.
  const Config checked(config.values(), configDef());
  SqliteSinkConfig out;
  out.table = TableSinkConfig::parse(config);
  out.path = pathFromUrl(checked.getString("connection.url"));
  out.synchronous = checked.getString("sqlite.synchronous");
  out.busy_timeout_ms = static_cast<int>(
      std::clamp<int64_t>(checked.getLong("sqlite.busy.timeout.ms"), 0, INT32_MAX));
  return out;
}

}  // namespace ksink::sqlite
