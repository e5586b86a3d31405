// SqliteOffsetStore: the SQLite sink's ksink_offsets table behind the toolkit's OffsetStore — its
// prepared statements (SQL text in SqliteDialect) only; the compare-and-set loop and the fencing
// decision are TransactionalSinkTask's. Single-threaded: the task's thread, on its connection.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <string>
#include <vector>

#include "ksink/offset_store.h"

namespace ksink::sqlite {

class SqliteOffsetStore final : public OffsetStore {
 public:
  // Creates the table if needed. Throws SQLite::Exception.
  SqliteOffsetStore(SQLite::Database& db, std::string connector, std::string path);

  // Throws RetriableError when the file is busy, std::runtime_error for anything else.
  OffsetMap load(const std::vector<TopicPartition>& partitions) override;
  bool compareAndSet(const Update& update) override;
  // After a failed transaction: a statement left mid-step would make later COMMITs fail.
  void reset() noexcept;

 private:
  std::string connector_;
  std::string path_;
  SQLite::Statement select_, update_, insert_;
};

}  // namespace ksink::sqlite
