#include "sink_harness.h"

#include <fmt/format.h>

#include <atomic>
#include <thread>

namespace ksink::testkit {
namespace {

std::string describeCommitted(const OffsetMap& target, const OffsetMap& committed) {
  std::string out;
  for (const auto& [tp, end] : target) {
    const auto it = committed.find(tp);
    out += fmt::format("{}{}: committed {} of {}", out.empty() ? "" : "; ", tp,
                       it == committed.end() ? std::string("nothing") : std::to_string(it->second),
                       end);
  }
  return out;
}

}  // namespace

SinkHarness::SinkHarness(const SinkUnderTest& sink, std::string_view scenario)
    : ScenarioHarness(sink.name(), scenario, kPartitions),
      sink_(sink),
      group_("connect-" + run().connector) {}

std::vector<TopicPartition> SinkHarness::partitions() const {
  std::vector<TopicPartition> out;
  for (int32_t p = 0; p < kPartitions; ++p) out.push_back(partition(p));
  return out;
}

Properties SinkHarness::properties() const {
  Properties p = mockWorkerProperties(run().connector, run().topic, cluster().bootstrap());
  for (auto& [key, value] : sink_.properties(run())) p.insert_or_assign(key, value);
  return p;
}

std::unique_ptr<WorkerRunner> SinkHarness::startWorker(const Properties& properties) {
  ConfigDef def = Worker::configDef();
  def.include(sink_.definitions());
  return std::make_unique<WorkerRunner>(Config(properties, def),
                                        probeFactory(sink_.factory(), journal_, hooks_));
}

void SinkHarness::produce(int32_t p, int count) {
  std::vector<TestRecord> records;
  const auto tp = partition(p);
  for (int i = 0; i < count; ++i) records.push_back(sink_.record(tp, produced(p) + i));
  cluster().produce(run().topic, p, records);
  produced_[static_cast<size_t>(p)] += count;
}

int64_t SinkHarness::produceBad(int32_t p) {
  const auto tp = partition(p);
  const int64_t offset = produced(p);
  cluster().produce(run().topic, p, {sink_.bad()(tp, offset)});
  ++produced_[static_cast<size_t>(p)];
  return offset;
}

OffsetMap SinkHarness::producedEnds() const {
  OffsetMap out;
  for (int32_t p = 0; p < kPartitions; ++p) out[partition(p)] = produced(p);
  return out;
}

bool SinkHarness::taskFailed() {
  const auto events = journal_->events();
  const ProbeEvent* failure = firstFailure(events, zombies_);
  return failure && reportTaskFailure(nameOf(failure->call), failure->error);
}

bool SinkHarness::waitCommitted(const OffsetMap& target, std::string_view what) {
  std::vector<TopicPartition> tps;
  for (const auto& [tp, end] : target) tps.push_back(tp);
  const auto deadline = std::chrono::steady_clock::now() + kScenarioWait;
  OffsetMap committed;
  while (true) {
    committed = cluster().committed(group_, tps);
    bool reached = true;
    for (const auto& [tp, end] : target) {
      const auto it = committed.find(tp);
      reached = reached && it != committed.end() && it->second >= end;
    }
    if (reached) return true;
    if (taskFailed()) return false;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  fail(fmt::format("{}: not committed within {} ms ({})", what, kScenarioWait.count(),
                   describeCommitted(target, committed)));
  return false;
}

bool SinkHarness::waitJournal(const std::function<bool(const std::vector<ProbeEvent>&)>& condition,
                              std::string_view what) {
  const bool held = journal_->waitUntil(
      [&](const auto& events) { return condition(events) || firstFailure(events, zombies_); },
      kScenarioWait);
  if (taskFailed()) return false;
  if (held) return true;
  fail(fmt::format("{} did not happen within {} ms", what, kScenarioWait.count()));
  return false;
}

std::vector<StoredRecord> SinkHarness::readBack() {
  try {
    return sink_.read(run());
  } catch (const std::exception& e) {
    fail(fmt::format("reading the destination back failed: {}", e.what()));
    return {};
  }
}

}  // namespace ksink::testkit
