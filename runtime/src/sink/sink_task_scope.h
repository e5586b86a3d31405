// SinkTaskScope: what every part of one WorkerSinkTask reads and none replaces — which task it is,
// its settings, the SinkTask, its counters and its clock. The state the parts change is in objects
// of its own, each with its invariant (TaskAssignment, OffsetLedger, FetchedRecords, SinkRewinds),
// owned by WorkerSinkTask and handed to the parts that use them.
//
// Thread-safety: the task's thread only, like the parts.
#pragma once

#include <chrono>

#include "clock.h"
#include "ksink/sink_task.h"
#include "sink_connector_config.h"
#include "task_metrics.h"

namespace ksink {

struct SinkTaskScope {
  using time_point = Clock::time_point;

  time_point now() const { return clock.now(); }
  // The timeout of a wait until `t` (see Clock::timeoutUntil).
  std::chrono::milliseconds until(time_point t) const { return clock.timeoutUntil(t); }

  const int id;
  const SinkConnectorConfig& settings;
  SinkTask& task;
  TaskMetrics& metrics;
  const Clock& clock;  // all the task's time: its loop, commit cycle and backoff
};

}  // namespace ksink
