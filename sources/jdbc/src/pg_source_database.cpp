#include "pg_source_database.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "column_values.h"
#include "ksink/db/sql_identifier.h"
#include "ksink/pg/pg_type_oids.h"
#include "pg_column.h"

namespace ksink::jdbc {
namespace {

using postgres::PgConnection;
using postgres::PgError;
using postgres::PgResultPtr;

constexpr const char* kCursor = "ksink_source_rows";

std::string text(const PGresult* r, int row, int column) {
  return PQgetisnull(r, row, column) ? std::string() : std::string(PQgetvalue(r, row, column));
}

std::optional<std::string> paramText(const QueryParam& p) {
  if (const auto* n = std::get_if<int64_t>(&p)) return std::to_string(*n);
  return formatUtcTimestamp(std::get<Instant>(p));
}

}  // namespace

class PgSourceDatabase::Cursor final : public RowCursor {
 public:
  Cursor(PgSourceDatabase& db, const QuerySpec& spec, std::string db_timezone) : db_(db) {
    const auto described = db_.run([](PgConnection& c) { return c.describePortal(kCursor); });
    const PGresult* r = described.get();
    for (int i = 0; i < PQnfields(r); ++i) {
      std::string name = PQfname(r, i);
      const uint32_t oid = PQftype(r, i);
      if (oid == postgres::PgTypeOids::kTimestamp && db_timezone != "UTC" && !spec.table)
        throw DbError(DbFailure::kFatal,
                      fmt::format("column {} is a timestamp without time zone, which query mode "
                                  "reads only with db.timezone=UTC (it is {}): convert it in the "
                                  "query (AT TIME ZONE '{}')",
                                  name, db_timezone, db_timezone));
      const TableColumn* known = spec.table ? spec.table->column(name) : nullptr;
      columns_.emplace_back(name, oid, PQfmod(r, i), known ? known->nullable : true);
      fields_.push_back({name, columns_.back().schema()});
    }
    for (const auto& ts : spec.timestamp_columns)
      timestamp_at_.push_back(static_cast<int>(columnIndex(fields_, ts)));
    if (!spec.incrementing_column.empty())
      incrementing_at_ = static_cast<int>(columnIndex(fields_, spec.incrementing_column));
    db_.reading_ = this;
  }

  ~Cursor() override {
    if (db_.reading_ != this) return;  // a newer query has the connection now
    db_.reading_ = nullptr;
    try {
      if (db_.connection_ && db_.connection_->resultsPending()) {
        // A batch read ahead that nobody wants: rather than wait for it (a stop would), close
        // the connection; the server ends the transaction, the next query opens a new one.
        db_.drop();
      } else if (db_.connection_ && db_.connection_->ok()) {
        db_.connection_->exec("COMMIT");
      }
    } catch (const std::exception& e) {
      spdlog::debug("PostgreSQL source: ending a read: {}", e.what());
    }
    db_.cursor_open_ = false;
  }

  const std::vector<Schema::Field>& columns() const override { return fields_; }

  void settleReadAhead(PgConnection& c) { ahead_result_ = c.takeResult(); }

  bool fetch(size_t max, std::vector<FetchedRow>& out) override {
    if (db_.reading_ != this)
      throw std::logic_error("PostgreSQL source: a cursor read after a newer query began");
    const auto sql = fmt::format("FETCH FORWARD {} FROM {}", max, kCursor);
    size_t asked = max;
    // run() has taken a batch read ahead off the connection into ahead_result_.
    const auto result = db_.run([&](PgConnection& c) {
      if (!ahead_result_) return c.exec(sql);
      asked = ahead_;
      return std::move(ahead_result_);
    });
    const PGresult* r = result.get();
    const int rows = PQntuples(r);
    const bool more = static_cast<size_t>(rows) == asked;
    // The server reads the next batch while this one is converted and produced.
    if (more) {
      db_.run([&](PgConnection& c) { c.sendLater(sql); });
      ahead_ = max;
    }
    for (int row = 0; row < rows; ++row) {
      FetchedRow f;
      f.values.reserve(columns_.size());
      for (int c = 0; c < static_cast<int>(columns_.size()); ++c)
        f.values.push_back(PQgetisnull(r, row, c)
                               ? Value()
                               : columns_[c].read(PQgetvalue(r, row, c),
                                                  static_cast<size_t>(PQgetlength(r, row, c))));
      for (int at : timestamp_at_) {
        if (PQgetisnull(r, row, at)) continue;
        f.timestamp = parseSqlTimestamp(PQgetvalue(r, row, at));
        break;
      }
      if (incrementing_at_ >= 0 && !PQgetisnull(r, row, incrementing_at_))
        f.incrementing = std::stoll(PQgetvalue(r, row, incrementing_at_));
      out.push_back(std::move(f));
    }
    return more;
  }

