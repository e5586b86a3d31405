// ErrantRecordReporter: how a SinkTask hands a record it cannot write (bad data, constraint
// violation) to the worker's error handling instead of failing the whole task.
//
// Under errors.tolerance=all the record is logged and/or written to the dead-letter queue and the
// task goes on; under errors.tolerance=none report() throws, and the task should let it propagate.
// Reported records are durable in the DLQ before any commit that covers them.
// Call it only from the task's own thread, inside put()/flush()/preCommit().
#pragma once

#include <exception>

#include "ksink/sink_record.h"

namespace ksink {

class ErrantRecordReporter {
 public:
  virtual ~ErrantRecordReporter() = default;
  virtual void report(const SinkRecord& record, const std::exception& error) = 0;
};

}  // namespace ksink
