// WorkerTransactionContext: the TransactionContext an exactly-once task with
// transaction.boundary=connector gets (Kafka Connect's WorkerTransactionContext) — it collects the
// task's requests for the runtime to take: after the batch (commitTransaction(),
// abortTransaction()) or after a record (the overloads), a record being matched by value (its
// topic, Kafka partition, source partition and offset, key and value), as Connect matches it.
// Asking both to commit and to abort the same batch, or the same record, is a bug in the task:
// taking that request throws, which fails the task (Connect's IllegalStateException).
//
// Thread-safe: the task asks from poll() or commitRecord(), the runtime takes on the task's thread.
#pragma once

#include <mutex>
#include <vector>

#include "ksink/transaction_context.h"
#include "source_task_driver.h"

namespace ksink {

class WorkerTransactionContext final : public TransactionContext {
 public:
  void commitTransaction() override;
  void commitTransaction(const SourceRecord& record) override;
  void abortTransaction() override;
  void abortTransaction(const SourceRecord& record) override;

  // The request made for the batch, cleared.
  detail::TransactionRequest takeBatch();
  // The request made for a record equal to `record`, removed.
  detail::TransactionRequest takeFor(const SourceRecord& record);
  // Puts back a request takeFor() returned, for a record that is to be handled later.
  void restore(const SourceRecord& record, detail::TransactionRequest request);

 private:
  struct Asked {
    SourceRecord record;
    bool commit = false;
    bool abort = false;
  };
  void ask(const SourceRecord& record, bool commit);

  std::mutex mutex_;
  bool batch_commit_ = false;
  bool batch_abort_ = false;
  std::vector<Asked> records_;
};

}  // namespace ksink
