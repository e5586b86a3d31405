#include "ksink/postgres/postgres_sink_task.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_set>

#include "ksink/record_mapper.h"
#include "ksink/retriable_error.h"
#include "pg_connection.h"
#include "pg_connection_url.h"
#include "pg_copy_stream.h"
#include "pg_error.h"
#include "pg_row_writer.h"
#include "pg_sql.h"
#include "pg_table_cache.h"
#include "pg_transaction.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {
namespace {

using Row = RecordMapper::Row;
using Layout = RecordMapper::Layout;
using Op = PgRowWriter::Op;
using InsertMode = TableSinkConfig::InsertMode;

// open() runs inside the consumer's rebalance callback: wait for the database a while, but not
// so long that the group gives up on this member.
constexpr auto kOpenRetryFor = std::chrono::seconds(30);
constexpr auto kOpenRetryDelay = std::chrono::seconds(1);

// A session that idles inside a transaction is one whose client stopped (SIGSTOP, a hung
// host): the server ends it so its locks (the offsets rows) do not block the partitions' new
// owner. Lock waits are bounded for the same reason and then retried.
constexpr std::string_view kSessionSettings =
    "SET idle_in_transaction_session_timeout = '20s'; SET lock_timeout = '10s'";

}  // namespace

class PostgresSinkTask::Impl {
 public:
  Impl(PostgresSinkTask& task, const Config& config)
      : task_(task),
        config_(PostgresSinkConfig::parse(config)),
        url_(config_.connection_url),
        mapper_(config_.table, config),
        tables_(config_.table.table_name_format, config_.table.auto_create,
                config_.table.auto_evolve),
        writer_(config_.db_timezone != "UTC") {}

  void start(const Config& config);
  OffsetMap loadOffsets(const std::vector<TopicPartition>& partitions);
  bool writeBatch(std::span<const SinkRecord> records, std::span<const OffsetUpdate> offsets);
  bool awaitOutcome();
  void stop();
  size_t batchSize() const { return static_cast<size_t>(config_.table.batch_size); }

 private:
  PgConnection& connection();
  void dropConnection();
  // The one place a PgError becomes what the worker understands.
  [[noreturn]] void fail(const PgError& error, size_t records);

  std::vector<const Row*> prepare(PgConnection& connection, RecordMapper::Batch& batch);
  std::vector<PgRowWriter::Segment> segmentsOf(std::span<const Row* const> rows) const;
  void writeRows(PgConnection& connection, std::span<const Row* const> rows);
  void isolate(PgConnection& connection, std::span<const Row* const> rows);
  bool applyOffsets(PgConnection& connection, std::span<const OffsetUpdate> offsets);
  bool transaction(PgConnection& connection, std::span<const Row* const> rows,
                   std::span<const OffsetUpdate> offsets, bool isolating);
  // What streamRows() did with a batch. kGaveUp: nothing (the general path takes it);
  // kSecondTable: nothing, because the batch spans tables and `pipelined` was asked.
  enum class Streamed { kWritten, kFenced, kGaveUp, kSecondTable };
  // `pipelined`: see streamRows() in the .cpp.
  Streamed streamRows(PgConnection& connection, std::span<const SinkRecord> records,
                      std::span<const OffsetUpdate> offsets, bool pipelined);
  // Whether streamRows() may take the batch: inserts, and upserts while their keys are new.
  bool streamable(std::span<const SinkRecord> records) const;

  PostgresSinkTask& task_;
  PostgresSinkConfig config_;
  PgConnectionUrl url_;
  RecordMapper mapper_;
  PgTableCache tables_;
  PgRowWriter writer_;
  std::optional<PgConnection> connection_;
  // The table of each layout of the batch being written (valid during one writeBatch()).
  std::map<const Layout*, const PgTable*> batch_tables_;
  // Records of the transaction whose COPY and COMMIT results are pending (0: none), and its
  // table (quoted).
  size_t in_flight_records_ = 0;
  std::string in_flight_table_;
  // The pipelined insert path gave up on a batch that spans tables: batches left before it is
  // tried again (they stream one COPY after another and commit in place).
  int unpipelined_batches_ = 0;
  // The pending transaction failed on a bad record (or, upserting, met keys the table has): its
  // redelivery takes the general path, which isolates the record (or stages the batch).
  bool isolate_next_ = false;
};

