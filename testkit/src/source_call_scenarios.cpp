// The source scenarios about the worker's calls into the task: a poll() waiting for data ends at
// wakeup(), and each record Kafka acknowledged reaches commitRecord() once.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "offset_ranges.h"
#include "source_rounds.h"
#include "source_scenario_runs.h"

namespace ksink::testkit {
namespace {

using std::chrono::milliseconds;

// How soon after wakeup() a poll() waiting for data must return.
constexpr milliseconds kWakeupBound{1000};
// A poll() running this long with every item delivered is taken as waiting for data.
constexpr milliseconds kWaiting{100};
// How long the kit looks for such a poll() (a task that never waits has none).
constexpr milliseconds kLookForWait{3000};
// What the worker itself needs to stop besides the task's calls.
constexpr milliseconds kSlack{1000};

milliseconds since(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<milliseconds>(to - from);
}

// The poll() of a task from `first_task` on that is running since kWaiting at least, if any.
std::optional<SourceEvent> waitingPoll(SourceHarness& h, int first_task) {
  const auto until = Clock::now() + kLookForWait;
  while (Clock::now() < until) {
    for (const auto& e : h.journal().events())
      if (e.call == SourceCall::kPoll && e.task >= first_task && e.outcome == Outcome::kRunning &&
          Clock::now() - e.began >= kWaiting)
        return e;
    if (h.taskFailed()) return std::nullopt;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return std::nullopt;
}

std::string partitions(SourceHarness& h) {
  std::vector<std::string> out;
  for (int s = 0; s < h.source().streamCount(); ++s) out.push_back(h.partitionOf(s));
  return fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace

void runWakeupEndsBlockedPoll(SourceHarness& h) {
  const auto props = h.source().properties(h.run());
  const milliseconds graceful{props.count("task.shutdown.graceful.timeout.ms")
                                  ? std::stoll(props.at("task.shutdown.graceful.timeout.ms"))
                                  : 3000};
  h.feed(kRound);
  const int first = h.journal().tasks();
  auto worker = h.startWorker();
  if (!h.waitAcknowledged(first, 0, "the records before the stop")) return h.stopWorker(worker);
  const auto waiting = waitingPoll(h, first);
  const auto took = worker->stopAndMeasure(graceful + std::chrono::seconds(30));
  const std::string error = worker->run().errorMessage();
  const auto events = h.journal().events();
  std::string problem;
  if (waiting) {
    const SourceEvent* woken = nullptr;
    const SourceEvent* poll = nullptr;
    for (const auto& e : events) {
      if (e.call == SourceCall::kWakeup && e.task == waiting->task && !woken) woken = &e;
      if (e.call == SourceCall::kPoll && e.task == waiting->task && e.began == waiting->began)
        poll = &e;
    }
    if (!woken) {
      problem = "wakeup() was never called";
    } else if (poll->outcome == Outcome::kRunning) {
      problem = fmt::format("a poll() waiting for data had not returned {} ms after wakeup()",
                            since(woken->began, Clock::now()).count());
    } else if (since(woken->began, poll->ended) > kWakeupBound) {
      problem = fmt::format("a poll() waiting for data returned {} ms after wakeup() (at most {})",
                            since(woken->began, poll->ended).count(), kWakeupBound.count());
    }
  }
  if (!took || *took > graceful + kSlack || !error.empty())
    problem += fmt::format(
        "{}Worker::stop() {} (task.shutdown.graceful.timeout.ms={}){}", problem.empty() ? "" : "; ",
        took ? fmt::format("returned after {} ms", took->count()) : std::string("never returned"),
        graceful.count(), error.empty() ? "" : "; Worker::run() threw: " + error);
  if (!problem.empty())
    h.fail(fmt::format("{} (items 0..{} acknowledged, nothing more to read): {}", partitions(h),
                       kRound - 1, problem));
  h.stopWorker(worker, /*may_throw=*/true);
}

void runCommitRecordPerAcknowledgement(SourceHarness& h) {
  if (runRound(h, kRound, "the records") < 0) return;
  std::map<KafkaPosition, std::vector<const SourceEvent*>> calls;
  const auto events = h.journal().events();
  for (const auto& e : events)
    if (e.call == SourceCall::kCommitRecord && e.metadata && e.metadata->offset)
      calls[{e.metadata->topic, e.metadata->partition, *e.metadata->offset}].push_back(&e);
  const auto kafka = h.inKafka();
  // Per stream: items without a call, with several, and with one that threw (and its error).
  std::map<int, std::set<SourceItem>> none, several, threw;
  std::map<int, std::string> errors;
  std::map<int, std::vector<int64_t>> threw_at;
  for (const auto& [at, list] : calls) {
    (void)at;
    for (const auto* e : list) {
      const auto& item = e->records.front().item;
      if (!item) continue;
      if (list.size() > 1) several[item->stream].insert(*item);
      if (e->outcome == Outcome::kFailed) {
        threw[item->stream].insert(*item);
        errors[item->stream] = e->error;
        threw_at[item->stream].push_back(at.offset);
      }
    }
  }
  for (const auto& [item, positions] : kafka)
    for (const auto& at : positions)
      if (!calls.contains(at)) none[item.stream].insert(item);
  for (int s = 0; s < h.source().streamCount(); ++s) {
    const std::string partition = h.partitionOf(s);
    if (!none[s].empty())
      h.fail(fmt::format("{}: items {} are in Kafka but got no commitRecord()", partition,
                         itemRanges(none[s], s)));
    if (!several[s].empty())
      h.fail(fmt::format("{}: items {} got commitRecord() more than once", partition,
                         itemRanges(several[s], s)));
    std::sort(threw_at[s].begin(), threw_at[s].end());
    if (!threw[s].empty())
      h.fail(fmt::format(
          "{}: commitRecord() threw for items {} (Kafka offsets {}): \"{}\"; the worker logs and "
          "ignores it, so the task loses those acknowledgements",
          partition, itemRanges(threw[s], s), offsetRanges(threw_at[s]), errors[s]));
  }
}

}  // namespace ksink::testkit
