#include "submitted_records.h"

namespace ksink {

SubmittedRecords::Handle SubmittedRecords::submit(const std::string& offset_key,
                                                  std::optional<std::string> offset_value) {
  if (last_ == partitions_.end() || last_->first != offset_key)
    last_ = partitions_.try_emplace(offset_key).first;
  auto& entry = last_->second.emplace_back();
  entry.value = std::move(offset_value);
  ++pending_;
  ++unacknowledged_;
  return &entry;
}

void SubmittedRecords::ack(Handle record) {
  if (record->acked) return;
  record->acked = true;
  --unacknowledged_;
}

OffsetEntries SubmittedRecords::committable() {
  OffsetEntries out;
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    auto& records = it->second;
    std::optional<std::optional<std::string>> last;
    while (!records.empty() && records.front().acked) {
      last = std::move(records.front().value);
      records.pop_front();
      --pending_;
    }
    if (last) out.insert_or_assign(it->first, std::move(*last));
    if (records.empty()) {
      if (last_ == it) last_ = partitions_.end();
      it = partitions_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace ksink