PgConnection& PostgresSinkTask::Impl::connection() {
  if (connection_ && connection_->ok()) return *connection_;
  dropConnection();
  try {
    auto c = PgConnection::open(url_.params(config_.connection_user, config_.connection_password),
                                config_.read_timeout);
    // TimeZone is quoted as a literal; a bad zone name fails here with the server's reason.
    std::string zone = "'";
    for (char ch : config_.db_timezone) zone += ch == '\'' ? std::string("''") : std::string(1, ch);
    zone += "'";
    c.exec(fmt::format("{}; SET TimeZone = {}", kSessionSettings, zone));
    connection_.emplace(std::move(c));
  } catch (const PgError& e) {
    task_.context().timeout(std::chrono::milliseconds(config_.retry_backoff_ms));
    throw RetriableError(fmt::format("cannot connect to PostgreSQL at {}: {}",
                                     Config::redactPasswords(config_.connection_url), e.what()));
  }
  return *connection_;
}

void PostgresSinkTask::Impl::dropConnection() {
  connection_.reset();
  writer_.reset();
  tables_.forget();
}

void PostgresSinkTask::Impl::fail(const PgError& error, size_t records) {
  tables_.forget();  // the error may come from a table changed under us
  if (error.kind() == PgError::Kind::kRetriable) {
    if (error.connectionLost() || !connection_ || !connection_->ok()) dropConnection();
    task_.context().timeout(std::chrono::milliseconds(config_.retry_backoff_ms));
    throw RetriableError(
        fmt::format("PostgreSQL: {} (retrying the batch of {} records)", error.what(), records));
  }
  throw std::runtime_error(
      fmt::format("PostgreSQL rejected a batch of {} records: {}", records, error.what()));
}

void PostgresSinkTask::Impl::start(const Config& config) {
  (void)config;
  for (const auto& ignored : url_.ignoredProperties())
    spdlog::warn("connection.url: JDBC property '{}' has no libpq equivalent; ignored", ignored);
  PgConnection* c = nullptr;
  try {
    c = &connection();
  } catch (const RetriableError& e) {
    // At start there is no batch to redeliver: a server we cannot reach is a reason to stop.
    throw std::runtime_error(e.what());
  }
  try {
    c->exec(PgSql::createOffsetsTable());
  } catch (const PgError& e) {
    if (!e.createdByAnother())  // else a task starting beside this one created it first
      throw std::runtime_error(fmt::format("cannot create {}: {}", kOffsetsTable, e.what()));
  }
  if (!config_.table.auto_create) {
    for (const auto& topic : config.getList("topics")) {
      const auto table = config_.table.tableName(topic);
      if (!tables_.find(*c, table))
        throw std::runtime_error(fmt::format(
            "table {} for topic {} does not exist and auto.create=false: create it or set "
            "auto.create=true",
            tables_.tableId(table).display(), topic));
    }
  }
  spdlog::info("postgres sink writing to {} (insert.mode={}, pk.mode={})",
               Config::redactPasswords(config_.connection_url), config.getString("insert.mode"),
               config.getString("pk.mode"));
}

