#include "postgres_sink_config.h"

#include <stdexcept>

#include "ksink/db/connection_keys.h"
#include "ksink/pg/pg_connection_url.h"

namespace ksink::postgres {

namespace {

// The keys only this sink has; configDef() adds the shared table-sink keys.
const ConfigDef& ownKeys() {
  static const ConfigDef def = [] {
    using Type = ConfigDef::Type;
    using Importance = ConfigDef::Importance;
    ConfigDef d;
    d.define("connection.url", Type::kString, std::nullopt, Importance::kHigh,
             "PostgreSQL to write to: a libpq URI (postgresql://user@host:5432/db), a conninfo "
             "string (host=... dbname=...) or a JDBC URL (jdbc:postgresql://host:5432/db)",
             [](std::string_view url) -> std::optional<std::string> {
               try {
                 PgConnectionUrl{url};
                 return std::nullopt;
               } catch (const std::invalid_argument& e) {
                 return e.what();
               }
             })
        .define("db.timezone", Type::kString, "UTC", Importance::kMedium,
                "Time zone (IANA name) in which instants are written to `timestamp` columns "
                "without time zone; `timestamptz` columns hold the instant itself")
        .define("connection.read.timeout.ms", Type::kLong, "60000", Importance::kLow,
                "Longest wait for PostgreSQL's answer to one request; past it the connection is "
                "dropped and the batch retried (a server that stops answering cannot hold the "
                "task). 0 waits for ever.",
                ConfigDef::atLeast(0))
        .define("retry.backoff.ms", Type::kLong, "3000", Importance::kLow,
                "Wait before retrying a batch after a retriable database error (lost connection, "
                "serialization failure, deadlock, server shutdown)",
                ConfigDef::atLeast(0))
        .include(db::connectionKeys(
            "at start (a server lost while running is retried as any retriable error)"));
    return d;
  }();
  return def;
}

}  // namespace

PostgresSinkConfig PostgresSinkConfig::parse(const Config& config) {
  std::vector<ConfigProblem> problems = ownKeys().validate(config.values());
  PostgresSinkConfig out;
  try {
    out.table = TableSinkConfig::parse(config);
  } catch (const ConfigException& e) {
    for (const auto& p : e.problems()) problems.push_back(p);
  }
  auto value = [&](std::string_view key) {
    if (auto v = config.get(key)) return *v;
    const auto* k = configDef().find(key);
    return k && k->default_value ? *k->default_value : std::string();
  };
  out.connection_url = value("connection.url");
  out.connection_user = value("connection.user");
  out.connection_password = value("connection.password");
  out.db_timezone = value("db.timezone");
  if (out.db_timezone.empty()) out.db_timezone = "UTC";
  try {
    out.read_timeout = std::chrono::milliseconds(std::stoll(value("connection.read.timeout.ms")));
    out.retry_backoff_ms = std::stoll(value("retry.backoff.ms"));
    out.connection_attempts = std::stoi(value("connection.attempts"));
    out.connection_backoff = std::chrono::milliseconds(std::stoll(value("connection.backoff.ms")));
  } catch (const std::exception&) {
    // Reported by validate() above.
  }
  if (!problems.empty()) throw ConfigException(std::move(problems));
  return out;
}

const ConfigDef& PostgresSinkConfig::configDef() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.include(TableSinkConfig::configDef());
    d.include(ownKeys());  // after: connection.attempts and connection.backoff.ms are served here
    return d;
  }();
  return def;
}

}  // namespace ksink::postgres
