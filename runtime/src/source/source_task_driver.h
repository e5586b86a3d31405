// SourceTaskDriver: the runtime's source task loops' view of a task — records converted to bytes,
// offsets as Connect's bytes. Internal: SourceTaskAdapter (source_task_adapter.h) implements it
// for a connector's ksink::SourceTask; the loops and their tests see only this. (Once a seam in
// the connector contract, while the runtime sat below the data model.)
//
// The runtime calls start(), poll() and stop() on the task's thread, commit() and commitRecord()
// on its service thread (or the task's, for a dropped record and at the end), in Kafka Connect's
// order; wake() from any thread, between start() and stop().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ksink/config.h"
#include "ksink/record_metadata.h"
#include "producer_record_bytes.h"

namespace ksink::detail {

// A transaction boundary a task asked for through its TransactionContext (exactly-once with
// transaction.boundary=connector): commit, or abort, the transaction there.
enum class TransactionRequest { kNone, kCommit, kAbort };

// One record poll() returned, converted.
struct PolledRecord {
  // nullopt: not to be produced (a transform dropped it, or it failed conversion under
  // errors.tolerance=all); its offset is committed all the same once what precedes it is.
  std::optional<ProducerRecordBytes> record;
  // The offset entry it advances, as stored (Connect's bytes): the key
  // ["<connector>",{partition}] (one string shared by the records of a partition) and the value
  // (nullopt: a null offset, stored as a tombstone).
  std::shared_ptr<const std::string> offset_key;
  std::optional<std::string> offset_value;
  uint64_t id = 0;       // handed back to commitRecord()
  bool skipped = false;  // it failed its transforms or conversion, under errors.tolerance=all
  // Its partition has no stored offset, but one equal to it up to key order or number types has
  // (reported once per partition: see SourceTaskAdapter).
  bool partition_key_mismatch = false;
  // The transaction ends right after this record (its offset included).
  TransactionRequest transaction = TransactionRequest::kNone;
};

// Committed offset entries, by their key bytes. Only what was committed is visible.
class OffsetEntryReader {
 public:
  virtual ~OffsetEntryReader() = default;
  virtual std::optional<std::string> get(std::string_view key) const = 0;
  // Every key stored (for the connector's own lookups and its partition-mismatch check).
  virtual std::vector<std::string> keys() const = 0;
};

class SourceTaskDriver {
 public:
  virtual ~SourceTaskDriver() = default;
  // Builds the converters and transforms from `config`, then starts the task, which may read its
  // committed offsets through `offsets` (valid until stop() returns).
  virtual void start(const Config& config, const OffsetEntryReader& offsets) = 0;
  // The next records, empty when none is ready. Throws RetriableError for a pause and retry; any
  // other exception fails the task.
  virtual std::vector<PolledRecord> poll() = 0;
  // Any thread: a poll() blocked waiting for data should return (the task is stopping).
  virtual void wake() = 0;
  // After a successful (or empty) offset flush. Exceptions are logged, not fatal.
  virtual void commit() = 0;
  // Once the record `id` was acknowledged (`metadata`), or dropped (nullopt). Exceptions are
  // logged, not fatal.
  virtual void commitRecord(uint64_t id, const std::optional<RecordMetadata>& metadata) = 0;
  virtual void stop() = 0;
  // The task's version(), for logs.
  virtual std::string version() const = 0;
  // After poll(): a boundary the task asked for after the records returned so far (a
  // record-level request travels with its record instead). Cleared by the call.
  virtual TransactionRequest takeTransactionRequest() { return TransactionRequest::kNone; }
  // False once it is known that commitRecord() does nothing for this task: the runtime may then
  // stop keeping what it would pass to it. Any thread.
  virtual bool wantsCommitRecord() const { return true; }
};

using SourceDriverFactory = std::function<std::unique_ptr<SourceTaskDriver>()>;

}  // namespace ksink::detail
