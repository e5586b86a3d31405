#include "jdbc_source_task.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "ksink/config_exception.h"
#include "ksink/pg/pg_connection_url.h"
#include "ksink/retriable_error.h"
#include "ksink/sqlite_db/sqlite_url.h"
#include "pg_source_database.h"
#include "sqlite_source_database.h"

namespace ksink::jdbc {
namespace {

// How long one wait for the server may take (PostgreSQL's first FETCH of a query sorts its rows).
constexpr std::chrono::milliseconds kReadTimeout{300000};
constexpr std::chrono::milliseconds kMaxIdleWait{1000};
constexpr int kSqliteBusyTimeoutMs = 30000;

[[noreturn]] void configError(std::string key, std::string reason) {
  throw ConfigException(std::vector<ConfigProblem>{{std::move(key), std::move(reason)}});
}

// FNV-1a: the same table belongs to the same task in every process and every run.
uint64_t stableHash(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

bool JdbcSourceTask::opensPostgres(const std::string& url) {
  return postgres::PgConnectionUrl::accepts(url);
}

std::string JdbcSourceTask::version() const {
  return KSINK_JDBC_SOURCE_VERSION;
}

void JdbcSourceTask::start(const Config& config) {
  config_ = JdbcSourceConfig::parse(config);
  for (const auto& line : JdbcSourceConfig::configDef().ignoredIn(config.values()))
    spdlog::warn("JDBC source: {}", line);
  if (sqlite::isSqliteUrl(config_.connection_url)) {
    if (config_.db_timezone != "UTC")
      configError("db.timezone",
                  "SQLite keeps no time zones: the SQLite source reads timestamps as UTC (set "
                  "db.timezone=UTC, or write timestamps with an offset)");
    db_ = std::make_unique<SqliteSourceDatabase>(sqlite::pathFromUrl(config_.connection_url),
                                                 kSqliteBusyTimeoutMs);
  } else {
    const postgres::PgConnectionUrl url(config_.connection_url);
    db_ = std::make_unique<PgSourceDatabase>(url.params(config_.user, config_.password),
                                             config_.db_timezone, kReadTimeout);
  }
  spdlog::info("JDBC source task {} of {}: mode {}, {}", config_.task_id, config_.tasks_max,
               JdbcSourceConfig::modeName(config_.mode),
               config_.queryMode() ? "query mode" : "table mode");
}

bool JdbcSourceTask::listed(const TableRef& table) const {
  auto named = [&](const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return n == table.name || n == table.fqn() ||
             (!table.schema.empty() && n == table.schema + "." + table.name);
    });
  };
  if (!config_.table_whitelist.empty()) return named(config_.table_whitelist);
  return !named(config_.table_blacklist);
}

bool JdbcSourceTask::mine(const TableRef& table) const {
  return static_cast<int>(stableHash(table.fqn()) % static_cast<uint64_t>(config_.tasks_max)) ==
         config_.task_id;
}

JdbcOffset JdbcSourceTask::storedOffset(const std::optional<TableRef>& table) const {
  std::vector<SourceMap> candidates;
  if (!table) {
    candidates.push_back(queryPartition());
  } else {
    candidates.push_back(tablePartition(table->fqn()));
    // The other qualified form: JDBC drivers named a table schema.table before pgjdbc 42.7.5
    // added the database (confluentinc/kafka-connect-jdbc#1648).
    if (!table->catalog.empty())
      candidates.push_back(tablePartition(table->schema + "." + table->name));
    candidates.push_back(legacyTablePartition(table->name));
  }
  const auto& reader = context().offsetStorageReader();
  for (const auto& partition : candidates) {
    if (const auto stored = reader.offset(partition)) {
      auto offset = JdbcOffset::fromMap(*stored);
      spdlog::info("JDBC source: {} resumes from {} (stored for {})",
                   table ? table->fqn() : "the query", Value::object(*stored).toJson(),
                   Value::object(partition).toJson());
      return offset;
    }
  }
  JdbcOffset start;
  if (config_.usesTimestamp() && config_.timestamp_initial)
    start.timestamp = *config_.timestamp_initial == -1
                          ? db_->now()
                          : Instant::fromEpochMillis(*config_.timestamp_initial);
  return start;
}

std::unique_ptr<TableQuerier> JdbcSourceTask::makeQuerier(const std::optional<TableRef>& table) {
  TableInfo info;
  std::string incrementing = config_.incrementing_column;
  if (table) {
    info = db_->describe(*table);
    const auto name = table->fqn();
    if (config_.usesIncrementing()) {
      if (incrementing.empty()) incrementing = info.auto_increment;
      if (incrementing.empty())
        configError("incrementing.column.name",
                    fmt::format("table {} has no auto-increment column to find: name the "
                                "incrementing column",
                                name));
    }
    auto check = [&](const std::string& column, const char* key) {
      const TableColumn* c = info.column(column);
      if (!c) configError(key, fmt::format("table {} has no column {}", name, column));
      if (c->nullable && config_.validate_non_null)
        configError(key, fmt::format("column {} of table {} may be NULL, and rows with NULL "
                                     "there are never read: make it NOT NULL, or set "
                                     "validate.non.null=false",
                                     column, name));
    };
    if (config_.usesIncrementing()) check(incrementing, "incrementing.column.name");
    if (config_.usesTimestamp()) {
      for (const auto& ts : config_.timestamp_columns)
        if (!info.column(ts))
          configError("timestamp.column.name", fmt::format("table {} has no column {}", name, ts));
      // With several, COALESCE needs only one not to be NULL: the last is the one checked.
      check(config_.timestamp_columns.back(), "timestamp.column.name");
    }
  }
  return std::make_unique<TableQuerier>(config_, table, std::move(info), incrementing,
                                        storedOffset(table));
}

void JdbcSourceTask::refreshTables(Clock::time_point now) {
  std::map<std::string, TableRef> wanted;
  for (auto& t : db_->listTables(config_.table_types, config_.schema_pattern))
    if (listed(t) && mine(t)) wanted.emplace(t.fqn(), std::move(t));
  // Listed: the next listing in table.poll.interval.ms (a failed one is tried again sooner).
  next_table_poll_ = now + config_.table_poll_interval;
  connect_failures_ = 0;
  for (auto it = queriers_.begin(); it != queriers_.end();) {
    if (wanted.contains(it->first)) {
      ++it;
      continue;
    }
    spdlog::info("JDBC source: table {} is gone (or no longer listed): no longer read", it->first);
    if (current_ == it->first) current_.clear();
    it = queriers_.erase(it);
  }
  std::map<std::string, std::string> topics;  // a table of each topic, to warn of a second
  for (const auto& [fqn, table] : wanted)
    if (auto [it, added] = topics.emplace(table.name, fqn); !added && queriers_.empty())
      spdlog::warn(
          "JDBC source: tables {} and {} both write to topic {}{}: narrow the tables "
          "read (schema.pattern, a qualified name in table.whitelist)",
          it->second, fqn, config_.topic_prefix, table.name);
  for (auto& [fqn, table] : wanted) {
    if (queriers_.contains(fqn)) continue;
    spdlog::info("JDBC source task {}: reading table {} into topic {}{}", config_.task_id, fqn,
                 config_.topic_prefix, table.name);
    queriers_.emplace(fqn, makeQuerier(table));
  }
  if (!config_.table_whitelist.empty() && queriers_.empty() && config_.tasks_max == 1)
    spdlog::warn("JDBC source: none of table.whitelist's tables ({}) exists or may be read",
                 fmt::join(config_.table_whitelist, ", "));
}

std::vector<SourceRecord> JdbcSourceTask::poll() {
  const auto now = Clock::now();
  if (now < next_connect_) {  // after a failed connection attempt: connection.backoff.ms
    waitUntil(next_connect_);
    return {};
  }
  try {
    if (config_.queryMode()) {
      if (config_.task_id == 0 && queriers_.empty())
        queriers_.emplace("", makeQuerier(std::nullopt));
    } else if (now >= next_table_poll_) {
      refreshTables(now);
    }
    // The querier being read goes on; else the next due one after it, in turn.
    TableQuerier* chosen = nullptr;
    if (auto it = queriers_.find(current_); it != queriers_.end() && it->second->reading()) {
      chosen = it->second.get();
    } else {
      auto start = queriers_.upper_bound(current_);
      for (size_t n = 0; n < queriers_.size() && !chosen; ++n, ++start) {
        if (start == queriers_.end()) start = queriers_.begin();
        if (start->second->due(now)) {
          chosen = start->second.get();
          current_ = start->first;
        }
      }
    }
    if (!chosen) {
      auto until = std::min(next_table_poll_, now + kMaxIdleWait);
      if (config_.queryMode()) until = now + kMaxIdleWait;
      for (const auto& [name, q] : queriers_) until = std::min(until, q->nextDue());
      waitUntil(until);
      return {};
    }
    try {
      auto records = chosen->poll(*db_, now);
      connect_failures_ = 0;
      return records;
    } catch (const DbError& e) {
      // A table dropped (or renamed) since it was listed: let it go, as a new listing would.
      if (e.kind() == DbFailure::kFatal && !config_.queryMode() && !woken() &&
          !stillListed(current_))
        return {};
      throw;
    }
  } catch (const DbError& e) {
    // Whatever was open went with the connection (or the statement): every query starts again
    // after its last record.
    for (auto& [name, q] : queriers_) q->reset();
    if (woken()) return {};  // a query the stop cancelled
    if (e.connecting()) {
      // The server away, or refusing this connection (a wrong password): tried again after
      // connection.backoff.ms, at most connection.attempts times in a row, as Confluent's JDBC
      // source bounds it; then the task fails with why, instead of looking healthy.
      if (++connect_failures_ >= config_.connection_attempts)
        throw std::runtime_error(
            fmt::format("cannot connect to the database: {} failed attempts in a row, {} ms apart "
                        "(connection.attempts, connection.backoff.ms); the last: {}",
                        connect_failures_, config_.connection_backoff.count(), e.what()));
      next_connect_ = Clock::now() + config_.connection_backoff;
      throw RetriableError(fmt::format("cannot connect to the database (attempt {} of {}): {}",
                                       connect_failures_, config_.connection_attempts, e.what()));
    }
    if (e.kind() == DbFailure::kRetriable) throw RetriableError(e.what());
    throw;
  }
}

bool JdbcSourceTask::stillListed(const std::string& fqn) {
  for (const auto& t : db_->listTables(config_.table_types, config_.schema_pattern))
    if (t.fqn() == fqn && listed(t)) return true;
  spdlog::info("JDBC source: table {} is gone: no longer read", fqn);
  queriers_.erase(fqn);
  current_.clear();
  return false;
}

bool JdbcSourceTask::woken() {
  std::lock_guard lock(mutex_);
  return wake_;
}

void JdbcSourceTask::waitUntil(Clock::time_point until) {
  std::unique_lock lock(mutex_);
  woken_.wait_until(lock, until, [this] { return wake_; });
}

void JdbcSourceTask::wakeup() {
  {
    std::lock_guard lock(mutex_);
    wake_ = true;
  }
  woken_.notify_all();
  if (db_) db_->cancel();
}

void JdbcSourceTask::stop() {
  queriers_.clear();
  db_.reset();
}

}  // namespace ksink::jdbc
