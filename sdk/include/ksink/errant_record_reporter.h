// ErrantRecordReporter: how a SinkTask hands a record it cannot write (bad data, constraint
// violation) to the worker's error handling instead of failing the whole task.
//
// Under errors.tolerance=all the record is logged and/or written to the dead-letter queue and the
// task goes on; under errors.tolerance=none report() throws, and the task should let it propagate.
// DLQ writes are asynchronous: the worker waits for them before any offset commit that covers the
// reported records, and a sink that stores its offsets itself (TransactionalSinkTask's destination,
// through BatchScope) calls awaitDelivered() before committing a transaction that skips reported
// records. How long that
// wait may last is the worker's to say (offset.flush.timeout.ms), not the caller's.
// Call it only from the task's own thread, inside put()/flush()/preCommit().
#pragma once

#include <chrono>
#include <exception>

#include "ksink/sink_record.h"

namespace ksink {

class ErrantRecordReporter {
 public:
  // What became of the records reported so far.
  enum class Delivery {
    kDelivered,  // all durable where the reporter writes them (or nothing to wait for)
    kPending,    // not all acknowledged within the timeout: do not commit past them yet
    kFailed,     // a write failed since the last call: that record is safe nowhere
  };

  virtual ~ErrantRecordReporter() = default;
  virtual void report(const SinkRecord& record, const std::exception& error) = 0;
  // Waits, at most the worker's offset.flush.timeout.ms, for every record reported so far. A
  // failure is reported once: by the first call after it happened.
  virtual Delivery awaitDelivered() { return Delivery::kDelivered; }
};

}  // namespace ksink
