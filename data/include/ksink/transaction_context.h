// TransactionContext: how a source task defines its own transaction boundaries when the connector
// runs exactly once with `transaction.boundary=connector` (Kafka Connect's TransactionContext,
// KIP-618). SourceTaskContext::transactionContext() is nullptr in every other case.
//
// Called on the task's thread, from poll() or commitRecord(). A request applies after the records
// returned so far (or after `record`, which must be one the task returned).
#pragma once

#include "ksink/source_record.h"

namespace ksink {

class TransactionContext {
 public:
  virtual ~TransactionContext() = default;
  // Commit the transaction after the last record poll() returned.
  virtual void commitTransaction() = 0;
  // Commit the transaction right after `record`.
  virtual void commitTransaction(const SourceRecord& record) = 0;
  // Abort the transaction after the last record poll() returned: its records are discarded.
  virtual void abortTransaction() = 0;
  // Abort the transaction right after `record` (which is discarded with it).
  virtual void abortTransaction(const SourceRecord& record) = 0;
};

}  // namespace ksink
