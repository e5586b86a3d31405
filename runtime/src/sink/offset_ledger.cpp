#include "offset_ledger.h"

#include <fmt/format.h>

#include <algorithm>

namespace ksink {
namespace {

// nullopt sorts below every known offset.
bool lessEq(const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
  if (!a) return true;
  if (!b) return false;
  return *a <= *b;
}

std::optional<int64_t> lowerTo(const std::optional<int64_t>& value, int64_t bound) {
  if (!value) return value;
  return std::min(*value, bound);
}

// Consumption of a partition stands at `offset`: what lies past it is neither confirmed nor
// committed.
void consumeFrom(PartitionOffsets& p, int64_t offset) {
  p.delivered = offset;
  p.confirmed = lowerTo(p.confirmed, offset);
  p.committed = lowerTo(p.committed, offset);
}

}  // namespace

void OffsetLedger::assign(const TopicPartition& tp, std::optional<int64_t> position) {
  partitions_[tp] = PartitionOffsets{position, position, position};
  sent_.erase(tp);
}

void OffsetLedger::remove(const TopicPartition& tp) {
  partitions_.erase(tp);
  sent_.erase(tp);
}

void OffsetLedger::clear() {
  partitions_.clear();
  sent_.clear();
}

std::optional<int64_t> OffsetLedger::floor(const TopicPartition& tp,
                                           const PartitionOffsets& p) const {
  auto it = sent_.find(tp);
  if (it == sent_.end()) return p.committed;
  return p.committed ? std::max(*p.committed, it->second) : it->second;
}

void OffsetLedger::markDelivered(const TopicPartition& tp, int64_t next_offset) {
  auto it = partitions_.find(tp);
  if (it == partitions_.end()) return;
  // Records can only be delivered from where consumption stands, so this never goes below
  // confirmed except after an external seek; keep the invariant regardless.
  consumeFrom(it->second, next_offset);
}

void OffsetLedger::rewind(const TopicPartition& tp, int64_t offset) {
  auto it = partitions_.find(tp);
  if (it == partitions_.end()) return;
  auto& p = it->second;
  consumeFrom(p, offset);
  if (auto s = sent_.find(tp); s != sent_.end()) s->second = std::min(s->second, offset);
  // A partition whose start was unknown gets a known baseline from the rewind.
  if (!p.confirmed) p.confirmed = offset;
  if (!p.committed) p.committed = offset;
}

OffsetMap OffsetLedger::deliveredOffsets(const std::vector<TopicPartition>& partitions) const {
  OffsetMap out;
  for (const auto& tp : partitions) {
    auto it = partitions_.find(tp);
    if (it != partitions_.end() && it->second.delivered) out.emplace(tp, *it->second.delivered);
  }
  return out;
}

OffsetMap OffsetLedger::deliveredOffsets() const {
  OffsetMap out;
  for (const auto& [tp, p] : partitions_)
    if (p.delivered) out.emplace(tp, *p.delivered);
  return out;
}

std::vector<TopicPartition> OffsetLedger::partitions() const {
  std::vector<TopicPartition> out;
  out.reserve(partitions_.size());
  for (const auto& [tp, p] : partitions_) out.push_back(tp);
  return out;
}

CommitPlan OffsetLedger::confirm(const std::vector<TopicPartition>& requested,
                                 const OffsetMap& task_offsets) {
  CommitPlan plan;
  OffsetMap before;  // what the coordinator acknowledged
  for (const auto& tp : requested) {
    auto it = partitions_.find(tp);
    if (it == partitions_.end()) continue;
    if (it->second.committed) before[tp] = *it->second.committed;
    if (auto base = floor(tp, it->second)) plan.offsets[tp] = *base;
  }
  for (const auto& [tp, offset] : task_offsets) {
    auto it = partitions_.find(tp);
    if (it == partitions_.end()) {
      plan.ignored.push_back(fmt::format("{}@{}: partition not assigned", tp, offset));
      continue;
    }
    if (std::find(requested.begin(), requested.end(), tp) == requested.end()) {
      plan.ignored.push_back(fmt::format("{}@{}: partition not requested", tp, offset));
      continue;
    }
    auto& p = it->second;
    if (!p.delivered || offset > *p.delivered) {
      plan.ignored.push_back(fmt::format("{}@{}: not yet consumed (delivered {})", tp, offset,
                                         p.delivered ? std::to_string(*p.delivered) : "none"));
      continue;
    }
    if (const auto base = floor(tp, p); base && offset < *base) {
      plan.ignored.push_back(fmt::format("{}@{}: below the offset {} already {}", tp, offset, *base,
                                         base == p.committed ? "committed" : "sent"));
      continue;
    }
    p.confirmed = offset;
    plan.offsets[tp] = offset;
  }
  plan.changed = plan.offsets != before;
  // The plan is about to be sent: until a rewind, the group may stand there whatever the answer.
  if (plan.changed)
    for (const auto& [tp, offset] : plan.offsets) sent_[tp] = std::max(sent_[tp], offset);
  return plan;
}

void OffsetLedger::markCommitted(const OffsetMap& offsets) {
  for (const auto& [tp, offset] : offsets) {
    auto it = partitions_.find(tp);
    if (it == partitions_.end()) continue;
    auto& p = it->second;
    if (!p.confirmed)
      continue;  // nothing was confirmed for it: the ack is from an older assignment
    p.committed = std::min(offset, *p.confirmed);
  }
}

std::optional<PartitionOffsets> OffsetLedger::get(const TopicPartition& tp) const {
  auto it = partitions_.find(tp);
  if (it == partitions_.end()) return std::nullopt;
  return it->second;
}

bool OffsetLedger::invariantHolds() const {
  return std::all_of(partitions_.begin(), partitions_.end(), [](const auto& entry) {
    const auto& p = entry.second;
    return lessEq(p.committed, p.confirmed) && lessEq(p.confirmed, p.delivered);
  });
}

}  // namespace ksink
