#include "pg_destination.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>
#include <utility>

#include "ksink/retriable_error.h"
#include "ksink/table_policy.h"
#include "ksink/write_failure.h"

namespace ksink::postgres {

PgDestination::PgDestination(const Config& config)
    : config_(PostgresSinkConfig::parse(config)),
      session_(config_, [this] { forgetServerState(); }),
      offsets_(session_, config_.table.connector_name),
      mapper_(config_.table, config),
      tables_(config_.table.table_name_format, TablePolicy(config_.table),
              config_.table.table_style),
      writer_(config_.db_timezone != "UTC"),
      stream_(config_, mapper_, tables_, writer_),
      batches_(config_, tables_, writer_) {}

void PgDestination::fail(const PgError& error) {
  tables_.forget();  // the error may come from a table changed under us
  if (error.kind() == WriteFailure::kRetriable) {
    auto* c = session_.existing();
    if (error.connectionLost() || !c || !c->ok()) session_.drop();
  }
  throw WriteError(error.kind(), "PostgreSQL", error.what(),
                   std::chrono::milliseconds(config_.retry_backoff_ms));
}

void PgDestination::start(const Config& config) {
  for (const auto& ignored : session_.url().ignoredProperties())
    spdlog::warn("connection.url: JDBC property '{}' has no libpq equivalent; ignored", ignored);
  auto& c = session_.connection();
  offsets_.create(c);
  tables_.checkTablesAtStart(c, config_.table, config.getList("topics"));
  spdlog::info("postgres sink writing to {} (insert.mode={}, pk.mode={})",
               Config::redactPasswords(config_.connection_url), config.getString("insert.mode"),
               config.getString("pk.mode"));
}

PgDestination::Written PgDestination::writeBatch(std::span<const SinkRecord> records,
                                                 BatchScope& scope) {
  auto& c = session_.connection();
  tables_.bound();
  RecordMapper::Mapped mapped;  // what the stream path converted before it gave up
  if (!std::exchange(isolate_next_, false) && stream_.streamable(records)) {
    try {
      const bool pipelined = unpipelined_batches_ == 0;
      if (!pipelined) --unpipelined_batches_;
      auto outcome = stream_.write(c, records, scope, pipelined, mapped);
      if (outcome == PgStreamWriter::Outcome::kSecondTable) {
        unpipelined_batches_ = 63;
        outcome = stream_.write(c, records, scope, /*pipelined=*/false, mapped);
      }
      switch (outcome) {
        case PgStreamWriter::Outcome::kCommitted:
          return Written::kCommitted;
        case PgStreamWriter::Outcome::kPending:
          return Written::kPending;
        case PgStreamWriter::Outcome::kFenced:
          return Written::kFenced;
        case PgStreamWriter::Outcome::kGaveUp:
        case PgStreamWriter::Outcome::kSecondTable:
          break;
      }
    } catch (const PgError& e) {
      fail(e);
    }
  }
  auto batch = scope.map(mapper_, records, std::move(mapped));
  try {
    return batches_.write(c, batch, scope) ? Written::kCommitted : Written::kFenced;
  } catch (const PgError& e) {
    fail(e);
  }
}

// The outcome of the pipelined transaction: its COPY's and COMMIT's results.
bool PgDestination::awaitOutcome() {
  const size_t records = stream_.pendingRecords();
  if (records == 0) return true;
  auto* c = session_.existing();
  if (!c) throw RetriableError("PostgreSQL: the connection closed before COMMIT's outcome");
  bool reconnect = false;
  try {
    stream_.awaitOutcome(*c, reconnect);
    return true;
  } catch (const PgError& e) {
    if (reconnect) session_.drop();
    if (e.kind() != WriteFailure::kBadData) fail(e);
    if (e.sqlstate() == "23505" &&
        config_.table.insert_mode == TableSinkConfig::InsertMode::kUpsert)
      spdlog::debug("batch of {} upserts met existing keys; it comes again to be staged", records);
    else
      spdlog::info("batch of {} records rejected ({}); it comes again to isolate the bad record(s)",
                   records, e.what());
    isolate_next_ = true;
    return false;
  }
}

// A pipelined COMMIT still unanswered is waited for, so what put() sent is not cut off with the
// session; its outcome no longer matters to anyone (the stored offsets tell the next owner).
void PgDestination::stop() noexcept {
  try {
    if (auto* c = session_.existing()) stream_.finishPending(*c);
  } catch (const std::exception& e) {
    spdlog::warn("postgres sink: a pending COMMIT's outcome was lost at stop: {}", e.what());
  }
  session_.close();
}

}  // namespace ksink::postgres
