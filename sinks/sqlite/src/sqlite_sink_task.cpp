#include "ksink/sqlite/sqlite_sink_task.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <unordered_map>

#include "ksink/conversion_error.h"
#include "ksink/record_mapper.h"
#include "ksink/retriable_error.h"
#include "ksink/table_sink_config.h"
#include "sqlite_dialect.h"

namespace ksink::sqlite {
namespace {

using Affinity = SqliteDialect::Affinity;
using Layout = RecordMapper::Layout;

// Rows per multi-row INSERT: most of the speed-up of multi-row VALUES comes by a few dozen rows.
constexpr size_t kMultiRows = 64;

// The one place SQLite failures are sorted by what the caller should do.
enum class Failure { kRetriable, kBadRecord, kFatal };

Failure classify(const SQLite::Exception& e) {
  switch (e.getErrorCode() & 0xff) {
    case SQLITE_BUSY:    // another connection holds the write lock past the busy timeout
    case SQLITE_LOCKED:  // a conflict inside this process's shared cache
    case SQLITE_FULL:    // the disk may get space back
      return Failure::kRetriable;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
      return Failure::kBadRecord;
    default:
      return Failure::kFatal;
  }
}

ConfigException configError(std::string key, std::string reason) {
  return ConfigException(std::vector<ConfigProblem>{{std::move(key), std::move(reason)}});
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// How one layout column is bound: the logical conversion and the table column's affinity.
struct ColumnBinding {
  Schema::Logical logical = Schema::Logical::kNone;
  int32_t scale = 0;
  std::optional<int64_t> bits_length;  // Debezium's Bits: the "length" parameter
  Affinity affinity = Affinity::kBlob;
  std::string name;
  std::string declared_type;
};

// Binds `v` as parameter `index`, or returns why it does not fit the column. `scratch` holds text
// made for the value until the statement has run (bound without a copy).
std::optional<std::string> bindValue(SQLite::Statement& st, int index, const Value& v,
                                     const ColumnBinding& c, std::string& scratch) {
  enum class Rep { kNull, kInt, kReal, kText, kJson, kBlob } rep = Rep::kNull;
  switch (v.kind()) {
    case Value::Kind::kNull:
      st.bind(index);
      break;
    case Value::Kind::kBoolean:
      st.bind(index, v.asBoolean() ? 1 : 0);
      rep = Rep::kInt;
      break;
    case Value::Kind::kInt:
      rep = Rep::kText;
      switch (c.logical) {
        case Schema::Logical::kDate:
          scratch = Value::dateToString(v.asInt());
          break;
        case Schema::Logical::kTime:
          scratch = Value::timeToString(v.asInt());
          break;
        case Schema::Logical::kTimestamp:
          scratch = Value::timestampToString(v.asInt());
          break;
        case Schema::Logical::kMicroTime:
        case Schema::Logical::kNanoTime:
          // SQLite keeps text as it is: nanoseconds too.
          scratch = Value::timeToString(v.asInt(), Schema::unitsPerSecond(c.logical));
          break;
        case Schema::Logical::kLocalTimestamp:
        case Schema::Logical::kMicroTimestamp:
        case Schema::Logical::kNanoTimestamp:
          scratch = Value::timestampToString(v.asInt(), Schema::unitsPerSecond(c.logical));
          break;
        default:
          st.bind(index, static_cast<int64_t>(v.asInt()));
          rep = Rep::kInt;
      }
      if (rep == Rep::kText) st.bindNoCopy(index, scratch);
      break;
    case Value::Kind::kDouble:
      if (c.affinity == Affinity::kInteger &&
          v.asDouble() != static_cast<double>(static_cast<int64_t>(v.asDouble())))
        return fmt::format("{} does not fit INTEGER column {}", v.asDouble(),
                           SqliteDialect::quote(c.name));
      st.bind(index, v.asDouble());
      rep = Rep::kReal;
      break;
    case Value::Kind::kString:
      st.bindNoCopy(index, v.asString());
      rep = Rep::kText;
      break;
    case Value::Kind::kBytes:
      if (c.logical == Schema::Logical::kDecimal) {
        scratch = Value::decimalToString(v.asBytes(), c.scale);
        st.bindNoCopy(index, scratch);
        rep = Rep::kReal;  // numeric text: fits number columns
      } else if (c.logical == Schema::Logical::kBits) {
        scratch = Value::bitsToString(v.asBytes(), c.bits_length);
        st.bindNoCopy(index, scratch);
        rep = Rep::kText;
      } else {
        st.bindNoCopy(index, v.asBytes().data(), static_cast<int>(v.asBytes().size()));
        rep = Rep::kBlob;
      }
      break;
    case Value::Kind::kArray:
    case Value::Kind::kObject:
      if (c.logical == Schema::Logical::kVariableScaleDecimal) {
        const Value* scale = v.find("scale");
        const Value* unscaled = v.find("value");
        if (scale && unscaled && scale->kind() == Value::Kind::kInt &&
            unscaled->kind() == Value::Kind::kBytes && !unscaled->asBytes().empty() &&
            scale->asInt() >= std::numeric_limits<int32_t>::min() &&
            scale->asInt() <= std::numeric_limits<int32_t>::max()) {
          scratch =
              Value::decimalToString(unscaled->asBytes(), static_cast<int32_t>(scale->asInt()));
          st.bindNoCopy(index, scratch);
          rep = Rep::kReal;  // numeric text, as a Decimal's
          break;
        }
      }
      scratch = v.toJson();
      st.bindNoCopy(index, scratch);
      rep = Rep::kJson;
      break;
  }
  bool fits = true;
  switch (c.affinity) {
    case Affinity::kInteger:
      fits = rep == Rep::kNull || rep == Rep::kInt || rep == Rep::kReal;
      break;
    case Affinity::kReal:
      fits = rep == Rep::kNull || rep == Rep::kInt || rep == Rep::kReal;
      break;
    case Affinity::kNumeric:
      fits = rep != Rep::kBlob && rep != Rep::kJson;
      break;
    case Affinity::kText:
      fits = rep != Rep::kBlob;
      break;
    case Affinity::kBlob:
      break;
  }
  if (fits) return std::nullopt;
  static constexpr const char* kRepNames[] = {"null", "an integer", "a number",
                                              "text", "JSON",       "bytes"};
  return fmt::format("{} does not fit column {} {}", kRepNames[static_cast<int>(rep)],
                     SqliteDialect::quote(c.name), c.declared_type);
}

}  // namespace

class SqliteSinkTask::Impl {
 public:
  struct Plan {
    std::shared_ptr<const Layout> layout;  // keeps the cache key's address from being reused
    std::unique_ptr<SQLite::Statement> statement;  // null: nothing to run for this layout
    std::unique_ptr<SQLite::Statement> multi;      // `multi_rows` rows at once (insert, upsert)
    size_t multi_rows = 0;
    std::vector<ColumnBinding> columns;  // per parameter
    std::vector<size_t> order;           // layout column per parameter
  };
  using TableColumns = std::unordered_map<std::string, std::string>;  // lower(name) → type

