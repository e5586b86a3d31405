// WorkerTransactionContext: a task's boundary requests as the exactly-once runtime takes them —
// per batch, per record (matched by value, as Connect matches them), once each; both commit and
// abort of one batch or record is the task's bug and fails it.
#include "worker_transaction_context.h"

#include <gtest/gtest.h>

namespace ksink {
namespace {

using detail::TransactionRequest;

SourceRecord record(int64_t seq) {
  return SourceRecord(SourceMap{{"p", Value::integer(0)}}, SourceMap{{"seq", Value::integer(seq)}},
                      "topic", std::nullopt, SchemaAndValue{nullptr, Value::string("k")},
                      SchemaAndValue{nullptr, Value::string(std::to_string(seq))});
}

TEST(WorkerTransactionContextTest, ABatchRequestIsTakenOnce) {
  WorkerTransactionContext context;
  EXPECT_EQ(context.takeBatch(), TransactionRequest::kNone);
  context.commitTransaction();
  EXPECT_EQ(context.takeBatch(), TransactionRequest::kCommit);
  EXPECT_EQ(context.takeBatch(), TransactionRequest::kNone);
  context.abortTransaction();
  EXPECT_EQ(context.takeBatch(), TransactionRequest::kAbort);
}

TEST(WorkerTransactionContextTest, ARecordRequestMatchesAnEqualRecordOnly) {
  WorkerTransactionContext context;
  context.commitTransaction(record(3));
  context.abortTransaction(record(5));
  EXPECT_EQ(context.takeFor(record(4)), TransactionRequest::kNone);
  const auto copy = record(5);  // another object, equal
  EXPECT_EQ(context.takeFor(copy), TransactionRequest::kAbort);
  EXPECT_EQ(context.takeFor(record(5)), TransactionRequest::kNone) << "taken once";
  EXPECT_EQ(context.takeFor(record(3)), TransactionRequest::kCommit);
}

TEST(WorkerTransactionContextTest, ARestoredRequestIsTakenLater) {
  WorkerTransactionContext context;
  context.commitTransaction(record(1));
  const auto taken = context.takeFor(record(1));
  context.restore(record(1), taken);
  EXPECT_EQ(context.takeFor(record(1)), TransactionRequest::kCommit);
}

TEST(WorkerTransactionContextTest, CommitAndAbortOfTheSameBatchOrRecordFailTheTask) {
  WorkerTransactionContext context;
  context.commitTransaction();
  context.abortTransaction();
  EXPECT_THROW(context.takeBatch(), std::logic_error);
  context.commitTransaction(record(1));
  context.abortTransaction(record(1));
  EXPECT_THROW(context.takeFor(record(1)), std::logic_error);
}

}  // namespace
}  // namespace ksink
