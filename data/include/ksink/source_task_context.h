// SourceTaskContext: what the runtime offers a source task (Kafka Connect's SourceTaskContext).
// The task reaches it through SourceTask::context(), from start() on.
#pragma once

#include "ksink/config.h"
#include "ksink/offset_storage_reader.h"
#include "ksink/transaction_context.h"

namespace ksink {

class SourceTaskContext {
 public:
  virtual ~SourceTaskContext() = default;
  // The configuration the task was started with.
  virtual const Config& config() const = 0;
  // The connector's committed offsets (valid until stop() returns).
  virtual const OffsetStorageReader& offsetStorageReader() const = 0;
  // nullptr unless the connector runs exactly once with connector-defined transactions.
  virtual TransactionContext* transactionContext() = 0;
};

}  // namespace ksink