  TableSinkConfig config;
  std::string path;
  std::unique_ptr<RecordMapper> mapper;
  std::unique_ptr<SQLite::Database> db;
  std::unique_ptr<SQLite::Statement> select_offset, update_offset, insert_offset, table_info;
  std::unordered_map<std::string, TableColumns> tables;
  std::unordered_map<const Layout*, Plan> plans;
  std::vector<std::string> scratch;
  std::vector<size_t> chunk;  // rows bound into the multi-row statement
  std::function<void(const SinkRecord&, const std::exception&)> report_bad;
  bool ddl_in_transaction = false;

  const TableColumns& tableColumns(const std::string& table, bool refresh) {
    if (!refresh)
      if (auto it = tables.find(table); it != tables.end()) return it->second;
    TableColumns cols;
    table_info->bind(1, table);
    while (table_info->executeStep())
      cols[lower(table_info->getColumn(0).getString())] = table_info->getColumn(1).getString();
    table_info->reset();
    return tables[table] = std::move(cols);
  }

  void ddl(const std::string& sql) {
    spdlog::info("sqlite sink: {}", sql);
    ddl_in_transaction = true;
    db->exec(sql);
  }

  // Creates or evolves the table for `layout` as configured; runs inside the write transaction
  // (which holds SQLite's write lock, so what PRAGMA table_info says stays true until commit).
  const TableColumns& ensureTable(const Layout& layout) {
    const TableColumns* cols = &tableColumns(layout.table, false);
    if (cols->empty()) cols = &tableColumns(layout.table, true);
    if (cols->empty()) {
      if (!config.auto_create)
        throw std::runtime_error(
            fmt::format("table {} does not exist in {} (create it, or set auto.create=true)",
                        SqliteDialect::quote(layout.table), path));
      ddl(SqliteDialect::createTable(layout));
      return tableColumns(layout.table, true);
    }
    auto missing = [&] {
      std::vector<const RecordMapper::Column*> out;
      for (const auto& c : layout.columns)
        if (!cols->contains(lower(c.name))) out.push_back(&c);
      return out;
    };
    if (missing().empty()) return *cols;
    cols = &tableColumns(layout.table, true);  // another process may have added them
    const auto absent = missing();
    if (absent.empty()) return *cols;
    if (!config.auto_evolve) {
      std::string names;
      for (const auto* c : absent)
        names += (names.empty() ? "" : ", ") + SqliteDialect::quote(c->name);
      throw std::runtime_error(
          fmt::format("table {} has no column(s) {} that the records carry (add them, or set "
                      "auto.evolve=true)",
                      SqliteDialect::quote(layout.table), names));
    }
    for (const auto* c : absent) ddl(SqliteDialect::addColumn(layout.table, *c));
    return tableColumns(layout.table, true);
  }

