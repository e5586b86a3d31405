// The sink scenarios about a task's life around the worker: rebalances (open/close), a graceful
// stop, and records the task reports as errant.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "destination_check.h"
#include "ksink/testkit/topic_reader.h"
#include "sink_scenario_runs.h"

namespace ksink::testkit {
namespace {

constexpr int kRound = 10;

void produceRound(SinkHarness& h, int count) {
  for (int32_t p = 0; p < kPartitions; ++p) h.produce(p, count);
}

bool opened(const std::vector<ProbeEvent>& events, int task, size_t times) {
  return static_cast<size_t>(std::count_if(events.begin(), events.end(), [&](const auto& e) {
           return e.call == ProbeCall::kOpen && e.task == task && e.outcome == Outcome::kReturned;
         })) >= times;
}

std::string describe(const OffsetMap& offsets) {
  std::vector<std::string> items;
  for (const auto& [tp, offset] : offsets) items.push_back(fmt::format("{}: {}", tp, offset));
  return items.empty() ? "nothing" : fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace

void runRebalanceAtLeastOnce(SinkHarness& h) {
  // The first records committed before the rebalance, so that the partitions' new owners start
  // after them (the mock fails commits made inside an eager revocation, a deviation of the mock:
  // what the records after them see is what the commit interval left).
  const auto props = h.properties();
  auto first = h.startWorker(props);
  produceRound(h, kRound);
  if (!h.waitCommitted(h.producedEnds(), "the records before the rebalance"))
    return h.stopWorker(first);
  // A second worker joins: every partition is revoked from the first task and split.
  auto second = h.startWorker(props);
  produceRound(h, kRound);
  if (h.waitJournal([](const auto& e) { return opened(e, 1, 1) && opened(e, 0, 2); },
                    "the rebalance that a second worker joining starts (open() of both tasks)")) {
    produceRound(h, kRound);
    h.waitJournal([&](const auto& e) { return deliveredAll(e, h.producedEnds()); },
                  "delivery of every record after the rebalance");
  }
  // One after the other: two consumers closing at once leave the group mid-rebalance, and the
  // second close then waits it out (past the fixture's bound on the mock under the sanitizers).
  h.stopWorker(second);
  h.stopWorker(first);
  // At least once: what the group committed is all in the destination.
  const auto committed = h.cluster().committed(h.group(), h.partitions());
  checkHeld(h, h.readBack(), committed, Delivery::kAtLeastOnce,
            fmt::format("after a rebalance, with the group's offsets committed at {{{}}}",
                        describe(committed)));
  checkExactlyOnceAtEnd(h);
}

void runStopWithinGracefulTimeout(SinkHarness& h) {
  const auto props = h.properties();
  const auto graceful =
      std::chrono::milliseconds(std::stoll(props.count("task.shutdown.graceful.timeout.ms")
                                               ? props.at("task.shutdown.graceful.timeout.ms")
                                               : "5000"));
  // What the worker itself needs besides the task's calls (its last commit, the consumer's close).
  constexpr std::chrono::milliseconds kSlack{1000};
  auto worker = h.startWorker(props);
  produceRound(h, kRound);
  if (h.waitJournal([&](const auto& e) { return deliveredAll(e, h.producedEnds()); },
                    "delivery of the records")) {
    const auto took = worker->stopAndMeasure(graceful + std::chrono::seconds(30));
    const auto events = h.journal().events();
    OffsetMap final_offsets;
    std::string slow;
    for (const auto& e : events) {
      if (e.call == ProbeCall::kPreCommit) final_offsets = e.returned;
      if (e.call != ProbeCall::kPreCommit && e.call != ProbeCall::kClose &&
          e.call != ProbeCall::kStop)
        continue;
      const auto ms =
          e.outcome == Outcome::kRunning
              ? std::string("has not returned")
              : fmt::format("took {} ms",
                            std::chrono::duration_cast<std::chrono::milliseconds>(e.ended - e.began)
                                .count());
      if (e.outcome == Outcome::kRunning || e.ended - e.began > graceful / 2)
        slow += fmt::format("; {}({}) {}", nameOf(e.call), fmt::join(e.partitions, ", "), ms);
    }
    const std::string error = worker->run().errorMessage();
    if (!took || *took > graceful + kSlack || !error.empty())
      h.fail(fmt::format(
          "{}: Worker::stop() with records delivered up to {{{}}} {} (task.shutdown.graceful."
          "timeout.ms={}){}{}",
          fmt::join(h.partitions(), ", "), describe(final_offsets),
          took ? fmt::format("returned after {} ms", took->count()) : std::string("never returned"),
          graceful.count(), slow, error.empty() ? "" : "; Worker::run() threw: " + error));
  }
  h.stopWorker(worker, /*may_throw=*/true);
  checkExactlyOnceAtEnd(h);
}

void runErrantRecordToDlq(SinkHarness& h) {
  const std::string dlq = h.run().topic + "_dlq";
  h.cluster().createTopic(dlq, 1);
  auto props = h.properties();
  withDeadLetterQueue(props, dlq);
  h.produce(0, 5);
  const RecordId bad{h.partition(0), h.produceBad(0)};
  h.produce(0, 4);
  h.produce(1, kRound);
  auto worker = h.startWorker(props);
  h.waitCommitted(h.producedEnds(), "every record, the bad one skipped");
  h.stopWorker(worker);

  std::set<RecordId> reported;
  for (const auto& e : h.journal().events())
    if (e.call == ProbeCall::kReport) reported.insert(e.records.begin(), e.records.end());
  if (!reported.contains(bad))
    h.fail(
        fmt::format("{}: the bad record at offset {} was never reported to the errant record "
                    "reporter",
                    bad.tp, bad.offset));
  std::set<RecordId> in_dlq;
  for (const auto& r :
       readPartition(h.cluster().bootstrap(), dlq, 0, reported.size(), std::chrono::seconds(10))) {
    const auto topic = r.headers.find("__connect.errors.topic");
    const auto partition = r.headers.find("__connect.errors.partition");
    const auto offset = r.headers.find("__connect.errors.offset");
    if (topic != r.headers.end() && partition != r.headers.end() && offset != r.headers.end())
      in_dlq.insert({{topic->second, std::stoi(partition->second)}, std::stoll(offset->second)});
  }
  for (const auto& id : reported)
    if (!in_dlq.contains(id))
      h.fail(
          fmt::format("{}: the record at offset {} was reported to the errant record reporter "
                      "but is not in the dead-letter queue {}",
                      id.tp, id.offset, dlq));
  checkHeld(h, h.readBack(), h.producedEnds(), Delivery::kAtLeastOnce,
            fmt::format("with the record at {}@{} reported as errant", bad.tp, bad.offset), {bad});
  checkExactlyOnceAtEnd(h, {bad});
}

}  // namespace ksink::testkit
