#include "jdbc_source_config.h"

#include <fmt/format.h>

#include <algorithm>

#include "ksink/db/connection_keys.h"
#include "ksink/detail/config_parse.h"
#include "ksink/source_task.h"

namespace ksink::jdbc {
namespace {

using Type = ConfigDef::Type;
using Importance = ConfigDef::Importance;

constexpr const char* kModes[] = {"bulk", "incrementing", "timestamp", "timestamp+incrementing"};

// Tuning keys: what ksink does in their place.
constexpr ConfigDef::IgnoredKey kIgnored[] = {
    {"query.retry.attempts",
     "a lost connection or a query the database asks to retry is retried until the task stops; "
     "any other failure fails the task"},
    {"table.monitoring.startup.polling.limit.ms",
     "the tables are listed once before the first poll, then every table.poll.interval.ms"},
    {"numeric.precision.mapping", "deprecated by the JDBC source itself; numeric.mapping applies"},
};

std::optional<std::string> topicPrefixProblem(std::string_view prefix) {
  if (prefix.size() > 249) return "is longer than 249 characters (Kafka's limit for a topic name)";
  for (char c : prefix)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      return fmt::format(
          "holds '{}': a topic name may hold only ASCII letters, digits, '.', '_' "
          "and '-'",
          c);
  return std::nullopt;
}

ConfigDef makeDef() {
  // Keys that would change what is read: accepted where they ask for what ksink does.
  static const ConfigDef::SupportedOnlyKey kSupportedOnly[] = {
      {"catalog.pattern", Type::kString, {}, "ksink reads the database connection.url opens"},
      {"table.types",
       Type::kList,
       {"TABLE", "VIEW"},
       "ksink reads tables and views (PostgreSQL's partitioned tables count as tables)"},
      {"numeric.mapping",
       Type::kString,
       {"none"},
       "ksink maps numeric to Decimal (with the column's scale) as the JDBC source's default does"},
      {"dialect.name",
       Type::kString,
       {"", "PostgreSqlDatabaseDialect", "SqliteDatabaseDialect"},
       "ksink's table sources are PostgreSQL and SQLite, chosen by connection.url"},
      {"quote.sql.identifiers", Type::kString, {"always"}, "ksink always quotes identifiers"},
      {"transaction.isolation.mode",
       Type::kString,
       {"DEFAULT", "READ_COMMITTED"},
       "ksink reads at the database's default isolation (read committed for PostgreSQL)"},
      {"timestamp.granularity",
       Type::kString,
       {"connect_logical"},
       "ksink writes timestamps as Connect's Timestamp (milliseconds)"},
  };
  ConfigDef d;
  d.define("connection.url", Type::kString, std::nullopt, Importance::kHigh,
           "The database: a PostgreSQL URL (jdbc:postgresql://, postgresql://, key=value) or a "
           "SQLite file (jdbc:sqlite:, sqlite:)",
           ConfigDef::nonEmpty())
      .define("mode", Type::kString, std::nullopt, Importance::kHigh,
              "How tables are read: bulk (every row, every poll), incrementing (rows with a larger "
              "incrementing.column.name), timestamp (rows with a later timestamp.column.name), "
              "timestamp+incrementing (both: new and updated rows, none missed at equal "
              "timestamps)",
              ConfigDef::oneOf({kModes[0], kModes[1], kModes[2], kModes[3]}))
      .define("incrementing.column.name", Type::kString, "", Importance::kMedium,
              "The strictly increasing integer column; empty: the table's auto-increment column")
      .define("timestamp.column.name", Type::kList, "", Importance::kMedium,
              "The column(s) holding a row's last change time; several: the first that is not "
              "null (COALESCE)")
      .define("timestamp.initial", Type::kString, "", Importance::kLow,
              "Where timestamp modes start without a stored offset: ms since the epoch, -1 for "
              "the database's current time; empty: from the beginning",
              [](std::string_view v) -> std::optional<std::string> {
                if (detail::trim(v).empty()) return std::nullopt;
                const auto n = detail::parseLong(detail::trim(v));
                if (n && *n >= -1) return std::nullopt;
                return "must be milliseconds since the epoch, or -1 for the database's time";
              })
      .define("validate.non.null", Type::kBoolean, "true", Importance::kLow,
              "Refuse to start when an incrementing or timestamp column may be NULL (rows with "
              "NULL there would never be read)")
      .define("commit.horizon", Type::kString, "wait", Importance::kMedium,
              "PostgreSQL, incrementing and timestamp modes: wait (read a row only once every "
              "transaction open when it could have been written has ended, so rows committed "
              "out of order are not skipped) or none (read what is committed, as the JDBC "
              "source does)",
              ConfigDef::oneOf({"wait", "none"}))
      .define("table.whitelist", Type::kList, "", Importance::kMedium,
              "Only these tables (name or schema.name)")
      .define("table.include.list", Type::kList, "", Importance::kMedium,
              "Only these tables (the newer name of table.whitelist)")
      .define("table.blacklist", Type::kList, "", Importance::kMedium, "Every table but these")
      .define("table.exclude.list", Type::kList, "", Importance::kMedium,
              "Every table but these (the newer name of table.blacklist)")
      .define("schema.pattern", Type::kString, "", Importance::kMedium,
              "Only tables of the schemas this LIKE pattern matches (PostgreSQL); empty: every "
              "schema but the system's")
      .define("query", Type::kString, "", Importance::kMedium,
              "Query mode: this SELECT instead of tables (mode's conditions are appended)")
      .define("query.suffix", Type::kString, "", Importance::kLow,
              "Text appended to every query (e.g. a locking clause)")
      .define("topic.prefix", Type::kString, "", Importance::kHigh,
              "Topic = this prefix + the table's name (query mode: the prefix alone)",
              topicPrefixProblem)
      .define("poll.interval.ms", Type::kLong, "5000", Importance::kHigh,
              "How often each table is queried for new rows", ConfigDef::atLeast(1))
      .define("batch.max.rows", Type::kInt, "100", Importance::kLow,
              "The most rows one poll returns (rows are fetched from the database this many at "
              "a time)",
              ConfigDef::atLeast(1))
      .define("table.poll.interval.ms", Type::kLong, "60000", Importance::kLow,
              "How often the list of tables is read again (new tables are picked up)",
              ConfigDef::atLeast(1))
      .define("timestamp.delay.interval.ms", Type::kLong, "0", Importance::kHigh,
              "Rows are read only once their timestamp is this old (transactions still "
              "committing with earlier timestamps)",
              ConfigDef::atLeast(0))
      .define("db.timezone", Type::kString, "UTC", Importance::kMedium,
              "The zone of timestamp columns without one (PostgreSQL's `timestamp`)",
              ConfigDef::nonEmpty())
      .check([](const std::map<std::string, std::string>& v) {
        std::vector<ConfigProblem> out;
        auto get = [&](const char* key) {
          auto it = v.find(key);
          return it == v.end() ? std::string() : std::string(detail::trim(it->second));
        };
        const bool query = !get("query").empty();
        const bool include = !get("table.whitelist").empty() || !get("table.include.list").empty();
        const bool exclude = !get("table.blacklist").empty() || !get("table.exclude.list").empty();
        if (query && (include || exclude))
          out.push_back({"query",
                         "query mode reads the query, not tables: remove "
                         "table.whitelist/table.blacklist (and their newer names)"});
        if (include && exclude)
          out.push_back({"table.blacklist", "set table.whitelist or table.blacklist, not both"});
        const std::string mode = get("mode");
        if ((mode == "timestamp" || mode == "timestamp+incrementing") &&
            get("timestamp.column.name").empty())
          out.push_back({"timestamp.column.name", fmt::format("mode {} needs it", mode)});
        if (query && (mode == "incrementing" || mode == "timestamp+incrementing") &&
            get("incrementing.column.name").empty())
          out.push_back({"incrementing.column.name",
                         "query mode has no table to find an auto-increment column in: name it"});
        if (query && get("topic.prefix").empty())
          out.push_back({"topic.prefix", "query mode writes to the topic topic.prefix names"});
        return out;
      });
  d.include(db::connectionKeys())
      .defineSupportedOnly(kSupportedOnly, "JDBC source")
      .defineIgnored(kIgnored, "JDBC source tuning");
  return d;
}

JdbcSourceConfig::Mode modeOf(const std::string& name) {
  if (name == "incrementing") return JdbcSourceConfig::Mode::kIncrementing;
  if (name == "timestamp") return JdbcSourceConfig::Mode::kTimestamp;
  if (name == "timestamp+incrementing") return JdbcSourceConfig::Mode::kTimestampIncrementing;
  return JdbcSourceConfig::Mode::kBulk;
}

std::vector<std::string> firstList(const Config& c, const char* key, const char* newer) {
  auto list = c.getList(key);
  return list.empty() ? c.getList(newer) : list;
}

}  // namespace

const ConfigDef& JdbcSourceConfig::configDef() {
  static const ConfigDef def = makeDef();
  return def;
}

const char* JdbcSourceConfig::modeName(Mode mode) {
  return kModes[static_cast<int>(mode)];
}

JdbcSourceConfig JdbcSourceConfig::parse(const Config& config) {
  const Config c(config.values(), configDef());
  JdbcSourceConfig out;
  out.connection_url = c.getString("connection.url");
  out.user = c.getString("connection.user");
  out.password = c.getString("connection.password");
  out.mode = modeOf(c.getString("mode"));
  out.incrementing_column = c.getString("incrementing.column.name");
  out.timestamp_columns = c.getList("timestamp.column.name");
  out.table_whitelist = firstList(c, "table.whitelist", "table.include.list");
  out.table_blacklist = firstList(c, "table.blacklist", "table.exclude.list");
  out.query = std::string(detail::trim(c.getString("query")));
  out.query_suffix = c.getString("query.suffix");
  out.topic_prefix = c.getString("topic.prefix");
  out.poll_interval = std::chrono::milliseconds(c.getLong("poll.interval.ms"));
  out.connection_attempts = c.getInt("connection.attempts");
  out.connection_backoff = std::chrono::milliseconds(c.getLong("connection.backoff.ms"));
  out.batch_max_rows = c.getInt("batch.max.rows");
  out.table_poll_interval = std::chrono::milliseconds(c.getLong("table.poll.interval.ms"));
  out.timestamp_delay = std::chrono::milliseconds(c.getLong("timestamp.delay.interval.ms"));
  if (const auto initial = detail::trim(c.getString("timestamp.initial")); !initial.empty())
    out.timestamp_initial = detail::parseLong(initial);
  out.validate_non_null = c.getBoolean("validate.non.null");
  out.commit_horizon = c.getString("commit.horizon") == "wait";
  out.db_timezone = c.getString("db.timezone");
  out.table_types = c.getList("table.types");
  out.schema_pattern = c.getString("schema.pattern");
  out.tasks_max =
      static_cast<int>(std::max<int64_t>(1, std::stoll(config.get("tasks.max").value_or("1"))));
  out.task_id =
      static_cast<int>(std::stoll(config.get(std::string(kSourceTaskIdKey)).value_or("0")));
  return out;
}

}  // namespace ksink::jdbc
