#include "fetched_records.h"

#include <algorithm>

namespace ksink {

void WorkerBatch::clear() {
  records.clear();  // keeps the capacity for the next batch
  put_records.clear();
  connect_records.clear();
  converted_count = 0;
  bytes.clear();
  topics.clear();
  topic_ = {};
}

void WorkerBatch::dropPartitions(const std::set<TopicPartition>& partitions) {
  if (partitions.empty() || records.empty()) return;
  auto dropped = [&](const SinkRecord& r) { return partitions.contains(r.topicPartition()); };
  converted_count -= static_cast<size_t>(std::count_if(
      records.begin(), records.begin() + static_cast<ptrdiff_t>(converted_count), dropped));
  std::erase_if(records, dropped);
  // The converted ones, index for index (SinkRecordConversion links them again before put()).
  size_t kept = 0;
  for (size_t i = 0; i < put_records.size(); ++i) {
    if (dropped(put_records[i])) continue;
    if (kept != i) {
      put_records[kept] = std::move(put_records[i]);
      connect_records[kept] = std::move(connect_records[i]);
    }
    ++kept;
  }
  put_records.erase(put_records.begin() + static_cast<ptrdiff_t>(kept), put_records.end());
  connect_records.erase(connect_records.begin() + static_cast<ptrdiff_t>(kept),
                        connect_records.end());
}

void FetchedRecords::dropPartitions(const std::set<TopicPartition>& partitions) {
  if (partitions.empty()) return;
  batch_.dropPartitions(partitions);
  std::erase_if(parked_,
                [&](const MessagePtr& m) { return partitions.contains(partitionOf(m.get())); });
}

void FetchedRecords::release() {
  batch_ = WorkerBatch{};
  parked_.clear();
}

}  // namespace ksink
