#include "source_commit_cycle.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace ksink {

SourceCommitCycle::SourceCommitCycle(OffsetBackingStore& store, const Clock& clock,
                                     std::chrono::milliseconds interval,
                                     std::chrono::milliseconds timeout)
    : store_(store),
      clock_(clock),
      interval_(interval),
      timeout_(timeout),
      next_due_(clock.now() + interval) {}

void SourceCommitCycle::offer(const OffsetEntries& entries) {
  for (const auto& [key, value] : entries) pending_.insert_or_assign(key, value);
}

void SourceCommitCycle::tick(bool force) {
  if (in_flight_) {
    if (in_flight_->done) {
      finish(in_flight_->error);
    } else if (clock_.now() >= in_flight_->deadline) {
      finish("timed out after offset.flush.timeout.ms=" + std::to_string(timeout_.count()));
    }
  }
  if (in_flight_ || (!force && clock_.now() < next_due_)) return;
  next_due_ = clock_.now() + interval_;
  start();
}

void SourceCommitCycle::start() {
  ++counters_.offset_commit_seq_no;
  if (pending_.empty()) {  // Connect: nothing to flush is a success, and commit() follows
    ++counters_.offset_commit_completion_total;
    committed_ = true;
    return;
  }
  const uint64_t id = ++next_flight_id_;
  in_flight_ = Flight{id, std::move(pending_), clock_.now() + timeout_, false, std::nullopt};
  pending_.clear();
  store_.write(in_flight_->entries, [this, id](const std::optional<std::string>& error) {
    if (!in_flight_ || in_flight_->id != id) return;  // abandoned: the entries went back
    in_flight_->done = true;
    in_flight_->error = error;
  });
}

void SourceCommitCycle::finish(std::optional<std::string> error) {
  auto flight = std::move(*in_flight_);
  in_flight_.reset();
  if (!error) {
    ++counters_.offset_commit_completion_total;
    committed_ = true;
    return;
  }
  ++counters_.offset_commit_failure_total;
  // Newer offers win over what this write carried.
  for (auto& [key, value] : flight.entries) pending_.try_emplace(key, std::move(value));
  spdlog::warn("source offset commit failed ({}); {} offset(s) kept for the next commit", *error,
               pending_.size());
}

bool SourceCommitCycle::commitNow(Clock::time_point deadline) {
  tick();
  // A write in flight carries older entries than pending_ may: let it finish first.
  while (in_flight_ && clock_.now() < deadline) {
    store_.poll(std::min(clock_.timeoutUntil(deadline), std::chrono::milliseconds(100)));
    tick();
  }
  if (!in_flight_) tick(true);
  while (in_flight_ && clock_.now() < deadline) {
    store_.poll(std::min(clock_.timeoutUntil(deadline), std::chrono::milliseconds(100)));
    tick();
  }
  return !in_flight_ && pending_.empty();
}

bool SourceCommitCycle::takeCommitted() {
  return std::exchange(committed_, false);
}

size_t SourceCommitCycle::uncommitted() const {
  return pending_.size() + (in_flight_ ? in_flight_->entries.size() : 0);
}

}  // namespace ksink
