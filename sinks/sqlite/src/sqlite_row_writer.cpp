#include "sqlite_row_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "ksink/conversion_error.h"
#include "ksink/detail/config_parse.h"
#include "ksink/sqlite_db/sqlite_failure.h"
#include "ksink/table_policy.h"
#include "sqlite_dialect.h"

namespace ksink::sqlite {
namespace {

// Rows per multi-row INSERT: most of the speed-up of multi-row VALUES comes by a few dozen rows.
constexpr size_t kMultiRows = 64;
// SQLite's limit of parameters per statement.
constexpr size_t kMaxParameters = 32766;

// Runs a bound statement and resets it. Returns SQLite's error when it refused the data (a bad
// record); throws any other failure.
std::optional<SQLite::Exception> step(SQLite::Statement& st) {
  try {
    st.exec();
    st.reset();
    return std::nullopt;
  } catch (const SQLite::Exception& e) {
    st.tryReset();
    if (sqliteFailure(e) != DbFailure::kBadData) throw;
    return e;
  }
}

}  // namespace

void SqliteRowWriter::write(const std::vector<RecordMapper::Row>& rows, BatchScope& scope) {
  for (size_t at = 0; at < rows.size();) {
    if (rows[at].is_truncate) {  // in order: the rows after it land in the emptied table
      if (db_.tableExists(rows[at].layout->table))
        db_.exec(SqliteDialect::truncate(rows[at].layout->table));
      ++at;
      continue;
    }
    size_t end = at + 1;
    while (end < rows.size() && rows[end].layout == rows[at].layout &&
           rows[end].is_delete == rows[at].is_delete && !rows[end].is_truncate)
      ++end;
    auto& plan = planFor(rows[at].layout, rows[at].is_delete);
    while (plan.multi && end - at >= plan.multi_rows) at = writeRows(plan, rows, at, end, scope);
    for (; at < end; ++at) writeRow(plan, rows[at], scope);
  }
}

SqliteRowWriter::Plan& SqliteRowWriter::planFor(const std::shared_ptr<const Layout>& layout,
                                                bool is_delete) {
  if (auto it = plans_.find(layout.get()); it != plans_.end()) return it->second;
  std::vector<std::string> missing;
  const auto& cols = tables_.ready(*layout, missing);
  Plan plan;
  plan.layout = layout;
  if (!missing.empty()) {
    plan.refused = TablePolicy::missingColumns(quoteIdentifier(layout->table), missing);
    return refused_.emplace(std::move(plan));
  }
  const size_t n = layout->columns.size();
  std::string sql;
  if (is_delete) {
    sql = SqliteDialect::remove(*layout);
    for (size_t i = 0; i < layout->key_count; ++i) plan.order.push_back(i);
  } else {
    sql = SqliteDialect::write(*layout, insert_mode_);
    const bool update = insert_mode_ == TableSinkConfig::InsertMode::kUpdate;
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
    auto it = cols.find(detail::asciiLower(column.name));
    b.declared_type = it == cols.end() ? "" : it->second;
    b.affinity = SqliteDialect::affinity(b.declared_type);
    plan.columns.push_back(std::move(b));
  }
  auto prepare = [&](const std::string& text) {
    try {
      return std::make_unique<SQLite::Statement>(db_, text);
    } catch (const SQLite::Exception& e) {
      if (sqliteFailure(e) == DbFailure::kRetriable) throw;
      throw std::runtime_error(fmt::format("cannot prepare `{}`: {}", text, e.what()));
    }
  };
  if (!sql.empty()) plan.statement = prepare(sql);
  if (!is_delete && insert_mode_ != TableSinkConfig::InsertMode::kUpdate) {
    plan.multi_rows = std::min<size_t>(kMultiRows, kMaxParameters / std::max<size_t>(n, 1));
    if (plan.multi_rows > 1)
      plan.multi = prepare(SqliteDialect::write(*layout, insert_mode_, plan.multi_rows));
  }
  if (plans_.size() >= 256) plans_.clear();
  return plans_.emplace(layout.get(), std::move(plan)).first->second;
}

// Binds `row` at parameter `first` (1-based) of `st`; returns why it does not fit, if it does not.
std::optional<std::string> SqliteRowWriter::bindRow(SQLite::Statement& st, const Plan& plan,
                                                    const RecordMapper::Row& row, size_t first) {
  const size_t n = plan.order.size();
  if (scratch_.size() < first - 1 + n) scratch_.resize(first - 1 + n);
  for (size_t p = 0; p < n; ++p)
    if (auto misfit = bindValue(st, static_cast<int>(first + p), row.values[plan.order[p]],
                                plan.columns[p], scratch_[first - 1 + p]))
      return misfit;
  return std::nullopt;
}

// One row through the single-row statement; a constraint or type violation is reported.
void SqliteRowWriter::writeRow(Plan& plan, const RecordMapper::Row& row, BatchScope& scope) {
  if (plan.refused) {
    row.forEachRecord([&](const SinkRecord& r) { scope.reportBadRecord(r, *plan.refused); });
    return;
  }
  if (!plan.statement) return;
  auto& st = *plan.statement;
  if (auto misfit = bindRow(st, plan, row, 1)) {
    const ConversionError error(*misfit);
    row.forEachRecord([&](const SinkRecord& r) { scope.reportBadRecord(r, error); });
    return;
  }
  if (auto bad = step(st))
    row.forEachRecord([&](const SinkRecord& r) { scope.reportBadRecord(r, *bad); });
}

// One chunk of plan.multi_rows rows from [at, end) through the multi-row statement; rows that do
// not fit are reported and skipped. Returns where the next chunk starts.
size_t SqliteRowWriter::writeRows(Plan& plan, const std::vector<RecordMapper::Row>& rows, size_t at,
                                  size_t end, BatchScope& scope) {
  auto& st = *plan.multi;
  const size_t width = plan.order.size();
  // Sized before binding: text is bound without a copy, so scratch must not move mid-chunk.
  if (scratch_.size() < plan.multi_rows * width) scratch_.resize(plan.multi_rows * width);
  chunk_.clear();
  size_t next = at;
  for (; next < end && chunk_.size() < plan.multi_rows; ++next) {
    if (auto misfit = bindRow(st, plan, rows[next], chunk_.size() * width + 1)) {
      const ConversionError error(*misfit);
      rows[next].forEachRecord([&](const SinkRecord& r) { scope.reportBadRecord(r, error); });
      continue;
    }
    chunk_.push_back(next);
  }
  if (chunk_.size() < plan.multi_rows) {
    // Misfits left too few rows for a full chunk: write the good ones singly.
    for (const size_t i : chunk_) writeRow(plan, rows[i], scope);
    return next;
  }
  if (step(st)) {
    // The statement is atomic: nothing of the chunk was written. Find the bad rows one by one.
    for (const size_t i : chunk_) writeRow(plan, rows[i], scope);
  }
  return next;
}

}  // namespace ksink::sqlite
