// PostgresSinkTask: the reference PostgreSQL sink. Kafka records become rows of PostgreSQL tables,
// exactly once: each batch is one transaction holding the rows and the compare-and-set of the
// partitions' offsets in `ksink_offsets` (TransactionalSinkTask), so a crash, a rebalance or a
// zombie task can neither lose nor duplicate a record.
//
// Configuration follows Confluent's JDBC sink (see PostgresSinkConfig and TableSinkConfig):
// insert.mode insert (binary COPY, streamed while records convert) | upsert (streamed like an
// insert while the keys are new, else COPY into a staging table, then UPDATE existing keys and
// INSERT the rest) | update; pk.mode; delete.enabled; auto.create / auto.evolve. A streamed batch
// of one table is pipelined: put() returns with its COMMIT sent, and the destination reads the
// answer before the next batch (TransactionalSinkTask). See docs/postgres-sink.md.
//
// Failures are classified once, by SQLSTATE (PgError::classify, into the toolkit's WriteFailure): a
// lost connection, serialization failure, deadlock or server shutdown → RetriableError (reconnect,
// the worker redelivers); a data error in some record → that record is isolated (the batch is
// retried in halves under savepoints) and handed to the errant record reporter, or the task fails
// naming it; anything else is fatal. Missing tables and columns: TablePolicy.
//
// Parts (sinks/postgres/src): PgDestination (the TransactionalDestination the task drives, which
// settles every batch's outcome), PgSession (the connection), PgOffsetStore (ksink_offsets),
// PgStreamWriter (the streamed, pipelined path), PgBatchWriter (the general path), PgTableCache
// (the catalog), PgSql (every statement's text).
//
// Called only from its worker task thread, like every SinkTask. libpq types stay inside the
// implementation.
#pragma once

#include <memory>
#include <string>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/transactional_sink_task.h"

namespace ksink::postgres {

class PostgresSinkTask final : public TransactionalSinkTask {
 public:
  std::string version() const override;

  // Every key the sink reads (for the registry and `ksink validate`).
  static const ConfigDef& configDef();

 protected:
  // Connects, creates ksink_offsets if needed and checks the destination tables of `topics`;
  // throws (failing the task at start, with the reason) on a bad URL or a missing table with
  // auto.create=false. A server it cannot reach is RetriableError, the worker starting the task
  // again after connection.backoff.ms, connection.attempts times in a row at most (as Confluent's
  // JDBC connectors bound them); then the task fails with the last reason.
  std::unique_ptr<TransactionalDestination> openDestination(const Config& config) override;

 private:
  int connect_failures_ = 0;  // failed connection attempts in a row at start
};

}  // namespace ksink::postgres
