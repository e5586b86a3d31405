#include "ksink/postgres/postgres_sink_task.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>
#include <stdexcept>

#include "ksink/record_mapper.h"
#include "ksink/retriable_error.h"
#include "ksink/table_policy.h"
#include "pg_batch_writer.h"
#include "pg_error.h"
#include "pg_offset_store.h"
#include "pg_row_writer.h"
#include "pg_session.h"
#include "pg_stream_writer.h"
#include "pg_table_cache.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {

// The sink's parts, and the one place a batch's outcome is settled: which path writes it, what a
// PgError means for the worker, and what a pipelined outcome leaves for the next batch.
class PostgresSinkTask::Impl {
 public:
  Impl(PostgresSinkTask& task, const Config& config)
      : task_(task),
        config_(PostgresSinkConfig::parse(config)),
        session_(
            config_, [this](std::chrono::milliseconds ms) { task_.context().timeout(ms); },
            [this] { forgetServerState(); }),
        offsets_(session_, config_.table.connector_name),
        mapper_(config_.table, config),
        tables_(config_.table.table_name_format, TablePolicy(config_.table)),
        writer_(config_.db_timezone != "UTC"),
        stream_(config_, mapper_, tables_, writer_, storeOffsets()),
        batches_(
            config_, tables_, writer_,
            {[this](const SinkRecord& r, const std::exception& e) { task_.reportBadRecord(r, e); },
             [this] { task_.awaitReportedRecords(); }, storeOffsets()}) {}

  void start(const Config& config);
  // What writeBatch() did; the task settles it (TransactionalSinkTask's writeBatch() contract).
  enum class Written { kCommitted, kPending, kFenced };
  Written writeBatch(std::span<const SinkRecord> records, std::span<const OffsetUpdate> offsets);
  bool awaitOutcome();
  void stop();
  OffsetStore& offsetStore() { return offsets_; }
  size_t batchSize() const { return static_cast<size_t>(config_.table.batch_size); }

 private:
  std::function<bool(std::span<const OffsetUpdate>)> storeOffsets() {
    return [this](std::span<const OffsetUpdate> offsets) { return task_.storeOffsets(offsets); };
  }
  void forgetServerState() {
    writer_.reset();
    tables_.forget();
  }
  // The one place a PgError becomes what the worker understands (TransactionalSinkTask's
  // failWrite()).
  [[noreturn]] void fail(const PgError& error, size_t records);

  PostgresSinkTask& task_;
  PostgresSinkConfig config_;
  PgSession session_;
  PgOffsetStore offsets_;
  RecordMapper mapper_;
  PgTableCache tables_;
  PgRowWriter writer_;
  PgStreamWriter stream_;
  PgBatchWriter batches_;
  // The pipelined insert path gave up on a batch that spans tables: batches left before it is
  // tried again (they stream one COPY after another and commit in place).
  int unpipelined_batches_ = 0;
  // The pending transaction failed on a bad record (or, upserting, met keys the table has): its
  // redelivery takes the general path, which isolates the record (or stages the batch).
  bool isolate_next_ = false;
};

void PostgresSinkTask::Impl::fail(const PgError& error, size_t records) {
  tables_.forget();  // the error may come from a table changed under us
  if (error.kind() == WriteFailure::kRetriable) {
    auto* c = session_.existing();
    if (error.connectionLost() || !c || !c->ok()) session_.drop();
  }
  task_.failWrite(error.kind(), "PostgreSQL", error.what(), records,
                  std::chrono::milliseconds(config_.retry_backoff_ms));
}

void PostgresSinkTask::Impl::start(const Config& config) {
  for (const auto& ignored : session_.url().ignoredProperties())
    spdlog::warn("connection.url: JDBC property '{}' has no libpq equivalent; ignored", ignored);
  PgConnection* c = nullptr;
  try {
    c = &session_.connection();
  } catch (const RetriableError& e) {
    // At start there is no batch to redeliver: a server we cannot reach is a reason to stop.
    throw std::runtime_error(e.what());
  }
  offsets_.create(*c);
  tables_.checkTablesAtStart(*c, config_.table, config.getList("topics"));
  spdlog::info("postgres sink writing to {} (insert.mode={}, pk.mode={})",
               Config::redactPasswords(config_.connection_url), config.getString("insert.mode"),
               config.getString("pk.mode"));
}

PostgresSinkTask::Impl::Written PostgresSinkTask::Impl::writeBatch(
    std::span<const SinkRecord> records, std::span<const OffsetUpdate> offsets) {
  auto& c = session_.connection();
  tables_.bound();
  RecordMapper::Mapped mapped;  // what the stream path converted before it gave up
  if (!std::exchange(isolate_next_, false) && stream_.streamable(records)) {
    try {
      const bool pipelined = unpipelined_batches_ == 0;
      if (!pipelined) --unpipelined_batches_;
      auto outcome = stream_.write(c, records, offsets, pipelined, mapped);
      if (outcome == PgStreamWriter::Outcome::kSecondTable) {
        unpipelined_batches_ = 63;
        outcome = stream_.write(c, records, offsets, /*pipelined=*/false, mapped);
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
      fail(e, records.size());
    }
  }
  auto batch = task_.mapBatch(mapper_, records, std::move(mapped));
  try {
    return batches_.write(c, batch, offsets) ? Written::kCommitted : Written::kFenced;
  } catch (const PgError& e) {
    fail(e, records.size());
  }
}

// The outcome of the pipelined transaction: its COPY's and COMMIT's results.
bool PostgresSinkTask::Impl::awaitOutcome() {
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
    if (e.kind() != WriteFailure::kBadRecord) fail(e, records);
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
void PostgresSinkTask::Impl::stop() {
  if (auto* c = session_.existing()) stream_.finishPending(*c);
  session_.close();
}

PostgresSinkTask::PostgresSinkTask() = default;
PostgresSinkTask::~PostgresSinkTask() = default;

void PostgresSinkTask::start(const Config& config) {
  impl_ = std::make_unique<Impl>(*this, config);
  setMaxBatchSize(impl_->batchSize());
  impl_->start(config);
}

void PostgresSinkTask::stop() {
  if (impl_) impl_->stop();
}

std::string PostgresSinkTask::version() const {
  return KSINK_POSTGRES_VERSION;
}

const ConfigDef& PostgresSinkTask::configDef() {
  return PostgresSinkConfig::configDef();
}

OffsetStore* PostgresSinkTask::offsetStore() {
  return impl_ ? &impl_->offsetStore() : nullptr;
}

// A batch's outcome is settled here, once: committed, fenced, or pending (pipelined: its outcome
// is read by awaitOutcome() before the next write).
bool PostgresSinkTask::writeBatch(std::span<const SinkRecord> records,
                                  std::span<const OffsetUpdate> offsets) {
  switch (impl_->writeBatch(records, offsets)) {
    case Impl::Written::kCommitted:
      return true;
    case Impl::Written::kPending:
      outcomePending();
      return true;
    case Impl::Written::kFenced:
      return false;
  }
  return false;
}

bool PostgresSinkTask::awaitOutcome() {
  return impl_->awaitOutcome();
}

}  // namespace ksink::postgres
