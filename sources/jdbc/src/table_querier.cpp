#include "table_querier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "ksink/db/sql_identifier.h"
#include "table_query.h"

namespace ksink::jdbc {

TableQuerier::TableQuerier(const JdbcSourceConfig& config, std::optional<TableRef> table,
                           TableInfo info, std::string incrementing_column, JdbcOffset start)
    : config_(config),
      table_(std::move(table)),
      info_(std::move(info)),
      incrementing_column_(std::move(incrementing_column)),
      topic_(config.topic_prefix + (table_ ? table_->name : "")),
      partition_(!table_                                        ? queryPartition()
                 : config.mode == JdbcSourceConfig::Mode::kBulk ? legacyTablePartition(table_->name)
                                                                : tablePartition(table_->fqn())),
      offset_(std::move(start)) {
  last_query_ = Clock::time_point{};
}

bool TableQuerier::due(Clock::time_point now) const {
  return reading() || last_query_ == Clock::time_point{} || now >= nextDue();
}

void TableQuerier::reset() {
  cursor_.reset();
  buffer_.clear();
  exhausted_ = false;
}

namespace {

// Horizons kept while none settles (a transaction left open): the oldest and the newest ones.
constexpr size_t kMaxPendingHorizons = 16;
constexpr auto kStuckWarningEvery = std::chrono::minutes(1);

}  // namespace

std::optional<Horizon> TableQuerier::settledHorizon(SourceDatabase& db, Clock::time_point now) {
  const bool by_increment = config_.mode == JdbcSourceConfig::Mode::kIncrementing;
  const std::string from = table_ ? table_->quoted() : "(" + config_.query + ") AS ksink_query";
  horizons_.push_back({db.horizon(from, by_increment ? quoteIdentifier(incrementing_column_) : "",
                                  config_.usesTimestamp()),
                       now});
  if (horizons_.size() > kMaxPendingHorizons) horizons_.erase(horizons_.begin() + 1);
  // What is open now: the newest horizon's `open`. A horizon is settled when none of its own is
  // among them; the newest one when no other transaction was open at all.
  const auto& running = horizons_.back().horizon.open;
  auto settled = [&](size_t i) {
    const auto& h = horizons_[i].horizon;
    if (i + 1 == horizons_.size()) return h.open.empty();
    return std::none_of(h.open.begin(), h.open.end(), [&](const std::string& vxid) {
      return std::find(running.begin(), running.end(), vxid) != running.end();
    });
  };
  for (size_t i = horizons_.size(); i-- > 0;) {
    if (!settled(i)) continue;
    Horizon out = std::move(horizons_[i].horizon);
    horizons_.erase(horizons_.begin(), horizons_.begin() + static_cast<long>(i) + 1);
    return out;
  }
  const auto& oldest = horizons_.front();
  if (now - oldest.taken > kStuckWarningEvery && now - last_warning_ > kStuckWarningEvery) {
    last_warning_ = now;
    spdlog::warn(
        "JDBC source: {} waits for transactions open for {} s to end before reading on "
        "(sessions {}): a transaction left open holds this source back (commit.horizon=wait)",
        table_ ? table_->fqn() : "the query",
        std::chrono::duration_cast<std::chrono::seconds>(now - oldest.taken).count(),
        fmt::join(oldest.horizon.sessions, ", "));
  }
  return std::nullopt;
}

bool TableQuerier::open(SourceDatabase& db, Clock::time_point now) {
  using Mode = JdbcSourceConfig::Mode;
  last_query_ = now;
  std::optional<Instant> end;
  if (config_.usesTimestamp()) end = db.now().minusMillis(config_.timestamp_delay.count());
  std::optional<int64_t> incrementing_bound;
  if (config_.commit_horizon && config_.mode != Mode::kBulk && db.commitsOutOfOrder()) {
    const auto horizon = settledHorizon(db, now);
    if (!horizon) return false;
    if (config_.mode == Mode::kIncrementing) {
      if (!horizon->incrementing_bound) return false;  // the table was empty
      incrementing_bound = horizon->incrementing_bound;
    }
    if (end && horizon->timestamp_bound) end = std::min(*end, *horizon->timestamp_bound);
  }
  const auto spec = TableQuery::build(config_, db, table_, table_ ? &info_ : nullptr,
                                      incrementing_column_, offset_, end, incrementing_bound);
  cursor_ = db.query(spec);
  exhausted_ = false;
  buildSchemas();
  return true;
}

void TableQuerier::buildSchemas() {
  const auto& columns = cursor_->columns();
  auto value = std::make_shared<Schema>();
  value->type = Schema::Type::kStruct;
  if (table_) value->name = table_->name;
  value->fields = columns;
  value_schema_ = value;
  key_columns_.clear();
  key_schema_.reset();
  if (info_.key.empty()) return;
  auto key = std::make_shared<Schema>();
  key->type = Schema::Type::kStruct;
  for (const auto& name : info_.key) {
    const auto it = std::find_if(columns.begin(), columns.end(),
                                 [&](const Schema::Field& f) { return f.name == name; });
    if (it == columns.end()) return;  // the key is not in the result: no key
    key_columns_.push_back(static_cast<size_t>(it - columns.begin()));
    key->fields.push_back(*it);
  }
  key_schema_ = key;
}

SourceRecord TableQuerier::record(FetchedRow& row, const JdbcOffset& offset) const {
  SchemaAndValue key;
  if (key_schema_) {
    Value::Object fields;
    for (size_t i = 0; i < key_columns_.size(); ++i)
      fields.emplace_back(key_schema_->fields[i].name, row.values[key_columns_[i]]);
    key = {key_schema_, Value::object(std::move(fields))};
  }
  Value::Object fields;
  fields.reserve(row.values.size());
  for (size_t i = 0; i < row.values.size(); ++i)
    fields.emplace_back(value_schema_->fields[i].name, std::move(row.values[i]));
  std::optional<SourceMap> source_offset;
  if (config_.mode != JdbcSourceConfig::Mode::kBulk) source_offset = offset.toMap();
  return SourceRecord(partition_, std::move(source_offset), topic_, std::nullopt, std::move(key),
                      {value_schema_, Value::object(std::move(fields))});
}

std::vector<SourceRecord> TableQuerier::poll(SourceDatabase& db, Clock::time_point now) {
  using Mode = JdbcSourceConfig::Mode;
  std::vector<SourceRecord> out;
  const auto max = static_cast<size_t>(config_.batch_max_rows);
  try {
    if (!cursor_ && buffer_.empty() && !open(db, now)) return out;
    std::vector<FetchedRow> fetched;
    if (cursor_ && !exhausted_) {
      // One more than a batch in timestamp mode: the row after the last tells its offset.
      const size_t want = max + (config_.mode == Mode::kTimestamp ? 1 : 0);
      if (buffer_.size() < want) {
        exhausted_ = !cursor_->fetch(want - buffer_.size(), fetched);
        for (auto& r : fetched) buffer_.push_back(std::move(r));
      }
    }
  } catch (...) {
    reset();
    throw;
  }
  out.reserve(std::min(max, buffer_.size()));
  bool held = false;  // timestamp mode: the next row, not fetched yet, decides this one's offset
  while (!buffer_.empty() && out.size() < max && !held) {
    FetchedRow& row = buffer_.front();
    switch (config_.mode) {
      case Mode::kBulk:
        break;
      case Mode::kIncrementing:
        offset_.incrementing = row.incrementing;
        break;
      case Mode::kTimestampIncrementing:
        offset_.timestamp = row.timestamp;
        offset_.incrementing = row.incrementing;
        break;
      case Mode::kTimestamp:
        if (buffer_.size() > 1) {
          if (buffer_[1].timestamp > row.timestamp) offset_.timestamp = row.timestamp;
        } else if (exhausted_) {
          offset_.timestamp = row.timestamp;
        } else {
          held = true;
          continue;
        }
        break;
    }
    out.push_back(record(row, offset_));
    buffer_.pop_front();
  }
  if (exhausted_ && buffer_.empty()) {
    cursor_.reset();
    exhausted_ = false;
  }
  return out;
}

}  // namespace ksink::jdbc
