#include "worker_rebalance_listener.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <thread>

namespace ksink {
namespace {

using std::chrono::milliseconds;

// A committed-offset or watermark lookup inside the assign callback blocks the poll loop; keep it
// short enough to stay far below max.poll.interval.ms.
constexpr milliseconds kLookupTimeout{10000};

}  // namespace

OffsetMap WorkerRebalanceListener::onPartitionsAssigned(
    const std::vector<TopicPartition>& partitions) {
  const auto& s = scope_;
  assignment_.rebalancing();
  // Where each partition starts: its committed offset, else auto.offset.reset's end.
  OffsetMap start = committedOffsets(partitions);
  const auto reset = s.settings.consumer_properties.count("auto.offset.reset")
                         ? s.settings.consumer_properties.at("auto.offset.reset")
                         : std::string("earliest");
  std::set<TopicPartition> read_from_watermarks;
  for (const auto& tp : partitions) {
    assignment_.add(tp);
    if (!start.contains(tp)) {
      read_from_watermarks.insert(tp);
      // Unanswered: the partition is assigned without a start, and librdkafka applies
      // auto.offset.reset itself.
      if (auto marks =
              consumer_->watermarks(tp, std::min(kLookupTimeout, s.settings.lookup_timeout))) {
        if (reset == "earliest" || reset == "smallest" || reset == "beginning")
          start[tp] = marks->first;
        else if (reset == "latest" || reset == "largest" || reset == "end")
          start[tp] = marks->second;
      }
    }
    const auto it = start.find(tp);
    ledger_.assign(tp, it == start.end() ? std::nullopt : std::optional<int64_t>(it->second));
  }
  s.metrics.partition_count = static_cast<int64_t>(assignment_.assigned().size());
  // Rewinds requested inside open() are applied as the start offsets: before the first fetch.
  const OffsetMap rewinds = rewinds_.collectDuring([&] { s.task.open(partitions); });
  const std::set<TopicPartition> opened(partitions.begin(), partitions.end());
  for (const auto& [tp, offset] : rewinds) {
    if (!opened.contains(tp)) continue;
    start[tp] = offset;
    read_from_watermarks.erase(tp);
  }
  // Before the ledger takes the rewinds: a failed start must not commit them.
  requireStartsWithinPartitions(start, read_from_watermarks);
  for (const auto& [tp, offset] : rewinds) {
    if (opened.contains(tp)) {
      ledger_.rewind(tp, offset);
    } else {
      // Assigned before (cooperative assignment): its fetch position moves by a seek, which the
      // loop does before its next commit.
      rewinds_.request(tp, offset);
    }
  }
  return start;
}

// Started there, librdkafka would reset the partition to auto.offset.reset's end, and a sink
// that stores its offsets would take every record below the stored one for written and drop it:
// records lost without a word. Stop instead, and say how to move on.
void WorkerRebalanceListener::requireStartsWithinPartitions(
    const OffsetMap& start, const std::set<TopicPartition>& read_from_watermarks) {
  for (const auto& [tp, offset] : start) {
    if (read_from_watermarks.contains(tp)) continue;
    const auto marks =
        consumer_->watermarks(tp, std::min(kLookupTimeout, scope_.settings.lookup_timeout));
    if (!marks || offset <= marks->second) continue;  // unknown, or within the partition
    throw std::runtime_error(fmt::format(
        "{} would start at offset {}, past the partition's end ({}): the topic was deleted and "
        "created again (or truncated) since that offset was stored. Rather than skip what the "
        "partition holds now, the task stops. With the connector stopped, move where it "
        "resumes with `ksink offsets <worker.properties> <connector.properties> --set "
        "{}:{}={}` (the partition's start), or forget its offsets with --reset",
        tp, offset, marks->second, tp.topic, tp.partition, marks->first));
  }
}

OffsetMap WorkerRebalanceListener::committedOffsets(const std::vector<TopicPartition>& partitions) {
  const auto& s = scope_;
  // Guessing a start would replay the partition (earliest) or skip records (latest): retry the
  // lookup for default.api.timeout.ms, then fail the task.
  constexpr milliseconds kRetryDelay{500};
  const auto deadline = s.now() + s.settings.lookup_timeout;
  while (true) {
    if (auto found = consumer_->committed(partitions, std::min(kLookupTimeout, s.until(deadline))))
      return *found;
    if (s.now() + kRetryDelay >= deadline)
      throw std::runtime_error(fmt::format(
          "cannot read the committed offsets of {} within default.api.timeout.ms ({} ms); not "
          "guessing where to start them",
          fmt::join(partitions, ","), s.settings.lookup_timeout.count()));
    std::this_thread::sleep_for(kRetryDelay);
  }
}

void WorkerRebalanceListener::afterAssigned(const std::vector<TopicPartition>& partitions) {
  std::vector<TopicPartition> to_pause;
  for (const auto& tp : partitions)
    if (assignment_.consumerPaused(tp)) to_pause.push_back(tp);
  consumer_->pause(to_pause);
}

void WorkerRebalanceListener::onPartitionsRevoked(const std::vector<TopicPartition>& partitions,
                                                  bool lost) {
  const auto& s = scope_;
  assignment_.rebalancing();
  if (task_stopped_) return;  // KAFKA-10188: nothing reaches the task after stop()
  // The partitions are gone whatever close() does: forget them even when it throws, or the
  // shutdown that the failure starts would preCommit, close and commit them once more (for lost
  // partitions: commit offsets another member may own by now).
  try {
    if (lost) {
      spdlog::warn("task {}-{}: partitions lost: {}", s.settings.name, s.id,
                   fmt::join(partitions, ","));
      s.task.close(partitions);
    } else {
      // A rewind not applied yet: the revocation commit must not cover what it gives back.
      for (const auto& tp : partitions)
        if (const auto offset = rewinds_.pendingFor(tp)) ledger_.rewind(tp, *offset);
      commits_.commit(WorkerCommitCycle::Mode::kRevoke, partitions);
    }
  } catch (...) {
    forgetPartitions(partitions);
    throw;
  }
  forgetPartitions(partitions);
}

void WorkerRebalanceListener::forgetPartitions(const std::vector<TopicPartition>& partitions) {
  const auto& s = scope_;
  const std::set<TopicPartition> removed(partitions.begin(), partitions.end());
  // librdkafka keeps an application pause across unassign/assign: clear ours now.
  std::vector<TopicPartition> paused;
  for (const auto& tp : partitions)
    if (assignment_.consumerPaused(tp)) paused.push_back(tp);
  consumer_->resume(paused);
  for (const auto& tp : partitions) {
    ledger_.remove(tp);
    assignment_.remove(tp);
    rewinds_.forget(tp);
  }
  fetched_.dropPartitions(removed);
  delivery_.resumeIfNothingToRedeliver();
  s.metrics.partition_count = static_cast<int64_t>(assignment_.assigned().size());
}

}  // namespace ksink
