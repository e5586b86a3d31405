#include "ksink/transactional_sink_task.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "ksink/retriable_error.h"

namespace ksink {

// What a destination may ask while it writes one batch (transactional_destination.h).
class TransactionalSinkTask::Scope final : public BatchScope {
 public:
  Scope(SinkTaskContext& context, OffsetStore& store, std::span<const OffsetUpdate> updates)
      : context_(context), store_(store), updates_(updates) {}

  bool storeOffsets() override {
    for (const auto& u : updates_) {
      if (store_.compareAndSet(u)) continue;
      spdlog::warn(
          "{}: stored offset is no longer {} (another task wrote the partition); rolling back",
          u.partition, u.expected ? std::to_string(*u.expected) : std::string("absent"));
      return false;
    }
    return true;
  }

  void reportBadRecord(const SinkRecord& record, const std::exception& error) override {
    if (auto* reporter = context_.errantRecordReporter()) {
      reporter->report(record, error);
      reported_ = true;
      return;
    }
    throw std::runtime_error(
        fmt::format("cannot write record {} (topic {}, partition {}, offset {}): {}", record,
                    record.topic(), record.partition(), record.offset(), error.what()));
  }

  void awaitReportedRecords() override {
    if (!std::exchange(reported_, false)) return;
    auto* reporter = context_.errantRecordReporter();
    if (!reporter) return;
    switch (reporter->awaitDelivered()) {
      case ErrantRecordReporter::Delivery::kDelivered:
        return;
      case ErrantRecordReporter::Delivery::kPending:
        throw RetriableError(
            "the dead-letter queue has not acknowledged the records this batch skips within "
            "offset.flush.timeout.ms; the batch is not committed and comes again");
      case ErrantRecordReporter::Delivery::kFailed:
        throw std::runtime_error(
            "a dead-letter queue write failed; not committing the batch past the record(s) it "
            "skips");
    }
  }

  RecordMapper::Batch map(RecordMapper& mapper, std::span<const SinkRecord> records,
                          RecordMapper::Mapped mapped) override {
    auto batch = mapper.map(records, context_, std::move(mapped));
    for (const auto& failure : batch.failures) {
      try {
        std::rethrow_exception(failure.error);
      } catch (const std::exception& e) {
        reportBadRecord(*failure.record, e);
      }
    }
    return batch;
  }