OffsetMap PostgresSinkTask::Impl::loadOffsets(const std::vector<TopicPartition>& partitions) {
  const auto deadline = std::chrono::steady_clock::now() + kOpenRetryFor;
  for (;;) {
    try {
      auto& c = connection();
      auto r = c.execParams(PgSql::selectOffsets(), {config_.table.connector_name});
      std::set<TopicPartition> wanted(partitions.begin(), partitions.end());
      OffsetMap out;
      for (int i = 0; i < PQntuples(r.get()); ++i) {
        TopicPartition tp{PQgetvalue(r.get(), i, 0), std::stoi(PQgetvalue(r.get(), i, 1))};
        if (wanted.contains(tp)) out[tp] = std::stoll(PQgetvalue(r.get(), i, 2));
      }
      return out;
    } catch (const std::exception& e) {
      const auto* pg = dynamic_cast<const PgError*>(&e);
      const bool retriable = dynamic_cast<const RetriableError*>(&e) ||
                             (pg && pg->kind() == PgError::Kind::kRetriable);
      if (!retriable || std::chrono::steady_clock::now() >= deadline)
        throw std::runtime_error(
            fmt::format("cannot load offsets from {}: {}", kOffsetsTable, e.what()));
      if (pg) dropConnection();
      spdlog::warn("cannot load offsets from {} yet, retrying: {}", kOffsetsTable, e.what());
      std::this_thread::sleep_for(kOpenRetryDelay);
    }
  }
}

// Maps every layout to its table (creating / evolving as configured) and reports the rows that
// cannot be written at all; returns the rest, in record order.
std::vector<const Row*> PostgresSinkTask::Impl::prepare(PgConnection& connection,
                                                        RecordMapper::Batch& batch) {
  batch_tables_.clear();
  std::vector<const Row*> rows;
  rows.reserve(batch.rows.size());
  std::map<const Layout*, std::vector<std::string>> missing;
  for (const auto& row : batch.rows) {
    const Layout* layout = row.layout.get();
    if (row.is_truncate) {  // a table that does not exist has nothing to empty
      const PgTable* table = tables_.find(connection, layout->table);
      batch_tables_[layout] = table;
      if (table) rows.push_back(&row);
      continue;
    }
    auto known = batch_tables_.find(layout);
    if (known == batch_tables_.end()) {
      auto resolved = tables_.resolve(connection, *layout, row.is_delete);
      if (!resolved.missing.empty()) missing[layout] = std::move(resolved.missing);
      known = batch_tables_.emplace(layout, resolved.table).first;
    }
    if (auto m = missing.find(layout); m != missing.end()) {
      task_.reportBadRecord(*row.record, std::runtime_error(fmt::format(
                                             "table {} has no column(s) {} and auto.evolve=false",
                                             layout->table, fmt::join(m->second, ", "))));
      continue;
    }
    if (!known->second) continue;  // a delete from a table that does not exist: nothing to do
    rows.push_back(&row);
  }
  // Resolving a later layout may have re-read a table an earlier one resolved to: look every
  // table up again now that the catalog work is done.
  for (auto& [layout, table] : batch_tables_)
    if (table) table = tables_.find(connection, layout->table);
  return rows;
}

// Rows of one layout and operation form a segment, written with one COPY. In insert mode a delete
// must stay between the inserts around it; otherwise (rows reduced to one per key) order between
// segments does not matter. Truncates go first: the mapper left no row of a truncated table
// before its truncate.
std::vector<PgRowWriter::Segment> PostgresSinkTask::Impl::segmentsOf(
    std::span<const Row* const> rows) const {
  const auto mode = config_.table.insert_mode;
  const Op write_op = mode == InsertMode::kUpsert   ? Op::kUpsert
                      : mode == InsertMode::kUpdate ? Op::kUpdate
                                                    : Op::kInsert;
  std::vector<PgRowWriter::Segment> segments;
  std::map<std::pair<const Layout*, bool>, size_t> open;
  size_t truncates = 0;
  for (const Row* row : rows) {
    if (row->is_truncate) {
      segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(truncates++),
                      {row->layout.get(), Op::kTruncate, {row}});
      for (auto& [_, index] : open) ++index;
      continue;
    }
    const auto key = std::make_pair(row->layout.get(), row->is_delete);
    if (mode == InsertMode::kInsert && row->is_delete) {
      const bool extend = !segments.empty() && segments.back().op == Op::kDelete &&
                          segments.back().layout == row->layout.get();
      if (!extend) {
        open.clear();
        segments.push_back({row->layout.get(), Op::kDelete, {}});
      }
      segments.back().rows.push_back(row);
      continue;
    }
    auto it = open.find(key);
    if (it == open.end()) {
      it = open.emplace(key, segments.size()).first;
      segments.push_back({row->layout.get(), row->is_delete ? Op::kDelete : write_op, {}});
    }
    segments[it->second].rows.push_back(row);
  }
  return segments;
}

