#include "sqlite_offset_store.h"

#include <fmt/format.h>

#include <stdexcept>

#include "ksink/retriable_error.h"
#include "ksink/sqlite_db/sqlite_failure.h"
#include "sqlite_dialect.h"

namespace ksink::sqlite {
namespace {

SQLite::Database& created(SQLite::Database& db) {
  db.exec(SqliteDialect::createOffsetsTable());
  return db;
}

}  // namespace

SqliteOffsetStore::SqliteOffsetStore(SQLite::Database& db, std::string connector, std::string path)
    : connector_(std::move(connector)),
      path_(std::move(path)),
      select_(created(db), SqliteDialect::selectOffset()),
      update_(db, SqliteDialect::compareAndSetOffset()),
      insert_(db, SqliteDialect::insertOffsetIfAbsent()) {}

OffsetMap SqliteOffsetStore::load(const std::vector<TopicPartition>& partitions) {
  OffsetMap out;
  try {
    for (const auto& tp : partitions) {
      select_.bind(1, connector_);
      select_.bind(2, tp.topic);
      select_.bind(3, tp.partition);
      if (select_.executeStep()) out[tp] = select_.getColumn(0).getInt64();
      select_.reset();
    }
  } catch (const SQLite::Exception& e) {
    select_.tryReset();
    if (sqliteFailure(e) == DbFailure::kRetriable)
      throw RetriableError(fmt::format("reading stored offsets: {}", e.what()));
    throw std::runtime_error(fmt::format("reading stored offsets from {}: {}", path_, e.what()));
  }
  return out;
}

bool SqliteOffsetStore::compareAndSet(const Update& u) {
  auto& st = u.expected ? update_ : insert_;
  st.bind(1, connector_);
  st.bind(2, u.partition.topic);
  st.bind(3, u.partition.partition);
  st.bind(4, static_cast<int64_t>(u.next_offset));
  if (u.expected) st.bind(5, static_cast<int64_t>(*u.expected));
  const int changed = st.exec();
  st.reset();
  return changed == 1;
}

void SqliteOffsetStore::reset() noexcept {
  update_.tryReset();
  insert_.tryReset();
}

}  // namespace ksink::sqlite
