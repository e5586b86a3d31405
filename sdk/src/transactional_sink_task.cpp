#include "ksink/transactional_sink_task.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace ksink {

void TransactionalSinkTask::open(const std::vector<TopicPartition>& partitions) {
  const OffsetMap stored = loadOffsets(partitions);
  for (const auto& tp : partitions) {
    auto it = stored.find(tp);
    if (it == stored.end()) {
      stored_[tp] = std::nullopt;  // start where the consumer group says
      continue;
    }
    stored_[tp] = it->second;
    context().offset(tp, it->second);
  }
  spdlog::info("opened {}: stored offsets {} (a partition without one starts at the group's)",
               fmt::join(partitions, ","), stored);
}

void TransactionalSinkTask::close(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) stored_.erase(tp);
}

OffsetMap TransactionalSinkTask::committedOffsets() const {
  OffsetMap out;
  for (const auto& [tp, offset] : stored_)
    if (offset) out[tp] = *offset;
  return out;
}

OffsetMap TransactionalSinkTask::preCommit(const OffsetMap& current_offsets) {
  OffsetMap out;
  for (const auto& [tp, current] : current_offsets) {
    auto it = stored_.find(tp);
    if (it == stored_.end() || !it->second) continue;
    out[tp] = std::min(*it->second, current);
  }
  return out;
}

void TransactionalSinkTask::put(std::span<const SinkRecord> records) {
  if (records.empty()) return;
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
  const size_t chunk = max_batch_size_ == 0 ? todo.size() : max_batch_size_;
  for (size_t at = 0; at < todo.size(); at += chunk) {
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
    auto it = stored_.find(tp);
    updates.push_back({tp, it == stored_.end() ? std::nullopt : it->second, offset});
  }
  if (!writeBatch(records, updates)) return false;
  for (const auto& u : updates) stored_[u.partition] = u.next_offset;
  return true;
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
  const OffsetMap stored = loadOffsets(partitions);
  spdlog::warn(
      "offsets of {} changed in the destination under this task (it lost them to another task or "
      "is a zombie): wrote nothing, continuing from the stored offsets {}",
      fmt::join(partitions, ","), stored);
  for (const auto& [tp, first] : first_unwritten) {
    auto it = stored.find(tp);
    const int64_t resume = it == stored.end() ? first : it->second;
    stored_[tp] = it == stored.end() ? std::nullopt : std::optional<int64_t>(it->second);
    context().offset(tp, resume);
  }
}

void TransactionalSinkTask::reportBadRecord(const SinkRecord& record, const std::exception& error) {
  if (auto* reporter = context().errantRecordReporter()) {
    reporter->report(record, error);
    return;
  }
  throw std::runtime_error(
      fmt::format("cannot write record {} (topic {}, partition {}, offset "
                  "{}): {}",
                  record, record.topic(), record.partition(), record.offset(), error.what()));
}

void TransactionalSinkTask::reportBadRecord(const SinkRecord& record, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    reportBadRecord(record, e);
  }
}

}  // namespace ksink