 private:
  PgSourceDatabase& db_;
  std::vector<PgColumn> columns_;
  std::vector<Schema::Field> fields_;
  std::vector<int> timestamp_at_;
  int incrementing_at_ = -1;
  size_t ahead_ = 0;          // the rows the FETCH sent ahead asked for
  PgResultPtr ahead_result_;  // its result, once another statement needed the connection
};

PgSourceDatabase::PgSourceDatabase(postgres::ConnectionParams params, std::string db_timezone,
                                   std::chrono::milliseconds read_timeout)
    : params_(std::move(params)),
      db_timezone_(std::move(db_timezone)),
      read_timeout_(read_timeout) {}

PgSourceDatabase::~PgSourceDatabase() = default;

template <typename F>
auto PgSourceDatabase::run(F&& work) -> decltype(work(std::declval<PgConnection&>())) {
  PgConnection* open = nullptr;
  try {
    open = &connection();
  } catch (const PgError& e) {
    drop();
    throw DbError(e.kind(), fmt::format("PostgreSQL: {}", e.what()), /*connecting=*/true);
  }
  try {
    auto& c = *open;
    if (reading_ && c.resultsPending()) reading_->settleReadAhead(c);
    return work(c);
  } catch (const PgError& e) {
    if (e.connectionLost() || e.kind() == DbFailure::kRetriable) drop();
    throw DbError(e.kind(), fmt::format("PostgreSQL: {}", e.what()));
  }
}

PgConnection& PgSourceDatabase::connection() {
  if (connection_ && connection_->ok()) return *connection_;
  connection_.reset();
  cursor_open_ = false;
  auto c = PgConnection::open(params_, read_timeout_);
  c.exec(
      "SET DateStyle = 'ISO, YMD'; SET TimeZone = 'UTC'; SET extra_float_digits = 3; "
      "SET bytea_output = 'hex'; SET IntervalStyle = 'postgres'");
  if (db_timezone_ != "UTC") {
    const auto r =
        c.execParams("SELECT count(*) FROM pg_timezone_names WHERE name = $1", {db_timezone_});
    if (std::string(PQgetvalue(r.get(), 0, 0)) == "0")
      throw DbError(
          DbFailure::kFatal,
          fmt::format("db.timezone '{}' is not a time zone PostgreSQL knows", db_timezone_));
  }
  {
    std::lock_guard lock(cancel_mutex_);
    cancel_ = CancelHandle{std::shared_ptr<PGcancel>(c.cancelHandle())};
  }
  connection_.emplace(std::move(c));
  return *connection_;
}

void PgSourceDatabase::drop() {
  connection_.reset();
  cursor_open_ = false;
  std::lock_guard lock(cancel_mutex_);
  cancel_.reset();
}

void PgSourceDatabase::cancel() {
  std::optional<CancelHandle> cancel;
  {
    std::lock_guard lock(cancel_mutex_);
    cancel = cancel_;
  }
  // One cancel of a connection in flight at a time.
  if (!cancel || cancel->in_flight->exchange(true)) return;
  // libpq's PQcancel connects to the server and waits for its answer without a timeout (before
  // PostgreSQL 17's PQcancelPoll): a server that stopped answering, or a host that drops
  // packets, would hold the caller — a stop, with whatever it holds — as long. So it runs on a
  // thread of its own, which keeps the handle alive; the stop goes on, bounded by its deadline.
  try {
    std::thread([cancel = *cancel] {
      char reason[256];
      PQcancel(cancel.handle.get(), reason, sizeof reason);
      cancel.in_flight->store(false);
    }).detach();
  } catch (const std::exception& e) {  // no thread: the stop's deadline still bounds it
    cancel->in_flight->store(false);
    spdlog::warn("PostgreSQL: the running query could not be cancelled: {}", e.what());
  }
}

std::vector<TableRef> PgSourceDatabase::listTables(const std::vector<std::string>& types,
                                                   const std::string& schema) {
  std::string kinds;
  for (const auto& t : types) {
    std::string upper = t;
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    if (upper == "TABLE") kinds += "rp";
    if (upper == "VIEW") kinds += "vm";
  }
  const auto result = run([&](PgConnection& c) {
    return c.execParams(
        "SELECT current_database(), n.nspname, c.relname FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE strpos($1, c.relkind::text) > 0 AND NOT c.relispartition "
        "AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
        "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' "
        "AND ($2 = '' OR n.nspname LIKE $2) AND has_table_privilege(c.oid, 'SELECT') "
        "ORDER BY 2, 3",
        {kinds, schema});
  });
  std::vector<TableRef> out;
  for (int i = 0; i < PQntuples(result.get()); ++i)
    out.push_back({text(result.get(), i, 0), text(result.get(), i, 1), text(result.get(), i, 2)});
  return out;
}

TableInfo PgSourceDatabase::describe(const TableRef& table) {
  const auto result = run([&](PgConnection& c) {
    return c.execParams(
        "SELECT a.attname, a.attnotnull, a.atttypid = 1114, "
        "a.attidentity <> '' OR coalesce(pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%', "
        "false), array_position(i.indkey::int2[], a.attnum) "
        "FROM pg_attribute a "
        "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
        "LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
        "WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY a.attnum",
        {table.quoted()});
  });
  const PGresult* r = result.get();
  TableInfo info;
  std::vector<std::pair<int, std::string>> key;
  for (int i = 0; i < PQntuples(r); ++i) {
    TableColumn c;
    c.name = text(r, i, 0);
    c.nullable = text(r, i, 1) != "t";
    c.zoneless_timestamp = text(r, i, 2) == "t";
    if (text(r, i, 3) == "t" && info.auto_increment.empty()) info.auto_increment = c.name;
    if (!PQgetisnull(r, i, 4)) key.emplace_back(std::stoi(text(r, i, 4)), c.name);
    info.columns.push_back(std::move(c));
  }
  std::sort(key.begin(), key.end());
  for (auto& [position, name] : key) info.key.push_back(std::move(name));
  return info;
}

Instant PgSourceDatabase::now() {
  const auto result = run([](PgConnection& c) { return c.exec("SELECT CURRENT_TIMESTAMP"); });
  return parseSqlTimestamp(PQgetvalue(result.get(), 0, 0));
}

Horizon PgSourceDatabase::horizon(const std::string& from_clause,
                                  const std::string& incrementing_expression, bool timestamps) {
  Horizon h;
  if (!standby_checked_) {
    // A standby's pg_locks shows its own sessions only, never the primary's transactions.
    const auto r = run([](PgConnection& c) { return c.exec("SELECT pg_is_in_recovery()"); });
    if (text(r.get(), 0, 0) == "t")
      throw DbError(DbFailure::kFatal,
                    "connection.url is a standby (a read replica), where the transactions open on "
                    "the primary cannot be seen: commit.horizon=wait cannot keep rows committed "
                    "out of order; read from the primary, or set commit.horizon=none");
    standby_checked_ = true;
  }
  // The bound first, then the transactions open: one that starts after the bound was read
  // assigns values above it.
  if (!incrementing_expression.empty()) {
    const auto r = run([&](PgConnection& c) {
      return c.exec(fmt::format("SELECT max({}) FROM {}", incrementing_expression, from_clause));
    });
    if (!PQgetisnull(r.get(), 0, 0)) h.incrementing_bound = std::stoll(PQgetvalue(r.get(), 0, 0));
  }
  if (timestamps) {
    const auto r = run([](PgConnection& c) { return c.exec("SELECT clock_timestamp()"); });
    // now() is fixed when a statement arrives, a moment before its transaction takes the lock
    // seen below: a second's margin covers a writer caught in between.
    h.timestamp_bound = parseSqlTimestamp(PQgetvalue(r.get(), 0, 0)).minusMillis(1000);
  }
  // Every transaction, read-only ones too, holds the lock on its own virtual transaction id
  // until it ends; pg_locks shows them to any user. Only sessions of this database can write
  // its rows (another user's session shows its database but not its type: it counts). A
  // prepared transaction (two-phase commit) has let its lock go but may still commit.
  const auto r = run([](PgConnection& c) {
    return c.exec(
        "SELECT l.virtualxid, 'pid ' || l.pid FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
        "WHERE l.locktype = 'virtualxid' AND l.granted AND l.pid <> pg_backend_pid() "
        "AND a.datname = current_database() "
        "AND (a.backend_type IS NULL OR a.backend_type = 'client backend') "
        "UNION ALL SELECT 'P' || transaction, 'prepared transaction ' || gid "
        "FROM pg_prepared_xacts WHERE database = current_database()");
  });
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    h.open.push_back(text(r.get(), i, 0));
    h.sessions.push_back(text(r.get(), i, 1));
  }
  return h;
}

