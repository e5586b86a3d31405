// FakeSinkTaskContext: a SinkTaskContext for driving a SinkTask directly in unit tests. It records
// rewinds (offset()) and hands out the errant record reporter a test sets.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <vector>

#include "ksink/sink_task_context.h"

namespace ksink::testing {

class FakeSinkTaskContext : public SinkTaskContext {
 public:
  std::set<TopicPartition> assignment() const override { return {}; }
  void offset(const TopicPartition& tp, int64_t o) override { rewinds[tp] = o; }
  void offset(const OffsetMap& offsets) override {
    for (const auto& [tp, o] : offsets) rewinds[tp] = o;
  }
  void timeout(std::chrono::milliseconds ms) override { backoff = ms; }
  void pause(const std::vector<TopicPartition>&) override {}
  void resume(const std::vector<TopicPartition>&) override {}
  void requestCommit() override {}
  ErrantRecordReporter* errantRecordReporter() override { return reporter; }
  const Config& config() const override { return config_; }

  OffsetMap rewinds;                                 // every offset() call, last one per partition
  ErrantRecordReporter* reporter = nullptr;          // what errantRecordReporter() returns
  std::optional<std::chrono::milliseconds> backoff;  // the last timeout() call

 private:
  Config config_;
};

}  // namespace ksink::testing