void PostgresSinkTask::Impl::writeRows(PgConnection& connection, std::span<const Row* const> rows) {
  for (const auto& segment : segmentsOf(rows))
    writer_.write(connection, *batch_tables_.at(segment.layout), segment);
}

// Bad-record isolation: write `rows` under a savepoint; when the server rejects the data, undo
// and retry each half, down to the single record, which is reported.
void PostgresSinkTask::Impl::isolate(PgConnection& connection, std::span<const Row* const> rows) {
  if (rows.empty()) return;
  connection.exec("SAVEPOINT ksink_isolate");
  try {
    writeRows(connection, rows);
    connection.exec("RELEASE SAVEPOINT ksink_isolate");
    return;
  } catch (const PgError& e) {
    if (e.kind() != PgError::Kind::kBadRecord) throw;
    connection.exec("ROLLBACK TO SAVEPOINT ksink_isolate; RELEASE SAVEPOINT ksink_isolate");
    if (rows.size() == 1) {
      task_.reportBadRecord(*rows.front()->record, e);
      return;
    }
  }
  const size_t half = rows.size() / 2;
  isolate(connection, rows.subspan(0, half));
  isolate(connection, rows.subspan(half));
}

bool PostgresSinkTask::Impl::applyOffsets(PgConnection& connection,
                                          std::span<const OffsetUpdate> offsets) {
  for (const auto& u : offsets) {
    std::vector<std::optional<std::string>> params{config_.table.connector_name, u.partition.topic,
                                                   std::to_string(u.partition.partition),
                                                   std::to_string(u.next_offset)};
    const bool insert = !u.expected.has_value();
    if (!insert) params.push_back(std::to_string(*u.expected));
    auto r = connection.execParams(
        insert ? PgSql::insertOffsetIfAbsent() : PgSql::compareAndSetOffset(), params);
    if (PgConnection::affectedRows(r.get()) != 1) {
      spdlog::warn(
          "{}: stored offset is no longer {} (another task wrote the partition); "
          "rolling back",
          u.partition, insert ? "absent" : std::to_string(*u.expected));
      return false;
    }
  }
  return true;
}

// One destination transaction: rows, then the offsets compare-and-set last, so the offsets rows
// stay locked only for the instant before COMMIT.
bool PostgresSinkTask::Impl::transaction(PgConnection& connection, std::span<const Row* const> rows,
                                         std::span<const OffsetUpdate> offsets, bool isolating) {
  PgTransaction tx(connection);
  writer_.beginTransaction();
  if (isolating) {
    // Deferred constraints would otherwise fail only at COMMIT, outside every savepoint.
    connection.exec("SET CONSTRAINTS ALL IMMEDIATE");
    isolate(connection, rows);
  } else {
    writeRows(connection, rows);
  }
  // The records this transaction skips are in the DLQ first (waited for before the offsets rows
  // are locked).
  task_.awaitReportedRecords();
  if (!applyOffsets(connection, offsets)) return false;  // tx rolls back
  tx.commit();
  return true;
}

