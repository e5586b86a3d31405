#include "sqlite_sink_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "ksink/config_exception.h"

namespace ksink::sqlite {
namespace {

ConfigException configError(std::string key, std::string reason) {
  return ConfigException(std::vector<ConfigProblem>{{std::move(key), std::move(reason)}});
}

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
  return d;
}

}  // namespace

std::string SqliteSinkConfig::pathFromUrl(const std::string& url) {
  std::string_view rest = url;
  auto strip = [&](std::string_view prefix) {
    if (rest.substr(0, prefix.size()) != prefix) return false;
    rest.remove_prefix(prefix.size());
    return true;
  };
  if (!strip("jdbc:sqlite:") && !strip("sqlite://") && !strip("sqlite:") &&
      url.find("://") != std::string::npos)
    throw configError("connection.url",
                      fmt::format("'{}' is not a SQLite URL (use sqlite:///path/to/file.db "
                                  "or a plain file path)",
                                  url));
  if (rest.empty()) throw configError("connection.url", "names no database file");
  return std::string(rest);
}

bool SqliteSinkConfig::isSqliteUrl(std::string_view url) {
  return url.starts_with("jdbc:sqlite:") || url.starts_with("sqlite:");
}

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
