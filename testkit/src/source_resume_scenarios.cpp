// The source scenarios about resuming: a restarted task reads the committed offsets under the
// keys its records carry and goes on after them, after a graceful stop and after a crash.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "source_rounds.h"
#include "source_scenario_runs.h"

namespace ksink::testkit {
namespace {

// The items of `stream` in `items` numbered `begin` .. `end` - 1.
std::set<SourceItem> part(const std::set<SourceItem>& items, int stream, int64_t begin,
                          int64_t end) {
  std::set<SourceItem> out;
  for (const auto& item : items)
    if (item.stream == stream && item.index >= begin && item.index < end) out.insert(item);
  return out;
}

std::set<SourceItem> range(int stream, int64_t begin, int64_t end) {
  std::set<SourceItem> out;
  for (int64_t i = begin; i < end; ++i) out.insert({stream, i});
  return out;
}

// "{partition} (committed offset {offset})" for messages.
std::string committedAt(const StoredOffsets& stored, const std::string& partition) {
  const auto it = stored.find(partition);
  return it == stored.end() || !it->second ? std::string("nothing committed")
                                           : "committed offset " + *it->second;
}

// Every item fed is in `kafka`.
void checkKafkaHoldsEveryItem(SourceHarness& h,
                              const std::map<SourceItem, std::vector<KafkaPosition>>& kafka,
                              std::string_view when) {
  for (int stream = 0; stream < h.source().streamCount(); ++stream) {
    std::set<SourceItem> missing;
    for (int64_t i = 0; i < h.fed(stream); ++i)
      if (!kafka.contains({stream, i})) missing.insert({stream, i});
    if (!missing.empty())
      h.fail(fmt::format("{}: {}, Kafka is missing items {} (of 0..{})", h.partitionOf(stream),
                         when, itemRanges(missing, stream), h.fed(stream) - 1));
  }
}

// The reader's answers to tasks from `first_task` on, for every partition `stored` holds: the same
// key asked, the same map answered.
void checkReadCommitted(SourceHarness& h, const StoredOffsets& stored, int first_task) {
  const auto events = h.journal().events();
  const auto asked = askedPartitions(events, first_task);
  for (const auto& [partition, offset] : stored) {
    if (!offset) continue;
    if (!asked.contains(partition)) {
      h.fail(
          fmt::format("{}: offset {} was committed, but the restarted task never asked the "
                      "OffsetStorageReader for this partition (it asked for {})",
                      partition, *offset, listed(asked)));
      continue;
    }
    for (const auto& e : events)
      if (e.call == SourceCall::kRead && e.task >= first_task && e.outcome == Outcome::kReturned)
        if (const auto it = e.answered.find(partition);
            std::find(e.asked.begin(), e.asked.end(), partition) != e.asked.end() &&
            (it == e.answered.end() || it->second != *offset))
          h.fail(fmt::format("{}: offset {} was committed, but the OffsetStorageReader answered {}",
                             partition, *offset,
                             it == e.answered.end() ? std::string("nothing") : it->second));
  }
}

}  // namespace

void runResumesFromCommittedOffsets(SourceHarness& h) {
  if (runRound(h, kRound, "before the restart") < 0) return;
  const auto stored = h.stored();
  const int restarted = runRound(h, kRound, "after the restart");
  if (restarted < 0) return;
  checkReadCommitted(h, stored, restarted);
  const auto kafka = h.inKafka();
  const auto events = h.journal().events();
  for (int stream = 0; stream < h.source().streamCount(); ++stream) {
    const std::string partition = h.partitionOf(stream);
    std::set<SourceItem> again, doubled;
    for (const auto& [item, positions] : kafka) {
      if (item.stream != stream || positions.size() < 2) continue;
      (item.index < kRound ? again : doubled).insert(item);
    }
    if (!again.empty())
      h.fail(fmt::format(
          "{}: after a graceful stop ({}, items 0..{}) the restarted task produced items {} "
          "again: it did not resume from the committed offset",
          partition, committedAt(stored, partition), kRound - 1, itemRanges(again, stream)));
    if (!doubled.empty())
      h.fail(fmt::format("{}: items {} are in Kafka more than once after a graceful restart",
                         partition, itemRanges(doubled, stream)));
  }
  checkKafkaHoldsEveryItem(h, kafka, "after a graceful restart");
}

void runPartitionKeysMatch(SourceHarness& h) {
  const int first = runRound(h, kRound, "the first records");
  if (first < 0) return;
  const auto events = h.journal().events();
  std::set<std::string> reported;
  for (const auto& poll : events) {
    if (poll.call != SourceCall::kPoll || poll.task < first) continue;
    // What the task asked the reader before this poll() returned (in start(), or in poll()).
    std::set<std::string> asked;
    for (const auto& e : events)
      if (e.call == SourceCall::kRead && e.task == poll.task && e.began <= poll.ended)
        asked.insert(e.asked.begin(), e.asked.end());
    for (const auto& r : poll.records) {
      if (r.partition == "null" || !r.offset || asked.contains(r.partition) ||
          !reported.insert(r.partition).second)
        continue;
      h.fail(fmt::format(
          "{}: poll() returned records of this source partition (offset {}), but the task did "
          "not read its offset under this key before: it asked the OffsetStorageReader for {} "
          "(a key built differently in start() and poll() finds no offset after a restart)",
          r.partition, *r.offset, listed(asked)));
    }
  }
}

void runRedeliveryAfterCrash(SourceHarness& h) {
  // Committed: the first round. The crash: a second round whose commits are lost (it keeps them in
  // a copy of the store, which the restart does not read).
  if (runRound(h, kRound, "before the crash") < 0) return;
  const auto stored = h.stored();
  const std::string lost_store = h.copyStore(h.run().connector + "_lost");
  if (runRound(h, kRound, "the round whose commits the crash loses", lost_store) < 0) return;
  h.feed(kRound / 2);
  const int restarted = h.journal().tasks();
  auto worker = h.startWorker();
  h.waitAcknowledged(restarted, h.fed(0) - 1, "after the crash, the newest items");
  h.stopWorker(worker);
  const auto again = acknowledged(h.journal().events(), restarted);
  for (int stream = 0; stream < h.source().streamCount(); ++stream) {
    const std::string partition = h.partitionOf(stream);
    const auto uncommitted = range(stream, kRound, 2 * kRound);
    std::set<SourceItem> not_again;
    for (const auto& item : uncommitted)
      if (!again.contains(item)) not_again.insert(item);
    if (!not_again.empty())
      h.fail(fmt::format(
          "{}: after a crash with {} (items 0..{}), the restarted task did not produce items {} "
          "again (produced before the crash, their offsets never committed)",
          partition, committedAt(stored, partition), kRound - 1, itemRanges(not_again, stream)));
    const auto committed_again = part(again, stream, 0, kRound);
    if (!committed_again.empty())
      h.fail(fmt::format(
          "{}: after a crash with {} (items 0..{}), the restarted task produced items {} again, "
          "which that offset covers",
          partition, committedAt(stored, partition), kRound - 1,
          itemRanges(committed_again, stream)));
  }
  checkKafkaHoldsEveryItem(h, h.inKafka(), "after a crash and a restart");
}

}  // namespace ksink::testkit
