// SinkProbe: the test kit's window on the task under test. ProbeSinkTask wraps the author's task
// (each call forwarded, the task's context replaced by a forwarding one that also sees errant
// record reports) and writes what happened into a SinkJournal: every open/put/preCommit/close/stop
// with its arguments and outcome. A scenario may also arm faults (a RetriableError before or
// halfway through a put()) and hang a check after each preCommit().
//
// Thread-safety: the journal is shared (journal.h). A probe lives on its task's thread. Fault
// hooks run on task threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "journal.h"
#include "ksink/sink_task.h"
#include "ksink/testkit/sink_under_test.h"

namespace ksink::testkit {

struct RecordId {
  TopicPartition tp;
  int64_t offset = 0;
  friend auto operator<=>(const RecordId&, const RecordId&) = default;
};

// A new call needs a row in sink_probe.cpp's table of their names.
enum class ProbeCall { kStart, kOpen, kPut, kPreCommit, kClose, kStop, kReport };

struct ProbeEvent {
  ProbeCall call = ProbeCall::kStart;
  int task = 0;                                 // which task instance (numbered as made)
  std::vector<TopicPartition> partitions = {};  // open, close
  std::vector<RecordId> records = {};           // put; report (one)
  OffsetMap offsets = {};                       // preCommit's argument
  OffsetMap returned = {};                      // preCommit's result
  Outcome outcome = Outcome::kRunning;
  std::string error = {};  // what the call threw
  bool injected = false;   // the kit threw the RetriableError, not the task
  Clock::time_point began = {};
  Clock::time_point ended = {};
};

using SinkJournal = Journal<ProbeEvent>;

// Where the kit may break into a put(): throw RetriableError before the task sees the batch
// (a destination that refused it), or after it wrote the first half (one that failed midway).
enum class PutFault { kNone, kRetriableBefore, kRetriableAfterHalf };

// Where the kit may freeze a task (exactly-once kill points): the task's thread blocks in the hook
// until the scenario lets it go on, as a zombie, after another worker took its partitions. A new
// one needs a row in sink_kill_scenarios.cpp's kKillPoints.
enum class KillPoint { kBeforePut, kAfterPut, kBeforePreCommit, kAfterPreCommit };

struct ProbeHooks {
  // Asked before each non-empty put(); runs on the task's thread.
  std::function<PutFault(int task, std::span<const SinkRecord>)> put_fault;
  // Called after each preCommit() returned, with its argument and result; on the task's thread.
  std::function<void(int task, const OffsetMap& current, const OffsetMap& returned)>
      after_pre_commit;
  // Called at each kill point of a non-empty put() and of each preCommit(); on the task's thread,
  // which it may block.
  std::function<void(int task, KillPoint point)> at_kill_point;
};

// A TaskFactory whose tasks wrap `inner`'s, numbered by the journal.
TaskFactory probeFactory(TaskFactory inner, std::shared_ptr<SinkJournal> journal,
                         std::shared_ptr<const ProbeHooks> hooks);

// Records of `events` put() calls that returned normally (delivered), in order.
std::vector<RecordId> delivered(const std::vector<ProbeEvent>& events);
// Whether every offset below `end` of `tp` was in a put() that returned normally.
bool deliveredAll(const std::vector<ProbeEvent>& events, const TopicPartition& tp, int64_t end);
// Whether every partition of `ends` was delivered up to its end.
bool deliveredAll(const std::vector<ProbeEvent>& events, const OffsetMap& ends);
// The first call that threw something other than RetriableError (the task failed), if any, of a
// task not in `except` (zombies, whose failures are expected).
const ProbeEvent* firstFailure(const std::vector<ProbeEvent>& events,
                               const std::set<int>& except = {});
// How many preCommit() calls returned.
size_t preCommits(const std::vector<ProbeEvent>& events);
// "open", "put", … for messages.
std::string_view nameOf(ProbeCall call);

}  // namespace ksink::testkit