 private:
  SinkTaskContext& context_;
  OffsetStore& store_;
  std::span<const OffsetUpdate> updates_;
  bool reported_ = false;  // records reported since the last awaitReportedRecords()
};

void TransactionalSinkTask::open(const std::vector<TopicPartition>& partitions) {
  settle();
  const OffsetMap stored = destination().offsetStore().load(partitions);
  for (const auto& tp : partitions) {
    auto it = stored.find(tp);
    if (it == stored.end()) {
      stored_[tp] = written_[tp] = std::nullopt;  // start where the consumer group says
      continue;
    }
    stored_[tp] = written_[tp] = it->second;
    context().offset(tp, it->second);
  }
  spdlog::info("opened {}: stored offsets {} (a partition without one starts at the group's)",
               fmt::join(partitions, ","), stored);
}

void TransactionalSinkTask::start(const Config& config) {
  destination_ = openDestination(config);
  if (!destination_) throw std::logic_error("openDestination() returned no destination");
}

void TransactionalSinkTask::stop() {
  if (destination_) destination_->stop();
  destination_.reset();
}

template <typename Call>
auto TransactionalSinkTask::guarded(Call&& call, size_t records) {
  try {
    return call();
  } catch (const WriteError& e) {
    fail(e, records);
  }
}

void TransactionalSinkTask::fail(const WriteError& error, size_t records) {
  if (error.kind() == WriteFailure::kRetriable) {
    if (error.backoff()) context().timeout(*error.backoff());
    throw RetriableError(fmt::format("{}: {} (retrying the batch of {} records)",
                                     error.destination(), error.what(), records));
  }
  throw std::runtime_error(fmt::format("{} rejected a batch of {} records: {}", error.destination(),
                                       records, error.what()));
}

void TransactionalSinkTask::close(const std::vector<TopicPartition>& partitions) {
  settle();
  for (const auto& tp : partitions) {
    stored_.erase(tp);
    written_.erase(tp);
  }
}

OffsetMap TransactionalSinkTask::committedOffsets() const {
  OffsetMap out;
  for (const auto& [tp, offset] : stored_)
    if (offset) out[tp] = *offset;
  return out;
}

OffsetMap TransactionalSinkTask::preCommit(const OffsetMap& current_offsets) {
  settle();
  OffsetMap out;
  for (const auto& [tp, current] : current_offsets) {
    auto it = stored_.find(tp);
    if (it == stored_.end() || !it->second) continue;
    out[tp] = std::min(*it->second, current);
  }
  return out;
}

void TransactionalSinkTask::put(std::span<const SinkRecord> records) {
  if (fatal_) std::rethrow_exception(fatal_);
  if (!settle(records) || records.empty()) return;
  // Records the destination already holds (a redelivery after a RetriableError that came after a
  // commit, or a rewind) are dropped here, so no sink ever writes them twice.
  auto already_written = [this](const SinkRecord& r) {
    auto it = stored_.find(r.topicPartition());
    return it != stored_.end() && it->second && r.offset() < *it->second;
  };
  std::vector<SinkRecord> kept;
  std::span<const SinkRecord> todo = records;
  if (std::any_of(records.begin(), records.end(), already_written)) {
    for (const auto& r : records)
      if (!already_written(r)) kept.push_back(r);
    todo = kept;
  }
  const size_t most = destination().maxBatchSize();
  const size_t chunk = most == 0 ? todo.size() : most;
  for (size_t at = 0; at < todo.size(); at += chunk) {
    if (!settle(todo.subspan(at))) return;
    const auto part = todo.subspan(at, std::min(chunk, todo.size() - at));
    if (!writeChunk(part)) {
      fence(todo.subspan(at));
      return;
    }
  }
}

bool TransactionalSinkTask::writeChunk(std::span<const SinkRecord> records) {
  std::map<TopicPartition, int64_t> next;
  for (const auto& r : records) {
    auto& n = next[r.topicPartition()];
    n = std::max(n, r.offset() + 1);
  }
  std::vector<OffsetUpdate> updates;
  updates.reserve(next.size());
  for (auto& [tp, offset] : next) {
    auto it = written_.find(tp);
    updates.push_back({tp, it == written_.end() ? std::nullopt : it->second, offset});
  }
  Scope scope(context(), destination().offsetStore(), updates);
  const auto written =
      guarded([&] { return destination().writeBatch(records, scope); }, records.size());
  if (written == TransactionalDestination::Written::kFenced) return false;
  for (const auto& u : updates) written_[u.partition] = u.next_offset;
  if (written == TransactionalDestination::Written::kCommitted) {
    for (const auto& u : updates) stored_[u.partition] = u.next_offset;
    return true;
  }
  InFlight pending{std::move(updates), {}, records.size()};
  for (const auto& r : records) pending.first_offsets.try_emplace(r.topicPartition(), r.offset());
  in_flight_ = std::move(pending);
  return true;
}

bool TransactionalSinkTask::settle(std::span<const SinkRecord> in_hand) {
  if (!in_flight_) return true;
  const InFlight batch = std::move(*std::exchange(in_flight_, std::nullopt));
  std::optional<std::string> error;  // the outcome is unknown or the failure transient
  try {
    if (guarded([&] { return destination().awaitOutcome(); }, batch.records)) {
      for (const auto& u : batch.updates) stored_[u.partition] = u.next_offset;
      return true;
    }
  } catch (const RetriableError& e) {
    error = e.what();
  } catch (...) {
    // Fatal: nothing of the batch is stored, and the task is to fail with this error.
    for (const auto& u : batch.updates)
      if (auto it = stored_.find(u.partition); it != stored_.end())
        written_[u.partition] = it->second;
    fatal_ = std::current_exception();
    throw;
  }
  // Not written: the pending batch and the records in hand come again from the stored offsets
  // (or, for a partition without one, from the batch's first record there).
  std::map<TopicPartition, int64_t> resume;
  for (const auto& r : in_hand) resume.try_emplace(r.topicPartition(), r.offset());
  for (const auto& [tp, first] : batch.first_offsets) resume[tp] = first;
  for (auto& [tp, offset] : resume) {
    auto it = stored_.find(tp);
    if (it == stored_.end()) continue;  // closed meanwhile
    if (it->second) offset = *it->second;
    written_[tp] = it->second;
    context().offset(tp, offset);
  }
  // A rollback is the sink's choice (it logs why); an unknown outcome is worth a warning.
  // (No std::views here: clang 14, which builds the fuzzers, cannot read libstdc++ 12's.)
  std::vector<TopicPartition> partitions;
  for (const auto& [tp, first] : batch.first_offsets) partitions.push_back(tp);
  spdlog::log(error ? spdlog::level::warn : spdlog::level::debug,
              "a transaction of {} did not commit ({}); rewinding to {}",
              fmt::join(partitions, ","), error.value_or("rolled back"), resume);
  return false;
}

// A compare-and-set failed: another task wrote one of these partitions since this task last read
// it. Nothing of the chunk was written; reload the truth and continue from it.
void TransactionalSinkTask::fence(std::span<const SinkRecord> unwritten) {
  std::map<TopicPartition, int64_t> first_unwritten;
  for (const auto& r : unwritten) {
    auto [it, inserted] = first_unwritten.try_emplace(r.topicPartition(), r.offset());
    if (!inserted) it->second = std::min(it->second, r.offset());
  }
  std::vector<TopicPartition> partitions;
  for (const auto& [tp, offset] : first_unwritten) partitions.push_back(tp);
  const OffsetMap stored = destination().offsetStore().load(partitions);
  spdlog::warn(
      "offsets of {} changed in the destination under this task (it lost them to another task or "
      "is a zombie): wrote nothing, continuing from the stored offsets {}",
      fmt::join(partitions, ","), stored);
  for (const auto& [tp, first] : first_unwritten) {
    auto it = stored.find(tp);
    const int64_t resume = it == stored.end() ? first : it->second;
    stored_[tp] = written_[tp] =
        it == stored.end() ? std::nullopt : std::optional<int64_t>(it->second);
    context().offset(tp, resume);
  }
}

}  // namespace ksink
