#include "submitted_records.h"

namespace ksink {

uint64_t SubmittedRecords::submit(std::string offset_key, std::optional<std::string> offset_value) {
  const uint64_t seq = next_seq_++;
  partitions_[std::move(offset_key)].push_back({seq, std::move(offset_value)});
  outstanding_.insert(seq);
  ++pending_;
  return seq;
}

void SubmittedRecords::ack(uint64_t seq) {
  if (outstanding_.erase(seq) > 0) acked_.insert(seq);
}

OffsetEntries SubmittedRecords::committable() {
  OffsetEntries out;
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    auto& records = it->second;
    std::optional<Entry> last;
    while (!records.empty() && acked_.erase(records.front().seq) > 0) {
      last = std::move(records.front());
      records.pop_front();
      --pending_;
    }
    if (last) out.insert_or_assign(it->first, std::move(last->value));
    it = records.empty() ? partitions_.erase(it) : std::next(it);
  }
  return out;
}

}  // namespace ksink
