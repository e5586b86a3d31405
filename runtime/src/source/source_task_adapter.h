// SourceTaskAdapter: a user's SourceTask as the runtime drives it (detail::SourceTaskDriver) —
// its records converted to bytes after the connector's transforms, its source partitions and
// offsets serialized as Kafka Connect stores them, and the SourceTaskContext and
// OffsetStorageReader it sees.
//
// The offset entry of a record: key ["<connector>",<partition>] and value <offset>, each written
// by Connect's JsonConverter with schemas off (compact, the maps' entries in the task's order);
// read back the same way (whole numbers as int64, others as double).
//
// A partition the task emits that has no stored offset, while the store holds one for this
// connector equal to it up to key order or number types (1 vs 1.0) — the classic bug of a
// partition built one way in start() and another in poll(), or by an older version, which
// silently starts over — is reported once per partition: a warning naming both keys, and the
// record flagged for the runtime's count (Connect says nothing).
//
// errors.tolerance covers the transforms and the converters: under `all` a record that fails is
// skipped (not produced, its offset committed once what precedes it is); under `none` it fails
// the task. A converter whose service cannot be reached (ConversionUnavailable: a schema registry
// down) fails no record: that record and the ones after it wait, poll() returns those before it
// (or throws the RetriableError, so the runtime backs off, when there are none) and converts the
// waiting ones first next time, before the task is polled again — none is skipped or reordered. A
// partition or offset that is not a map of primitives fails the task (a bug in the connector, as in
// Connect).
//
// Under exactly-once with transaction.boundary=connector the task's context has a
// TransactionContext: a request for a record travels with it (PolledRecord::transaction), one for
// the batch is taken after poll() (takeTransactionRequest()).
//
// start(), poll() and stop() on the task's thread; commit() and commitRecord() on the runtime's
// service thread; wake() on any.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "error_handling.h"
#include "ksink/converter.h"
#include "ksink/source_task.h"
#include "ksink/transformation_chain.h"
#include "source_task_driver.h"
#include "worker_transaction_context.h"

namespace ksink {

class SourceTaskAdapter final : public detail::SourceTaskDriver,
                                private SourceTaskContext,
                                private OffsetStorageReader {
 public:
  explicit SourceTaskAdapter(std::unique_ptr<SourceTask> task);
  ~SourceTaskAdapter() override;

  void start(const Config& config, const detail::OffsetEntryReader& offsets) override;
  std::vector<detail::PolledRecord> poll() override;
  void wake() override { task_->wakeup(); }
  void commit() override { task_->commit(); }
  void commitRecord(uint64_t id, const std::optional<RecordMetadata>& metadata) override;
  void stop() override { task_->stop(); }
  std::string version() const override { return task_->version(); }
  detail::TransactionRequest takeTransactionRequest() override;
  bool wantsCommitRecord() const override {
    return task_->commit_record_overridden_.load(std::memory_order_relaxed);
  }

  // The offset entry's key and value bytes, as Connect's internal converter (JSON, schemas off)
  // writes them (exposed for the tests of Connect's format).
  static std::string offsetKey(std::string_view connector,
                               const std::optional<SourceMap>& partition);
  static std::optional<std::string> offsetValue(const std::optional<SourceMap>& offset);
  // Connect's internal converter, to read entries back: JSON, schemas off.
  static std::unique_ptr<Converter> offsetConverter();

 private:
  // SourceTaskContext
  const Config& config() const override { return config_; }
  const OffsetStorageReader& offsetStorageReader() const override { return *this; }
  TransactionContext* transactionContext() override { return transactions_.get(); }
  // OffsetStorageReader
  std::optional<SourceMap> offset(const SourceMap& partition) const override;
  std::vector<std::pair<SourceMap, SourceMap>> offsets(
      const std::vector<SourceMap>& partitions) const override;

  // `keep`: the record is kept for commitRecord(), so its data is copied, not moved out.
  std::optional<detail::ProducerRecordBytes> convert(SourceRecord& record, bool keep);
  // A record's parts (after its transforms) as Kafka gets them, but for the topic, which the
  // caller moves in once nothing can fail.
  detail::ProducerRecordBytes bytesOf(const std::string& topic, std::optional<int32_t> partition,
                                      std::optional<int64_t> timestamp,
                                      const std::vector<ConnectHeader>& headers,
                                      const SchemaAndValue& key, const SchemaAndValue& value);
  // True (and a warning) the first time `key` shows a partition mismatch, see above.
  bool partitionKeyMismatch(const std::string& key);

  std::unique_ptr<SourceTask> task_;
  Config config_;
  std::string connector_;
  const detail::OffsetEntryReader* entries_ = nullptr;
  std::unique_ptr<Converter> key_converter_;
  std::unique_ptr<Converter> value_converter_;
  std::unique_ptr<Converter> offset_converter_;  // the task thread's (poll())
  // The OffsetStorageReader's own, since a task may read offsets from commitRecord() too.
  mutable std::mutex reader_mutex_;
  std::unique_ptr<Converter> reader_converter_;
  // The last partition poll() serialized, and its key (most records share their partition).
  std::optional<SourceMap> last_partition_;
  std::shared_ptr<const std::string> last_key_;
  TransformationChain chain_;
  ErrorHandling errors_;  // errors.tolerance, errors.log.*
  // Stored keys of this connector by their partition's normalized form; keys already checked.
  std::unordered_map<std::string, std::string> stored_partitions_;
  std::unordered_set<std::string> checked_keys_;
  std::mutex records_mutex_;  // poll() and commitRecord() run on different threads
  // Returned, not yet commitRecord()ed, by id from records_base_ (ids count up).
  std::deque<std::optional<SourceRecord>> records_;
  uint64_t records_base_ = 0;
  uint64_t next_id_ = 0;
  // Returned by the task, not converted yet: their converter's service was unavailable.
  std::vector<SourceRecord> unconverted_;
  // A converter may be unavailable: records are copied into the conversion, never moved, so one
  // that waits keeps its data.
  bool converters_may_wait_ = false;
  // Exactly-once with transaction.boundary=connector only.
  std::unique_ptr<WorkerTransactionContext> transactions_;
};

// The loops' view of the tasks `factory` makes.
detail::SourceDriverFactory sourceDriverFactory(SourceTaskFactory factory);

}  // namespace ksink
