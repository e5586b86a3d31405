// The exactly-once sink scenario: a task killed at each kill point — before and after put(),
// before and after preCommit() — is replaced by another worker's, and then let go as a zombie: the
// destination must still hold every record once.
//
// A kill here is a freeze: the task's thread blocks at the kill point, so its consumer stops
// polling and leaves the group after max.poll.interval.ms, as a process that hangs does (its
// memory lost to the group, its last writes and commits not made); a second worker takes the
// partitions, rewinds to what the destination stored and goes on. Then the frozen task is let go
// and carries on from where it stood, as a zombie would: its writes must be fenced.
#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <optional>

#include "destination_check.h"
#include "enum_table.h"
#include "sink_scenario_runs.h"

namespace ksink::testkit {
namespace {

constexpr int kRound = 10;
// How long a frozen task's consumer stays in the group (librdkafka's least: the session timeout).
constexpr const char* kMaxPollInterval = "4000";

// The kill points, in the order the scenario tries them, and how messages name each.
constexpr EnumName<KillPoint> kKillPoints[] = {
    {KillPoint::kBeforePut, "before put()"},
    {KillPoint::kAfterPut, "after put()"},
    {KillPoint::kBeforePreCommit, "before preCommit()"},
    {KillPoint::kAfterPreCommit, "after preCommit()"},
};
static_assert(listsEnum(kKillPoints, KillPoint::kAfterPreCommit));

// Freezes the next task that reaches the armed kill point until release(); every task frozen is
// released at the latest when the Freezer is told to let all go.
class Freezer {
 public:
  void arm(KillPoint point) {
    std::lock_guard lock(mutex_);
    armed_ = point;
    frozen_.reset();
  }
  // The hook: on the task's thread.
  void at(int task, KillPoint point) {
    std::unique_lock lock(mutex_);
    if (armed_ != point) return;
    armed_.reset();
    frozen_ = task;
    const int mine = ++freezes_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return released_ >= mine; });
  }
  std::optional<int> waitFrozen(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout, [&] { return frozen_.has_value(); });
    return frozen_;
  }
  void releaseAll() {
    std::lock_guard lock(mutex_);
    armed_.reset();
    released_ = freezes_;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<KillPoint> armed_;
  std::optional<int> frozen_;
  int freezes_ = 0;
  int released_ = 0;
};

bool stopped(const std::vector<ProbeEvent>& events, int task) {
  for (const auto& e : events)
    if (e.task == task && e.call == ProbeCall::kStop && e.outcome != Outcome::kRunning) return true;
  return false;
}

// One kill at `kill`'s point of `worker`'s task, its replacement (returned) and its zombie's end;
// nullptr after a failure.
std::unique_ptr<WorkerRunner> killAndReplace(SinkHarness& h, Freezer& freezer,
                                             const EnumName<KillPoint>& kill,
                                             std::unique_ptr<WorkerRunner>& worker,
                                             const Properties& props) {
  const KillPoint point = kill.key;
  // A put() kill takes the round's first batch; a preCommit() kill the first preCommit() after the
  // round was put (not one of the task's first moments in the group, nor one with nothing new).
  const bool in_put = point == KillPoint::kBeforePut || point == KillPoint::kAfterPut;
  if (in_put) freezer.arm(point);
  for (int32_t p = 0; p < kPartitions; ++p) h.produce(p, kRound);
  if (!in_put) {
    const auto ends = h.producedEnds();
    if (!h.waitJournal([&](const auto& events) { return deliveredAll(events, ends); },
                       "delivery of the records before the kill"))
      return nullptr;
    freezer.arm(point);
  }
  const auto frozen = freezer.waitFrozen(kScenarioWait);
  if (!frozen) {
    h.fail(fmt::format("no task reached the kill point {} within {} ms", kill.name,
                       kScenarioWait.count()));
    return nullptr;
  }
  h.markZombie(*frozen);
  auto next = h.startWorker(props);
  worker->stop();  // a process that hangs: its task is abandoned, not closed
  const bool replaced =
      h.waitCommitted(h.producedEnds(), fmt::format("after the task frozen {} was replaced "
                                                    "(every record up to there)",
                                                    kill.name));
  freezer.releaseAll();
  h.waitJournal([&](const auto& events) { return stopped(events, *frozen); },
                fmt::format("the end of the zombie let go {}", kill.name));
  h.stopWorker(worker, /*may_throw=*/true);
  // A failure ends the scenario: the kill points after it would find the same.
  if (!replaced ||
      !checkHeld(h, h.readBack(), h.producedEnds(), Delivery::kExactlyOnce,
                 fmt::format("with exactly-once declared, after the task killed {} was replaced "
                             "and let go as a zombie",
                             kill.name)))
    return nullptr;
  return next;
}

}  // namespace

void runKillPointsExactlyOnce(SinkHarness& h) {
  auto freezer = std::make_shared<Freezer>();
  h.hooks().at_kill_point = [freezer](int task, KillPoint point) { freezer->at(task, point); };
  auto props = h.properties();
  props.insert_or_assign("consumer.max.poll.interval.ms", kMaxPollInterval);
  auto worker = h.startWorker(props);
  for (const auto& kill : kKillPoints) {
    auto next = killAndReplace(h, *freezer, kill, worker, props);
    if (!next) {
      freezer->releaseAll();
      return;  // both workers stopped in killAndReplace()
    }
    worker = std::move(next);
  }
  freezer->releaseAll();
  h.stopWorker(worker);
  checkExactlyOnceAtEnd(h);
}

}  // namespace ksink::testkit