std::string PgSourceDatabase::timestampExpression(const std::string& quoted_column,
                                                  bool zoneless) const {
  // A `timestamp` compares with the bound instants in the session's zone, UTC: as it is when
  // db.timezone is UTC (and an index on it serves); read in db.timezone otherwise.
  if (!zoneless || db_timezone_ == "UTC") return quoted_column;
  return fmt::format("({} AT TIME ZONE {})", quoted_column, quoteLiteral(db_timezone_));
}

std::unique_ptr<RowCursor> PgSourceDatabase::query(const QuerySpec& spec) {
  std::vector<std::optional<std::string>> params;
  for (const auto& p : spec.params) params.push_back(paramText(p));
  run([&](PgConnection& c) {
    if (cursor_open_) c.exec("COMMIT");
    c.exec("BEGIN READ ONLY");
    cursor_open_ = true;
    return c.execParams(fmt::format("DECLARE {} NO SCROLL CURSOR FOR {}", kCursor, spec.sql),
                        params);
  });
  try {
    return std::make_unique<Cursor>(*this, spec, db_timezone_);
  } catch (...) {
    if (connection_ && connection_->ok()) {
      try {
        connection_->exec("ROLLBACK");
      } catch (const std::exception&) {
      }
    }
    cursor_open_ = false;
    throw;
  }
}

}  // namespace ksink::jdbc