  Plan& planFor(const std::shared_ptr<const Layout>& layout, bool is_delete) {
    if (auto it = plans.find(layout.get()); it != plans.end()) return it->second;
    const auto& cols = ensureTable(*layout);
    Plan plan;
    plan.layout = layout;
    const size_t n = layout->columns.size();
    std::string sql;
    if (is_delete) {
      sql = SqliteDialect::remove(*layout);
      for (size_t i = 0; i < layout->key_count; ++i) plan.order.push_back(i);
    } else {
      sql = SqliteDialect::write(*layout, config.insert_mode);
      const bool update = config.insert_mode == TableSinkConfig::InsertMode::kUpdate;
      for (size_t i = update ? layout->key_count : 0; i < n; ++i) plan.order.push_back(i);
      if (update)
        for (size_t i = 0; i < layout->key_count; ++i) plan.order.push_back(i);
    }
    for (const size_t i : plan.order) {
      const auto& column = layout->columns[i];
      ColumnBinding b;
      b.logical = column.schema->logical();
      b.scale = column.schema->decimalScale();
      b.bits_length = column.schema->intParameter(Schema::kLengthParameter);
      b.name = column.name;
      auto it = cols.find(lower(column.name));
      b.declared_type = it == cols.end() ? "" : it->second;
      b.affinity = SqliteDialect::affinity(b.declared_type);
      plan.columns.push_back(std::move(b));
    }
    auto prepare = [&](const std::string& text) {
      try {
        return std::make_unique<SQLite::Statement>(*db, text);
      } catch (const SQLite::Exception& e) {
        if (classify(e) == Failure::kRetriable) throw;
        throw std::runtime_error(fmt::format("cannot prepare `{}`: {}", text, e.what()));
      }
    };
    if (!sql.empty()) plan.statement = prepare(sql);
    if (!is_delete && config.insert_mode != TableSinkConfig::InsertMode::kUpdate) {
      // Bounded by SQLite's 32766 parameters per statement.
      plan.multi_rows = std::min<size_t>(kMultiRows, 32766 / std::max<size_t>(n, 1));
      if (plan.multi_rows > 1)
        plan.multi = prepare(SqliteDialect::write(*layout, config.insert_mode, plan.multi_rows));
    }
    if (plans.size() >= 256) plans.clear();
    return plans.emplace(layout.get(), std::move(plan)).first->second;
  }

