#include "source_poll.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "ksink/retriable_error.h"

namespace ksink {

SourcePoll::SourcePoll(std::string task_name, const Clock& clock, std::mutex& mutex,
                       SourceCounters& counters, PublishedStatus& status, const TaskPause& pause,
                       TaskProgress& progress)
    : task_name_(std::move(task_name)),
      clock_(clock),
      mutex_(mutex),
      counters_(counters),
      status_(status),
      pause_(pause),
      progress_(progress) {}

std::optional<std::vector<detail::PolledRecord>> SourcePoll::operator()(
    const std::function<std::vector<detail::PolledRecord>()>& poll,
    std::chrono::milliseconds idle_wait) {
  if (pause_.paused()) {
    clock_.sleepFor(idle_wait);
    return std::nullopt;
  }
  const auto started = clock_.now();
  if (started < not_before_) {
    clock_.sleepFor(std::min<Clock::duration>(not_before_ - started, idle_wait));
    return std::nullopt;
  }
  std::vector<detail::PolledRecord> records;
  progress_.beginWait("poll() has not returned");
  try {
    records = poll();
    progress_.endWait();
  } catch (const RetriableError& e) {
    progress_.endWait();
    spdlog::warn("source task {}: poll() failed, retrying: {}", task_name_, e.what());
    status_.showError(fmt::format("poll() failed, retrying: {}", e.what()));
    retrying_ = true;
    not_before_ = clock_.now() + kRetryBackoff;
    return std::nullopt;
  }
  if (retrying_) {
    spdlog::info("source task {}: poll() returned again", task_name_);
    status_.clearError();
    retrying_ = false;
  }
  const double took = std::chrono::duration<double, std::milli>(clock_.now() - started).count();
  std::lock_guard lock(mutex_);
  ++counters_.poll_batch_count;
  counters_.poll_batch_avg_time_ms +=
      (took - counters_.poll_batch_avg_time_ms) / static_cast<double>(counters_.poll_batch_count);
  counters_.poll_batch_max_time_ms = std::max(counters_.poll_batch_max_time_ms, took);
  counters_.source_record_poll_total += records.size();
  return records;
}

}  // namespace ksink