// The fast path: records are converted one by one and streamed by binary COPY into the table
// while the server stores the rows before, in one transaction. It covers the common batch — every
// table and column in place, no tombstone, no bad record, every value with a binary form, and in
// upsert mode keys that are all new (none twice in the batch, none in the table: the server's
// 23505 says otherwise) — and gives up (everything rolled back) on anything else, which the
// general path then handles from scratch. It converts without retries: a conversion that throws
// (RetriableError included) sends the batch to the general path, which retries it under
// errors.retry.timeout.
//
// `pipelined` (one table per batch; always so for upserts): the offsets compare-and-set runs
// first, the COPY goes as "COPY ...; COMMIT", and the task returns once the last row is sent,
// leaving the server to store the rest and commit while the worker gathers the next batch
// (TransactionalSinkTask's outcomePending(); awaitOutcome() reads the outcome). Unpipelined, a
// batch of inserts may span tables: one COPY after another, then the compare-and-set and COMMIT.
PostgresSinkTask::Impl::Streamed PostgresSinkTask::Impl::streamRows(
    PgConnection& connection, std::span<const SinkRecord> records,
    std::span<const OffsetUpdate> offsets, bool pipelined) {
  const bool upsert = config_.table.insert_mode == InsertMode::kUpsert;
  PgTransaction tx(connection);
  if (pipelined && !applyOffsets(connection, offsets)) return Streamed::kFenced;  // rolls back
  std::optional<PgCopyStream> stream;
  std::shared_ptr<const Layout> layout;
  std::unordered_set<size_t> keys;  // upsert: a key hash seen twice sends the batch to reduction
  try {
    for (const auto& record : records) {
      std::optional<Row> row;
      try {
        row = mapper_.map(record);
      } catch (const std::exception&) {
        return Streamed::kGaveUp;  // a bad or unconvertible record: the general path decides
      }
      if (!row) continue;  // a tombstone skipped (delete.enabled=false)
      if (row->is_delete || row->is_truncate) return Streamed::kGaveUp;
      if (upsert && (row->layout->key_count == 0 ||
                     !keys.insert(RecordMapper::keyHash(*row)).second))
        return Streamed::kGaveUp;
      if (!stream || layout != row->layout) {
        if (stream && pipelined) return upsert ? Streamed::kGaveUp : Streamed::kSecondTable;
        if (stream) stream->finish(connection);  // before any other statement
        const PgTable* table = tables_.ready(connection, *row->layout);
        if (!table) return Streamed::kGaveUp;
        layout = row->layout;  // held, so the pointer stays unique while compared
        stream.emplace(*table, *row->layout, row->layout->columns.size(),
                       config_.db_timezone != "UTC");
        // A server-side conversion (db.timezone) needs the staged path.
        if (stream->columns().empty() || writer_.needsStaging(*table, *row->layout))
          return Streamed::kGaveUp;
        stream->begin(connection, table->id.quoted(), pipelined ? "COMMIT" : "");
      }
      if (!stream->add(*row)) return Streamed::kGaveUp;
      stream->flush(connection);
    }
    if (stream && pipelined) {
      stream->finishLater(connection);
      tx.commitSent();
      in_flight_records_ = records.size();
      in_flight_table_ = stream->target();
      task_.outcomePending();
      return Streamed::kWritten;
    }
    if (stream) stream->finish(connection);
  } catch (const PgError& e) {
    if (e.kind() != PgError::Kind::kBadRecord) throw;
    // A key the table has (upsert), or a bad record: the general path stages or isolates.
    if (upsert && stream && e.sqlstate() == "23505")
      writer_.straightUpsertDone(stream->target(), false);
    return Streamed::kGaveUp;
  }
  if (!pipelined && !applyOffsets(connection, offsets)) return Streamed::kFenced;
  tx.commit();
  return Streamed::kWritten;
}

bool PostgresSinkTask::Impl::streamable(std::span<const SinkRecord> records) const {
  switch (config_.table.insert_mode) {
    case InsertMode::kInsert:
      return true;
    case InsertMode::kUpsert:
      return writer_.upsertsLikelyNew(
          tables_.tableId(config_.table.tableName(records.front().topic())).quoted());
    default:
      return false;
  }
}

