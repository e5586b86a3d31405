#include "worker_transaction_context.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace ksink {
namespace {

bool sameRecord(const SourceRecord& a, const SourceRecord& b) {
  return a.topic() == b.topic() && a.kafkaPartition() == b.kafkaPartition() &&
         a.sourcePartition() == b.sourcePartition() && a.sourceOffset() == b.sourceOffset() &&
         a.key() == b.key() && a.value() == b.value();
}

detail::TransactionRequest requestOf(bool commit, bool abort, const char* what) {
  if (commit && abort)
    throw std::logic_error(std::string("the task asked both to commit and to abort the "
                                       "transaction after ") +
                           what);
  if (abort) return detail::TransactionRequest::kAbort;
  if (commit) return detail::TransactionRequest::kCommit;
  return detail::TransactionRequest::kNone;
}

}  // namespace

void WorkerTransactionContext::commitTransaction() {
  std::lock_guard lock(mutex_);
  batch_commit_ = true;
}

void WorkerTransactionContext::abortTransaction() {
  std::lock_guard lock(mutex_);
  batch_abort_ = true;
}

void WorkerTransactionContext::commitTransaction(const SourceRecord& record) {
  ask(record, true);
}

void WorkerTransactionContext::abortTransaction(const SourceRecord& record) {
  ask(record, false);
}

void WorkerTransactionContext::ask(const SourceRecord& record, bool commit) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(records_.begin(), records_.end(),
                         [&](const Asked& a) { return sameRecord(a.record, record); });
  if (it == records_.end()) it = records_.insert(records_.end(), Asked{record});
  (commit ? it->commit : it->abort) = true;
}

detail::TransactionRequest WorkerTransactionContext::takeBatch() {
  std::lock_guard lock(mutex_);
  const bool commit = std::exchange(batch_commit_, false);
  const bool abort = std::exchange(batch_abort_, false);
  return requestOf(commit, abort, "a batch");
}

detail::TransactionRequest WorkerTransactionContext::takeFor(const SourceRecord& record) {
  std::lock_guard lock(mutex_);
  if (records_.empty()) return detail::TransactionRequest::kNone;
  auto it = std::find_if(records_.begin(), records_.end(),
                         [&](const Asked& a) { return sameRecord(a.record, record); });
  if (it == records_.end()) return detail::TransactionRequest::kNone;
  const Asked asked = std::move(*it);
  records_.erase(it);
  return requestOf(asked.commit, asked.abort, "a record");
}

void WorkerTransactionContext::restore(const SourceRecord& record,
                                       detail::TransactionRequest request) {
  if (request != detail::TransactionRequest::kNone)
    ask(record, request == detail::TransactionRequest::kCommit);
}

}  // namespace ksink
