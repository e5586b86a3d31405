#include "pg_row_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "copy_text_writer.h"
#include "pg_copy_stream.h"
#include "pg_sql.h"
#include "pg_types.h"

namespace ksink::postgres {
namespace {

// Large COPY payloads go out in pieces: libpq takes an int length, and smaller sends let the
// server start on the first rows while later ones are still in flight.
constexpr size_t kCopyChunk = 1 << 20;
// The savepoint a straight upsert COPY runs under.
constexpr std::string_view kStraightUpsert = "ksink_upsert";

const PgTable::Column& columnOf(const PgTable& table, const std::string& name) {
  const auto* c = table.column(name);
  if (!c)
    throw std::logic_error(
        fmt::format("PgRowWriter: table {} has no column {}", table.id.display(), name));
  return *c;
}

bool stagedAsTimestamptz(const PgTable::Column& c, const RecordMapper::Column& source,
                         bool timestamps_via_zone) {
  return PgTypes::convertedViaZone(c.type_oid, *source.schema, timestamps_via_zone);
}

}  // namespace

bool PgRowWriter::needsStaging(const PgTable& table, const RecordMapper::Layout& layout) const {
  for (const auto& c : layout.columns)
    if (stagedAsTimestamptz(columnOf(table, c.name), c, timestamps_via_zone_)) return true;
  return false;
}

bool PgRowWriter::upsertsLikelyNew(const std::string& table) const {
  auto it = straight_upserts_.find(table);
  return it == straight_upserts_.end() || it->second.skip == 0;
}

void PgRowWriter::straightUpsertDone(const std::string& table, bool keys_were_new) {
  auto& state = straight_upserts_[table];
  if (keys_were_new) {
    state.failures = 0;
    return;
  }
  state.failures = std::min(state.failures + 1, 6);
  state.skip = (1 << state.failures) - 1;  // 1, 3, 7, … 63 batches
}

bool PgRowWriter::tryCopyingUpsertsStraight(const std::string& table) {
  auto& state = straight_upserts_[table];
  if (state.skip == 0) return true;
  --state.skip;
  return false;
}

void PgRowWriter::reset() {
  staging_.clear();
  used_in_transaction_.clear();
}

PgRowWriter::Encoded PgRowWriter::encode(const PgTable& table, const RecordMapper::Layout& layout,
                                         std::span<const RecordMapper::Row* const> rows,
                                         size_t columns, bool timestamps_via_zone) {
  {
    PgCopyStream binary(table, layout, columns, timestamps_via_zone);
    bool ok = true;
    for (const auto* row : rows)
      if (!(ok = binary.add(*row))) break;
    if (ok) return {binary.data(), true};
  }
  const auto encoders = PgCopyStream::encoders(table, layout, columns, timestamps_via_zone);
  CopyTextWriter out;
  for (const auto* row : rows) {
    out.beginRow();
    for (size_t i = 0; i < columns; ++i) encoders[i].text(out, row->values[i]);
    out.endRow();
  }
  return {std::string(out.buffer()), false};
}

PgRowWriter::Target PgRowWriter::targetOf(const PgTable& table, const Segment& segment) const {
  const auto& layout = *segment.layout;
  const size_t count = segment.op == Op::kDelete ? layout.key_count : layout.columns.size();
  Target target;
  for (size_t i = 0; i < count; ++i) {
    target.columns.push_back(layout.columns[i].name);
    const bool tz = stagedAsTimestamptz(columnOf(table, target.columns.back()), layout.columns[i],
                                        timestamps_via_zone_);
    target.as_timestamptz.push_back(tz);
    target.convert |= tz;
  }
  target.staged = segment.op != Op::kInsert || target.convert;
  return target;
}

std::string PgRowWriter::stagingSignature(const PgTable& table, const Target& target) {
  // Counted, not separated (as RecordMapper's layout keys): a column name may hold any byte, so
  // "x\x1fy" and "x","y", or "x@tz" and a converted "x", must not read alike.
  std::string signature = fmt::format("{}:{}", table.id.quoted().size(), table.id.quoted());
  for (size_t i = 0; i < target.columns.size(); ++i)
    signature += fmt::format("{}:{}{}", target.columns[i].size(), target.columns[i],
                             target.as_timestamptz[i] ? 'z' : 'p');
  return signature;
}

void PgRowWriter::boundStaging(PgConnection& connection) {
  if (staging_.size() <= kMaxStagingTables) return;
  std::vector<std::string> names;
  names.reserve(staging_.size());
  for (const auto& [_, name] : staging_) names.push_back(name);
  staging_.clear();  // first: should the DROP fail, nothing names a table that may be gone
  connection.exec(PgSql::dropStaging(names));
}

void PgRowWriter::prepareStaging(PgConnection& connection, const PgTable& table,
                                 const Segment& segment) {
  if (segment.rows.empty() || segment.op == Op::kTruncate) return;
  const auto target = targetOf(table, segment);
  if (!target.staged) return;
  auto signature = stagingSignature(table, target);
  if (staging_.contains(signature)) return;
  const auto name = PgSql::stagingName(next_staging_++);
  connection.exec(PgSql::createStaging(name, table.id, target.columns, target.as_timestamptz));
  staging_.emplace(std::move(signature), name);
}

std::string PgRowWriter::stagingFor(PgConnection& connection, const PgTable& table,
                                    const Target& target) {
  const auto it = staging_.find(stagingSignature(table, target));
  if (it == staging_.end())
    throw std::logic_error(
        fmt::format("PgRowWriter: no staging table prepared for {}", table.id.display()));
  // Rows staged earlier in this transaction (a partly isolated batch) must not be applied twice.
  if (!used_in_transaction_.insert(it->second).second)
    connection.exec(PgSql::emptyStaging(it->second));
  return it->second;
}

void PgRowWriter::write(PgConnection& connection, const PgTable& table, const Segment& segment) {
  if (segment.rows.empty()) return;
  if (segment.op == Op::kTruncate) {
    // In the transaction like the rows: it commits (or rolls back) with them and the offsets.
    connection.exec(PgSql::truncate(table.id));
    return;
  }
  const auto& layout = *segment.layout;
  const auto target = targetOf(table, segment);
  const auto& columns = target.columns;
  if (segment.op == Op::kUpdate && columns.size() <= layout.key_count) return;  // nothing to set

  const auto encoded = encode(table, layout, segment.rows, columns.size(), timestamps_via_zone_);
  auto copy = [&](const std::string& into) {
    connection.beginCopy(PgSql::copyFrom(into, columns, encoded.binary));
    const std::string_view data = encoded.data;
    for (size_t at = 0; at < data.size(); at += kCopyChunk)
      connection.putCopyData(data.substr(at, kCopyChunk));
    connection.endCopy();
  };
  if (segment.op == Op::kUpsert && !target.convert &&
      tryCopyingUpsertsStraight(table.id.quoted())) {
    // Keys new to the table (initial loads, append-mostly topics) go in like inserts: COPY into
    // the table itself, under a savepoint. A key that exists fails the COPY with 23505; undo it
    // and take the staged path, and stop trying for a while on this table.
    connection.exec(PgSql::savepoint(kStraightUpsert));
    try {
      copy(table.id.quoted());
      connection.exec(PgSql::releaseSavepoint(kStraightUpsert));
      straightUpsertDone(table.id.quoted(), true);
      return;
    } catch (const PgError& e) {
      if (e.sqlstate() != "23505" || e.connectionLost()) throw;
      connection.exec(PgSql::rollbackToSavepoint(kStraightUpsert));
      straightUpsertDone(table.id.quoted(), false);
    }
  }
  if (!target.staged) {
    copy(table.id.quoted());
    return;
  }
  const std::string staging = stagingFor(connection, table, target);
  copy(staging);
  switch (segment.op) {
    case Op::kInsert:
      connection.exec(PgSql::insertFromStaging(table.id, staging, columns));
      break;
    case Op::kUpsert:
      connection.exec(PgSql::upsertFromStaging(table.id, staging, columns, layout.key_count));
      break;
    case Op::kUpdate:
      connection.exec(PgSql::updateFromStaging(table.id, staging, columns, layout.key_count));
      break;
    case Op::kDelete:
      connection.exec(PgSql::deleteFromStaging(table.id, staging, columns));
      break;
    case Op::kTruncate:  // done above, without staging
      break;
  }
}

}  // namespace ksink::postgres
