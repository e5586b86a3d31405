// SqliteSinkTask: the SQLite reference sink, exactly once. Rows and the offsets that cover them are
// written in one `BEGIN IMMEDIATE … COMMIT` per batch (TransactionalSinkTask does the bookkeeping
// and the compare-and-set fencing), so a crash at any point leaves each record in the table once.
//
// Keys: connection.url (`sqlite:///abs/path.db`, `sqlite:rel.db`, `jdbc:sqlite:path` or a plain
// path), sqlite.synchronous (FULL: a committed batch survives power loss, which matters because
// the offsets live in the file), sqlite.busy.timeout.ms, plus the table keys of TableSinkConfig.
// The file is opened in WAL mode; several processes may write the same file (SQLite serialises
// them; waiting for the lock is bounded by the busy timeout, then the batch is retried).
//
// Failure taxonomy, decided in one place (sqlite_sink_task.cpp, classify()):
//   SQLITE_BUSY / SQLITE_LOCKED / SQLITE_FULL      → RetriableError (batch redelivered)
//   constraint or type violation of one row        → errant record reporter, else the task fails
//                                                    naming topic/partition/offset
//   anything else (I/O error, corrupt file, missing table without auto.create) → task fails
//
// Thread-safety: a SinkTask; the worker calls it from one thread. One SQLite connection per task.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ksink/config_def.h"
#include "ksink/transactional_sink_task.h"

namespace ksink::sqlite {

class SqliteSinkTask final : public TransactionalSinkTask {
 public:
  SqliteSinkTask();
  ~SqliteSinkTask() override;

  // Opens the database (clear error when the file cannot be opened or is not a database), sets
  // WAL, synchronous and the busy timeout, creates ksink_offsets, and checks that the tables of
  // the configured `topics` exist unless auto.create=true.
  void start(const Config& config) override;
  void stop() override;
  std::string version() const override;

  // The sink's own keys plus TableSinkConfig's.
  static const ConfigDef& configDef();
  // The file path a connection.url names; throws ConfigException for an unsupported URL.
  static std::string pathFromUrl(const std::string& url);

 protected:
  OffsetMap loadOffsets(const std::vector<TopicPartition>& partitions) override;
  bool writeBatch(std::span<const SinkRecord> records,
                  std::span<const OffsetUpdate> offsets) override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksink::sqlite
