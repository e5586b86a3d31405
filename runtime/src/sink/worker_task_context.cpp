#include "worker_task_context.h"

#include <spdlog/spdlog.h>

namespace ksink {

void WorkerTaskContext::offset(const TopicPartition& tp, int64_t offset) {
  if (!assignment_.contains(tp)) {
    spdlog::warn("task {}-{}: ignoring rewind of {} to {}: partition not assigned",
                 scope_.settings.name, scope_.id, tp, offset);
    return;
  }
  rewinds_.request(tp, offset);
}

void WorkerTaskContext::offset(const OffsetMap& offsets) {
  for (const auto& [tp, o] : offsets) offset(tp, o);
}

void WorkerTaskContext::pause(const std::vector<TopicPartition>& partitions) {
  std::vector<TopicPartition> to_pause;
  for (const auto& tp : partitions) {
    if (!assignment_.contains(tp)) {
      spdlog::warn("task {}-{}: cannot pause {}: not assigned", scope_.settings.name, scope_.id,
                   tp);
      continue;
    }
    if (assignment_.pause(tp)) to_pause.push_back(tp);
  }
  if (!assignment_.redelivering()) consumer_->pause(to_pause);
}

void WorkerTaskContext::resume(const std::vector<TopicPartition>& partitions) {
  std::vector<TopicPartition> to_resume;
  for (const auto& tp : partitions)
    if (assignment_.resume(tp)) to_resume.push_back(tp);
  // Paused for a redelivery or by the connector, the partitions resume with it.
  if (!assignment_.redelivering() && !assignment_.allPaused()) consumer_->resume(to_resume);
}

}  // namespace ksink
