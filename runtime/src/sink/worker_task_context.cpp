#include "worker_task_context.h"

#include <spdlog/spdlog.h>

namespace ksink {

void WorkerTaskContext::offset(const TopicPartition& tp, int64_t offset) {
  if (state_.assign_rewinds && state_.assignment.contains(tp)) {
    (*state_.assign_rewinds)[tp] = offset;
    return;
  }
  if (!state_.assignment.contains(tp)) {
    spdlog::warn("task {}-{}: ignoring rewind of {} to {}: partition not assigned",
                 state_.settings.name, state_.id, tp, offset);
    return;
  }
  state_.pending_rewinds[tp] = offset;
}

void WorkerTaskContext::offset(const OffsetMap& offsets) {
  for (const auto& [tp, o] : offsets) offset(tp, o);
}

void WorkerTaskContext::pause(const std::vector<TopicPartition>& partitions) {
  std::vector<TopicPartition> to_pause;
  for (const auto& tp : partitions) {
    if (!state_.assignment.contains(tp)) {
      spdlog::warn("task {}-{}: cannot pause {}: not assigned", state_.settings.name, state_.id,
                   tp);
      continue;
    }
    if (state_.assignment.pause(tp)) to_pause.push_back(tp);
  }
  if (!delivery_.pausedForRedelivery()) state_.consumer->pause(to_pause);
}

void WorkerTaskContext::resume(const std::vector<TopicPartition>& partitions) {
  std::vector<TopicPartition> to_resume;
  for (const auto& tp : partitions)
    if (state_.assignment.resume(tp)) to_resume.push_back(tp);
  // Paused for a redelivery or by the connector, the partitions resume with it.
  if (!delivery_.pausedForRedelivery() && !state_.assignment.allPaused())
    state_.consumer->resume(to_resume);
}

}  // namespace ksink
