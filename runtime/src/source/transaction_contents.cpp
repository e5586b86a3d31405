#include "transaction_contents.h"

#include <utility>

namespace ksink {

uint64_t TransactionContents::beginSend(bool keep) {
  if (keep) delivered_.emplace_back();
  return next_token_;
}

void TransactionContents::abandonSend(bool keep) {
  if (keep) delivered_.pop_back();
}

void TransactionContents::produced(uint64_t record_id, const std::string& topic, bool keep) {
  ++next_token_;
  if (keep) records_.push_back({record_id, &*topics_.insert(topic).first});
}

void TransactionContents::notProduced(uint64_t record_id, bool keep) {
  if (keep) records_.push_back({record_id, nullptr});
}

void TransactionContents::setOffset(const std::string& key, std::optional<std::string> value) {
  offsets_.insert_or_assign(key, std::move(value));
}

void TransactionContents::delivered(uint64_t token, const RecordMetadata& metadata) {
  if (token < first_token_ || token - first_token_ >= delivered_.size()) return;
  delivered_[token - first_token_] = {metadata.partition, metadata.offset.value_or(-1),
                                      metadata.timestamp.value_or(-1)};
}

void TransactionContents::forgetRecords() {
  records_.clear();
  delivered_.clear();
  first_token_ = next_token_;
}

void TransactionContents::aborted(SourceTaskCalls::Due& calls) {
  for (const auto& kept : records_) calls.records.emplace_back(kept.record_id, std::nullopt);
  forgetRecords();
}

uint64_t TransactionContents::committed(SourceTaskCalls::Due& calls) {
  size_t at = 0;  // the produced records of records_, in order, are delivered_[0…]
  for (const auto& kept : records_) {
    std::optional<RecordMetadata> metadata;
    if (kept.topic) {
      const auto& d = delivered_[at++];
      if (d.partition >= 0)
        metadata =
            RecordMetadata{*kept.topic, d.partition,
                           d.offset >= 0 ? std::optional<int64_t>(d.offset) : std::nullopt,
                           d.timestamp >= 0 ? std::optional<int64_t>(d.timestamp) : std::nullopt};
    }
    calls.records.emplace_back(kept.record_id, std::move(metadata));
  }
  calls.commit = true;
  const uint64_t count = produced();
  offsets_.clear();
  forgetRecords();
  return count;
}

}  // namespace ksink
