// The sink scenarios about one task's deliveries: what preCommit() reports is in the destination
// and was put(), and a RetriableError from put() loses and doubles nothing.
#include <fmt/format.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "destination_check.h"
#include "sink_scenario_runs.h"

namespace ksink::testkit {
namespace {

constexpr int kFirstRound = 10;
constexpr int kSecondRound = 10;

void produceRound(SinkHarness& h, int count) {
  for (int32_t p = 0; p < kPartitions; ++p) h.produce(p, count);
}

// Produces two rounds (the second once the first is delivered, so the task sees several batches)
// and waits until both are delivered and `pre_commits_after` more preCommit() calls returned.
bool deliverTwoRounds(SinkHarness& h, size_t pre_commits_after) {
  produceRound(h, kFirstRound);
  if (!h.waitJournal([&](const auto& e) { return deliveredAll(e, h.producedEnds()); },
                     "delivery of the first records to put()"))
    return false;
  produceRound(h, kSecondRound);
  const auto ends = h.producedEnds();
  if (!h.waitJournal([&](const auto& e) { return deliveredAll(e, ends); },
                     "delivery of the second records to put()"))
    return false;
  const size_t seen = preCommits(h.journal().events());
  return h.waitJournal([&](const auto& e) { return preCommits(e) >= seen + pre_commits_after; },
                       "preCommit() after the last delivery");
}

}  // namespace

void runDeliveredIsDurable(SinkHarness& h) {
  // Right after each preCommit(), everything below what it returned must be readable.
  auto reported = std::make_shared<std::pair<std::mutex, std::set<TopicPartition>>>();
  h.hooks().after_pre_commit = [&h, reported](int, const OffsetMap&, const OffsetMap& returned) {
    if (returned.empty()) return;
    const auto copies = copiesOf(h.readBack());
    for (const auto& [tp, offset] : returned) {
      std::vector<int64_t> missing;
      for (int64_t o = 0; o < offset; ++o)
        if (!copies.contains({tp, o})) missing.push_back(o);
      std::lock_guard lock(reported->first);
      if (missing.empty() || !reported->second.insert(tp).second) continue;
      h.fail(
          fmt::format("{}: preCommit() returned {} (durable up to there), but the destination "
                      "is missing offsets {} right after it returned",
                      tp, offset, offsetRanges(missing)));
    }
  };
  auto worker = h.startWorker();
  if (deliverTwoRounds(h, 1)) h.waitCommitted(h.producedEnds(), "everything delivered");
  h.stopWorker(worker);
  checkHeld(h, h.readBack(), h.producedEnds(), Delivery::kAtLeastOnce, "after a graceful stop");
  checkExactlyOnceAtEnd(h);
}

void runPreCommitWithinPut(SinkHarness& h) {
  // `current` is what the worker delivered to put() (or the start position): the bound.
  auto reported = std::make_shared<std::pair<std::mutex, std::set<TopicPartition>>>();
  h.hooks().after_pre_commit = [&h, reported](int task, const OffsetMap& current,
                                              const OffsetMap& returned) {
    for (const auto& [tp, offset] : returned) {
      const auto bound = current.find(tp);
      std::lock_guard lock(reported->first);
      if (bound == current.end()) {
        if (reported->second.insert(tp).second)
          h.fail(
              fmt::format("{}: preCommit() of task {} returned offset {} for a partition the "
                          "task does not hold",
                          tp, task, offset));
      } else if (offset > bound->second && reported->second.insert(tp).second) {
        std::vector<int64_t> never_put;
        for (int64_t o = bound->second; o < offset; ++o) never_put.push_back(o);
        h.fail(
            fmt::format("{}: preCommit() returned offset {}, past the records put() (offsets "
                        "below {}: offsets {} were never put)",
                        tp, offset, bound->second, offsetRanges(never_put)));
      }
    }
  };
  auto worker = h.startWorker();
  deliverTwoRounds(h, 2);
  h.stopWorker(worker);
  checkExactlyOnceAtEnd(h);
}

namespace {

// After a put() that threw RetriableError, the task's next non-empty put() must carry the same
// records (Connect's redelivery), unless its partitions were closed in between.
void checkRedeliveries(SinkHarness& h, const std::vector<ProbeEvent>& events) {
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& failed = events[i];
    if (failed.call != ProbeCall::kPut || failed.outcome != Outcome::kRetriable) continue;
    for (size_t j = i + 1; j < events.size(); ++j) {
      const auto& next = events[j];
      if (next.task != failed.task) continue;
      if (next.call == ProbeCall::kClose || next.call == ProbeCall::kStop) break;
      if (next.call != ProbeCall::kPut || next.records.empty()) continue;
      if (next.records != failed.records) {
        const auto& first = failed.records.front();
        h.fail(fmt::format(
            "{}: put() threw RetriableError for a batch of {} records from offset {}, but the "
            "next put() got {} records from {}@{} instead of the same batch",
            first.tp, failed.records.size(), first.offset, next.records.size(),
            next.records.front().tp, next.records.front().offset));
      }
      break;
    }
  }
}

}  // namespace

void runRetriableRedelivery(SinkHarness& h) {
  // The first non-empty put() is refused before the task sees it; with exactly-once declared the
  // third also fails after the task wrote half of it (the destination failed midway).
  const bool half = h.sink().isExactlyOnce();
  auto puts = std::make_shared<std::atomic<int>>(0);
  h.hooks().put_fault = [puts, half](int, std::span<const SinkRecord>) {
    const int n = ++*puts;
    if (n == 1) return PutFault::kRetriableBefore;
    if (n == 3 && half) return PutFault::kRetriableAfterHalf;
    return PutFault::kNone;
  };
  auto worker = h.startWorker();
  produceRound(h, kFirstRound);
  h.waitJournal([&](const auto& e) { return deliveredAll(e, h.producedEnds()); },
                "delivery of the first records after a RetriableError");
  produceRound(h, kSecondRound);
  produceRound(h, kSecondRound);
  h.waitCommitted(h.producedEnds(), "everything delivered after RetriableErrors");
  h.stopWorker(worker);
  const auto events = h.journal().events();
  const bool retried = std::any_of(events.begin(), events.end(), [](const ProbeEvent& e) {
    return e.call == ProbeCall::kPut && e.outcome == Outcome::kRetriable;
  });
  if (!retried) h.fail("no put() threw RetriableError: the scenario could not run");
  checkRedeliveries(h, events);
  // Nothing is doubled: a RetriableError means "not written", whatever the delivery guarantee.
  checkHeld(h, h.readBack(), h.producedEnds(), Delivery::kExactlyOnce,
            "after put() threw RetriableError and the batch came again");
  checkExactlyOnceAtEnd(h);
}

}  // namespace ksink::testkit