  // Binds `row` at parameter `first` (1-based) of `st`; returns why it does not fit, if it does
  // not.
  std::optional<std::string> bindRow(SQLite::Statement& st, const Plan& plan,
                                     const RecordMapper::Row& row, size_t first) {
    const size_t n = plan.order.size();
    if (scratch.size() < first - 1 + n) scratch.resize(first - 1 + n);
    for (size_t p = 0; p < n; ++p)
      if (auto misfit = bindValue(st, static_cast<int>(first + p), row.values[plan.order[p]],
                                  plan.columns[p], scratch[first - 1 + p]))
        return misfit;
    return std::nullopt;
  }

  // Runs a bound statement and resets it. Returns SQLite's error when it refused the data (a
  // bad record); throws any other failure.
  static std::optional<SQLite::Exception> step(SQLite::Statement& st) {
    try {
      st.exec();
      st.reset();
      return std::nullopt;
    } catch (const SQLite::Exception& e) {
      st.tryReset();
      if (classify(e) != Failure::kBadRecord) throw;
      return e;
    }
  }

  // One row through the single-row statement; a constraint or type violation is reported.
  void writeRow(Plan& plan, const RecordMapper::Row& row) {
    if (!plan.statement) return;
    auto& st = *plan.statement;
    if (auto misfit = bindRow(st, plan, row, 1)) {
      report_bad(*row.record, ConversionError(*misfit));
      return;
    }
    if (auto bad = step(st)) report_bad(*row.record, *bad);
  }

  // One chunk of plan.multi_rows rows from [at, end) through the multi-row statement; rows that do
  // not fit are reported and skipped. Returns where the next chunk starts.
  size_t writeRows(Plan& plan, const std::vector<RecordMapper::Row>& rows, size_t at, size_t end) {
    auto& st = *plan.multi;
    const size_t width = plan.order.size();
    // Sized before binding: text is bound without a copy, so scratch must not move mid-chunk.
    if (scratch.size() < plan.multi_rows * width) scratch.resize(plan.multi_rows * width);
    chunk.clear();
    size_t next = at;
    for (; next < end && chunk.size() < plan.multi_rows; ++next) {
      if (auto misfit = bindRow(st, plan, rows[next], chunk.size() * width + 1)) {
        report_bad(*rows[next].record, ConversionError(*misfit));
        continue;
      }
      chunk.push_back(next);
    }
    if (chunk.size() < plan.multi_rows) {
      // Misfits left too few rows for a full chunk: write the good ones singly.
      for (const size_t i : chunk) writeRow(plan, rows[i]);
      return next;
    }
    if (step(st)) {
      // The statement is atomic: nothing of the chunk was written. Find the bad rows one by one.
      for (const size_t i : chunk) writeRow(plan, rows[i]);
    }
    return next;
  }