// The outcome of the pipelined transaction: its COPY's and COMMIT's results.
bool PostgresSinkTask::Impl::awaitOutcome() {
  const size_t records = std::exchange(in_flight_records_, 0);
  if (records == 0) return true;
  if (!connection_) throw RetriableError("PostgreSQL: the connection closed before COMMIT's outcome");
  const bool upsert = config_.table.insert_mode == InsertMode::kUpsert;
  try {
    connection_->collectResults();
    if (upsert) writer_.straightUpsertDone(in_flight_table_, true);
    return true;
  } catch (const PgError& e) {
    // The failed COPY or COMMIT left the transaction aborted, or the session is gone.
    if (connection_->ok()) {
      try {
        connection_->exec("ROLLBACK");
      } catch (const PgError&) {
        dropConnection();
      }
    }
    if (e.kind() != PgError::Kind::kBadRecord) fail(e, records);
    if (upsert && e.sqlstate() == "23505") {
      writer_.straightUpsertDone(in_flight_table_, false);
      spdlog::debug("batch of {} upserts met existing keys; it comes again to be staged", records);
    } else {
      spdlog::info("batch of {} records rejected ({}); it comes again to isolate the bad record(s)",
                   records, e.what());
    }
    isolate_next_ = true;
    return false;
  }
}

bool PostgresSinkTask::Impl::writeBatch(std::span<const SinkRecord> records,
                                        std::span<const OffsetUpdate> offsets) {
  auto& c = connection();
  if (!std::exchange(isolate_next_, false) && streamable(records)) {
    try {
      const bool pipelined = unpipelined_batches_ == 0;
      if (!pipelined) --unpipelined_batches_;
      auto streamed = streamRows(c, records, offsets, pipelined);
      if (streamed == Streamed::kSecondTable) {
        unpipelined_batches_ = 63;
        streamed = streamRows(c, records, offsets, /*pipelined=*/false);
      }
      if (streamed == Streamed::kWritten) return true;
      if (streamed == Streamed::kFenced) return false;
    } catch (const PgError& e) {
      fail(e, records.size());
    }
  }
  auto batch = mapper_.map(records, task_.context());
  // Records that cannot even be converted (a conversion that still fails after the retries of
  // errors.retry.timeout included) are decided first; under errors.tolerance=none the first one
  // fails the task here, before anything is written.
  for (const auto& f : batch.failures) task_.reportBadRecord(*f.record, f.error);
  try {
    const auto rows = prepare(c, batch);
    try {
      return transaction(c, rows, offsets, /*isolating=*/false);
    } catch (const PgError& e) {
      if (e.kind() != PgError::Kind::kBadRecord) throw;
      spdlog::info("batch of {} records rejected ({}); isolating the bad record(s)", records.size(),
                   e.what());
    }
    return transaction(c, rows, offsets, /*isolating=*/true);
  } catch (const PgError& e) {
    fail(e, records.size());
  }
}

// A pipelined COMMIT still unanswered is waited for, so what put() sent is not cut off with the
// session; its outcome no longer matters to anyone (the stored offsets tell the next owner).
void PostgresSinkTask::Impl::stop() {
  if (connection_ && std::exchange(in_flight_records_, 0) > 0) {
    try {
      connection_->collectResults();
    } catch (const PgError& e) {
      spdlog::warn("the last batch did not commit before the task stopped: {}", e.what());
    }
  }
  connection_.reset();
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

OffsetMap PostgresSinkTask::loadOffsets(const std::vector<TopicPartition>& partitions) {
  return impl_->loadOffsets(partitions);
}

bool PostgresSinkTask::writeBatch(std::span<const SinkRecord> records,
                                  std::span<const OffsetUpdate> offsets) {
  return impl_->writeBatch(records, offsets);
}

bool PostgresSinkTask::awaitOutcome() {
  return impl_->awaitOutcome();
}

}  // namespace ksink::postgres
