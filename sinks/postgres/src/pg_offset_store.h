// PgOffsetStore: the PostgreSQL sink's ksink_offsets table behind the toolkit's OffsetStore — its
// SQL (PgSql) and libpq calls only; the compare-and-set loop and the fencing decision are
// TransactionalSinkTask's. load() runs inside the consumer's rebalance callback (open()), so it
// waits for the database a while, but not so long that the group gives up on this member.
// Single-threaded: the task's thread.
#pragma once

#include <string>
#include <vector>

#include "ksink/offset_store.h"
#include "pg_session.h"

namespace ksink::postgres {

class PgOffsetStore final : public OffsetStore {
 public:
  PgOffsetStore(PgSession& session, std::string connector)
      : session_(session), connector_(std::move(connector)) {}

  // CREATE TABLE IF NOT EXISTS, tolerating a task starting beside this one creating it first.
  void create(PgConnection& connection);
  OffsetMap load(const std::vector<TopicPartition>& partitions) override;
  bool compareAndSet(const Update& update) override;

 private:
  PgSession& session_;
  std::string connector_;
};

}  // namespace ksink::postgres