  void forgetSchemaState() {
    plans.clear();
    tables.clear();
  }
};

SqliteSinkTask::SqliteSinkTask() : impl_(std::make_unique<Impl>()) {}
SqliteSinkTask::~SqliteSinkTask() = default;

std::string SqliteSinkTask::version() const {
  return KSINK_SQLITE_VERSION;
}

std::string SqliteSinkTask::pathFromUrl(const std::string& url) {
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

const ConfigDef& SqliteSinkTask::configDef() {
  static const ConfigDef def = [] {
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
  }();
  return def;
}

void SqliteSinkTask::start(const Config& config) {
  auto& s = *impl_;
  s.config = TableSinkConfig::parse(config);
  const auto url = config.get("connection.url");
  if (!url) throw configError("connection.url", "is required");
  s.path = pathFromUrl(*url);
  const auto synchronous = upper(config.get("sqlite.synchronous").value_or("FULL"));
  if (synchronous != "OFF" && synchronous != "NORMAL" && synchronous != "FULL" &&
      synchronous != "EXTRA")
    throw configError("sqlite.synchronous",
                      fmt::format("'{}' is not OFF, NORMAL, FULL or EXTRA", synchronous));
  const int busy_ms = static_cast<int>(std::clamp<int64_t>(
      std::stoll(config.get("sqlite.busy.timeout.ms").value_or("30000")), 0, INT32_MAX));
  setMaxBatchSize(static_cast<size_t>(s.config.batch_size));
  s.report_bad = [this](const SinkRecord& record, const std::exception& error) {
    reportBadRecord(record, error);
  };
  s.mapper = std::make_unique<RecordMapper>(s.config, config);
  s.scratch.resize(64);
  try {
    // NOMUTEX: the connection is only ever used from the task's thread, so SQLite's own
    // per-call locking is pure cost.
    s.db = std::make_unique<SQLite::Database>(
        s.path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX, busy_ms);
    const auto mode = s.db->execAndGet("PRAGMA journal_mode=WAL").getString();
    if (lower(mode) != "wal")
      spdlog::warn("sqlite sink: {} runs in journal mode {}, not WAL", s.path, mode);
    s.db->exec("PRAGMA synchronous=" + synchronous);
    s.db->exec(SqliteDialect::createOffsetsTable());
    const auto offsets = SqliteDialect::quote(kOffsetsTable);
    s.select_offset = std::make_unique<SQLite::Statement>(
        *s.db, fmt::format("SELECT \"next_offset\" FROM {} WHERE \"connector\"=? AND \"topic\"=? "
                           "AND \"partition\"=?",
                           offsets));
    s.update_offset = std::make_unique<SQLite::Statement>(
        *s.db, fmt::format("UPDATE {} SET \"next_offset\"=? WHERE \"connector\"=? AND \"topic\"=? "
                           "AND \"partition\"=? AND \"next_offset\"=?",
                           offsets));
    s.insert_offset = std::make_unique<SQLite::Statement>(
        *s.db, fmt::format("INSERT INTO {} (\"connector\",\"topic\",\"partition\",\"next_offset\") "
                           "VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
                           offsets));
    s.table_info = std::make_unique<SQLite::Statement>(
        *s.db, "SELECT \"name\", \"type\" FROM pragma_table_info(?)");
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(
        fmt::format("connection.url: cannot use '{}' as a SQLite database: {}", s.path, e.what()));
  }
  if (!s.config.auto_create) {
    std::vector<ConfigProblem> problems;
    for (const auto& topic : config.getList("topics")) {
      const auto table = s.config.tableName(topic);
      if (s.tableColumns(table, true).empty())
        problems.push_back(
            {"auto.create", fmt::format("table {} (for topic {}) does not exist in "
                                        "{}; create it or set auto.create=true",
                                        SqliteDialect::quote(table), topic, s.path)});
    }
    if (!problems.empty()) throw ConfigException(std::move(problems));
  }
  spdlog::info("sqlite sink: writing to {} (synchronous={}, busy timeout {} ms)", s.path,
               synchronous, busy_ms);
}

void SqliteSinkTask::stop() {
  auto& s = *impl_;
  s.plans.clear();
  s.select_offset.reset();
  s.update_offset.reset();
  s.insert_offset.reset();
  s.table_info.reset();
  s.db.reset();
}

OffsetMap SqliteSinkTask::loadOffsets(const std::vector<TopicPartition>& partitions) {
  auto& s = *impl_;
  OffsetMap out;
  try {
    for (const auto& tp : partitions) {
      auto& st = *s.select_offset;
      st.bind(1, s.config.connector_name);
      st.bind(2, tp.topic);
      st.bind(3, tp.partition);
      if (st.executeStep()) out[tp] = st.getColumn(0).getInt64();
      st.reset();
    }
  } catch (const SQLite::Exception& e) {
    s.select_offset->tryReset();
    if (classify(e) == Failure::kRetriable)
      throw RetriableError(fmt::format("reading stored offsets: {}", e.what()));
    throw std::runtime_error(fmt::format("reading stored offsets from {}: {}", s.path, e.what()));
  }
  return out;
}

bool SqliteSinkTask::writeBatch(std::span<const SinkRecord> records,
                                std::span<const OffsetUpdate> offsets) {
  auto& s = *impl_;
  auto batch = s.mapper->map(records, context());
  for (const auto& failure : batch.failures) reportBadRecord(*failure.record, failure.error);

  bool committed = false;
  s.ddl_in_transaction = false;
  try {
    SQLite::Transaction txn(*s.db, SQLite::TransactionBehavior::IMMEDIATE);
    // Compare-and-set first: a fenced task learns it before writing anything.
    for (const auto& u : offsets) {
      auto& st = u.expected ? *s.update_offset : *s.insert_offset;
      if (u.expected) {
        st.bind(1, static_cast<int64_t>(u.next_offset));
        st.bind(2, s.config.connector_name);
        st.bind(3, u.partition.topic);
        st.bind(4, u.partition.partition);
        st.bind(5, static_cast<int64_t>(*u.expected));
      } else {
        st.bind(1, s.config.connector_name);
        st.bind(2, u.partition.topic);
        st.bind(3, u.partition.partition);
        st.bind(4, static_cast<int64_t>(u.next_offset));
      }
      const int changed = st.exec();
      st.reset();
      if (changed != 1) return false;  // the transaction rolls back as it goes out of scope
    }

    // Runs of rows with the same layout go through the multi-row statement, the rest (and any
    // chunk SQLite refused as a whole) row by row, so a bad row is found and reported alone.
    const auto& rows = batch.rows;
    for (size_t at = 0; at < rows.size();) {
      if (rows[at].is_truncate) {  // in order: the rows after it land in the emptied table
        if (s.db->tableExists(rows[at].layout->table))
          s.db->exec("DELETE FROM " + SqliteDialect::quote(rows[at].layout->table));
        ++at;
        continue;
      }
      size_t end = at + 1;
      while (end < rows.size() && rows[end].layout == rows[at].layout &&
             rows[end].is_delete == rows[at].is_delete && !rows[end].is_truncate)
        ++end;
      auto& plan = s.planFor(rows[at].layout, rows[at].is_delete);
      while (plan.multi && end - at >= plan.multi_rows) at = s.writeRows(plan, rows, at, end);
      for (; at < end; ++at) s.writeRow(plan, rows[at]);
    }
    awaitReportedRecords();  // the records this transaction skips are in the DLQ first
    txn.commit();
    committed = true;
  } catch (const SQLite::Exception& e) {
    if (s.ddl_in_transaction) s.forgetSchemaState();
    // A statement left mid-step after an error would make later COMMITs fail.
    for (auto* st : {s.update_offset.get(), s.insert_offset.get(), s.table_info.get()})
      st->tryReset();
    if (classify(e) == Failure::kRetriable)
      throw RetriableError(
          fmt::format("SQLite {} (the batch will be retried): {}", s.path, e.what()));
    throw std::runtime_error(fmt::format("SQLite {}: {}", s.path, e.what()));
  } catch (...) {
    if (s.ddl_in_transaction) s.forgetSchemaState();
    throw;
  }
  if (!committed && s.ddl_in_transaction) s.forgetSchemaState();
  return committed;
}

}  // namespace ksink::sqlite
