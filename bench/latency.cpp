#include "latency.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "bench_data.h"
#include "polling.h"

namespace ksink::bench {
namespace {

using Clock = std::chrono::steady_clock;

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// Sees committed rows: per partition, the largest id visible; ids of a partition commit in order.
class CommitWatcher {
 public:
  CommitWatcher(it::PgTestSchema& schema, const std::string& table, int partitions)
      : schema_(schema),
        partitions_(partitions),
        query_(fmt::format("SELECT coalesce((SELECT max(id) FROM {0} WHERE id % {1} = p), -1) "
                           "FROM generate_series(0, {2}) p ORDER BY p",
                           table, partitions, partitions - 1)),
        seen_(static_cast<size_t>(partitions), -1) {}

  // Calls `on_seen(id)` for every id that became visible since the last call.
  template <typename OnSeen>
  void poll(OnSeen on_seen) {
    const auto rows = schema_.query(query_);
    for (int p = 0; p < partitions_; ++p) {
      const int64_t max = std::stoll(*rows[static_cast<size_t>(p)][0]);
      auto& seen = seen_[static_cast<size_t>(p)];
      for (int64_t id = seen < 0 ? p : seen + partitions_; id <= max; id += partitions_)
        on_seen(id);
      seen = std::max(seen, max);
    }
  }
  // True once every id below `end` is visible.
  bool allSeen(int64_t end) const {
    for (int p = 0; p < partitions_; ++p) {
      if (end - 1 < p) continue;  // no id of this partition below `end`
      const int64_t last = (end - 1) - (end - 1 - p) % partitions_;
      if (seen_[static_cast<size_t>(p)] < last) return false;
    }
    return true;
  }

 private:
  it::PgTestSchema& schema_;
  int partitions_;
  std::string query_;
  std::vector<int64_t> seen_;
};

void produceRows(it::RealKafka& kafka, const std::string& topic, int64_t begin, int64_t end,
                 int partitions, std::vector<std::atomic<int64_t>>& produced_ns) {
  std::vector<it::RealKafka::Message> batch;
  const int64_t at = nowNs();
  for (int64_t id = begin; id < end; ++id) {
    produced_ns[static_cast<size_t>(id)] = at;
    batch.push_back({static_cast<int>(id % partitions), std::nullopt, envelopeJson(orderRow(id))});
  }
  kafka.produce(topic, batch);
}

double percentile(const std::vector<double>& sorted, double q) {
  return sorted.empty()
             ? 0
             : sorted[std::min(sorted.size() - 1,
                               static_cast<size_t>(q * static_cast<double>(sorted.size())))];
}

}  // namespace

LatencyResult measureLatency(const SinkCase& sink, const SinkSettings& settings,
                             const LatencySettings& load, it::RealKafka& kafka,
                             it::PgTestSchema& schema) {
  const auto topic = it::uniqueName("bench-latency");
  const std::string table =
      sink.kind == SinkKind::kPeer ? peerTable(schema, "latency") : std::string("latency_ksink");
  kafka.createTopic(topic, load.partitions);
  schema.exec(
      fmt::format("DROP TABLE IF EXISTS {0}; CREATE TABLE {0} ({1}); "
                  "CREATE INDEX ON {0} ((id % {2}), id)",
                  table, kPgColumns, load.partitions));
  const int64_t warmup = load.partitions;  // one row per partition: the sink is assigned and up
  const int64_t end = warmup + static_cast<int64_t>(load.rate) * load.seconds;
  std::vector<std::atomic<int64_t>> produced_ns(static_cast<size_t>(end));
  auto running = launchSink(sink, settings, topic, {&schema, {}, table}, end);
  it::PgTestSchema poller_schema(it::TestPostgres::shared().url(), schema.name());
  CommitWatcher watcher(poller_schema, table, load.partitions);
  produceRows(kafka, topic, 0, warmup, load.partitions, produced_ns);
  if (!it::waitUntil(
          [&] {
            watcher.poll([](int64_t) {});
            return watcher.allSeen(warmup) || !running.process->running();
          },
          std::chrono::minutes(3), std::chrono::milliseconds(20)) ||
      !running.process->running())
    throw std::runtime_error(
        fmt::format("{}: warm-up rows never committed:\n{}", sink.name, running.process->log()));

  std::vector<double> latencies_ms;
  std::atomic<bool> produced_all{false};
  std::jthread poller([&] {
    const auto deadline_after_last = std::chrono::seconds(60);
    Clock::time_point last_produced{};
    while (true) {
      watcher.poll([&](int64_t id) {
        latencies_ms.push_back(static_cast<double>(nowNs() - produced_ns[static_cast<size_t>(id)]) /
                               1e6);
      });
      if (produced_all) {
        if (last_produced == Clock::time_point{}) last_produced = Clock::now();
        if (watcher.allSeen(end) || Clock::now() - last_produced > deadline_after_last) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  const auto start = Clock::now();
  for (int64_t next = warmup; next < end;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const int64_t due = std::min(end, warmup + static_cast<int64_t>(elapsed * load.rate));
    if (due > next) {
      produceRows(kafka, topic, next, due, load.partitions, produced_ns);
      next = due;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  produced_all = true;
  poller.join();
  running.process->signal(SIGTERM);
  running.process->wait(std::chrono::seconds(60));
  std::sort(latencies_ms.begin(), latencies_ms.end());
  return {sink.name, static_cast<int64_t>(latencies_ms.size()), percentile(latencies_ms, 0.5),
          percentile(latencies_ms, 0.99), latencies_ms.empty() ? 0 : latencies_ms.back()};
}

}  // namespace ksink::bench
