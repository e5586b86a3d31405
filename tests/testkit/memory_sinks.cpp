#include "memory_sinks.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <thread>

#include "ksink/retriable_error.h"

namespace ksink::testkit::selftest {
namespace {

bool isBad(const SinkRecord& r) {
  return r.value() && *r.value() == "bad";
}

class BuffersUntilStop final : public MemorySink {
 public:
  using MemorySink::MemorySink;
  void put(std::span<const SinkRecord> records) override {
    for (const auto& r : records) buffered_.push_back(r.topicPartition(), r.offset());
  }
  void stop() override { buffered_.flushTo(destination()); }

 private:
  // Coordinates only: SinkRecords do not outlive put().
  struct Buffer {
    std::vector<std::pair<TopicPartition, int64_t>> ids;
    void push_back(TopicPartition tp, int64_t offset) { ids.emplace_back(std::move(tp), offset); }
    void flushTo(MemoryDestination& d) {
      for (const auto& [tp, offset] : ids) {
        const SinkRecord r(tp.topic, tp.partition, offset, std::nullopt, std::nullopt, "v");
        d.write(std::span(&r, 1));
      }
      ids.clear();
    }
  } buffered_;
};

class ReturnsOnePastPut final : public MemorySink {
 public:
  using MemorySink::MemorySink;
  OffsetMap preCommit(const OffsetMap& current) override {
    OffsetMap out;
    for (const auto& [tp, offset] : current) out[tp] = offset + 1;
    return out;
  }
};

class HalfWritesThenRetries final : public MemorySink {
 public:
  using MemorySink::MemorySink;
  void put(std::span<const SinkRecord> records) override {
    if (records.size() < 2 || failed_) return MemorySink::put(records);
    failed_ = true;
    MemorySink::put(records.first(records.size() / 2));
    throw RetriableError("the destination went away halfway through the batch");
  }

 private:
  bool failed_ = false;
};

class ForgetsOnOpen final : public MemorySink {
 public:
  using MemorySink::MemorySink;
  void open(const std::vector<TopicPartition>& partitions) override {
    destination().erase(partitions);
  }
};

class SlowStop final : public MemorySink {
 public:
  using MemorySink::MemorySink;
  void stop() override { std::this_thread::sleep_for(std::chrono::milliseconds(4500)); }
};

class WritesErrantRecords final : public MemorySink {
 public:
  using MemorySink::MemorySink;
  void put(std::span<const SinkRecord> records) override {
    for (const auto& r : records)
      if (isBad(r)) context().errantRecordReporter()->report(r, std::runtime_error("bad value"));
    destination().write(records);
  }
};

class UnfencedOffsets final : public MemorySink {
 public:
  using MemorySink::MemorySink;
  void open(const std::vector<TopicPartition>& partitions) override {
    const OffsetMap stored = destination().storedOffsets();
    for (const auto& tp : partitions)
      if (const auto it = stored.find(tp); it != stored.end()) context().offset(tp, it->second);
  }
  void put(std::span<const SinkRecord> records) override {
    destination().writeWithOffsets(records);  // whatever the stored offsets say now
  }
  OffsetMap preCommit(const OffsetMap& current) override {
    OffsetMap out;
    const OffsetMap stored = destination().storedOffsets();
    for (const auto& [tp, offset] : current)
      if (const auto it = stored.find(tp); it != stored.end())
        out[tp] = std::min(offset, it->second);
    return out;
  }
};

std::unique_ptr<SinkTask> make(Breakage breakage, std::shared_ptr<MemoryDestination> d) {
  switch (breakage) {
    case Breakage::kNone:
      return std::make_unique<MemorySink>(d);
    case Breakage::kBuffersUntilStop:
      return std::make_unique<BuffersUntilStop>(d);
    case Breakage::kReturnsOnePastPut:
      return std::make_unique<ReturnsOnePastPut>(d);
    case Breakage::kHalfWritesThenRetries:
      return std::make_unique<HalfWritesThenRetries>(d);
    case Breakage::kForgetsOnOpen:
      return std::make_unique<ForgetsOnOpen>(d);
    case Breakage::kSlowStop:
      return std::make_unique<SlowStop>(d);
    case Breakage::kWritesErrantRecords:
      return std::make_unique<WritesErrantRecords>(d);
    case Breakage::kUnfencedOffsets:
      return std::make_unique<UnfencedOffsets>(d);
  }
  return nullptr;
}

// One destination per run, found by the run's connector name (the factory is the sink's, shared
// by every run; the readBack() gets the run).
class Destinations {
 public:
  std::shared_ptr<MemoryDestination> current() {
    std::lock_guard lock(mutex_);
    if (!current_) current_ = std::make_shared<MemoryDestination>();
    return current_;
  }
  std::shared_ptr<MemoryDestination> forRun(const std::string& connector) {
    std::lock_guard lock(mutex_);
    if (connector != connector_) {
      connector_ = connector;
      current_ = std::make_shared<MemoryDestination>();
    }
    return current_;
  }

 private:
  std::mutex mutex_;
  std::string connector_;
  std::shared_ptr<MemoryDestination> current_;
};

}  // namespace

void MemoryDestination::write(std::span<const SinkRecord> records) {
  std::lock_guard lock(mutex_);
  for (const auto& r : records) held_.push_back({r.topicPartition(), r.offset()});
}

void MemoryDestination::writeWithOffsets(std::span<const SinkRecord> records) {
  std::lock_guard lock(mutex_);
  for (const auto& r : records) {
    held_.push_back({r.topicPartition(), r.offset()});
    stored_[r.topicPartition()] = r.offset() + 1;
  }
}

OffsetMap MemoryDestination::storedOffsets() const {
  std::lock_guard lock(mutex_);
  return stored_;
}

void MemoryDestination::erase(const std::vector<TopicPartition>& partitions) {
  std::lock_guard lock(mutex_);
  std::erase_if(held_, [&](const StoredRecord& r) {
    return std::find(partitions.begin(), partitions.end(), r.tp) != partitions.end();
  });
}

std::vector<StoredRecord> MemoryDestination::held() const {
  std::lock_guard lock(mutex_);
  return held_;
}

void MemorySink::put(std::span<const SinkRecord> records) {
  for (const auto& r : records) {
    if (isBad(r)) {
      auto* reporter = context().errantRecordReporter();
      if (!reporter) throw std::runtime_error("a bad record and no errant record reporter");
      reporter->report(r, std::runtime_error("bad value"));
    } else {
      destination_->write(std::span(&r, 1));
    }
  }
}

SinkUnderTest memorySink(const std::string& name, Breakage breakage) {
  auto destinations = std::make_shared<Destinations>();
  auto sink =
      SinkUnderTest(name,
                    [destinations, breakage] { return make(breakage, destinations->current()); })
          .config([destinations](const ScenarioRun& run) {
            destinations->forRun(run.connector);  // a new run: a new, empty destination
            return Properties{};
          })
          .readBack([destinations](const ScenarioRun& run) {
            return destinations->forRun(run.connector)->held();
          })
          .badRecord([](const TopicPartition&, int64_t) { return TestRecord{.value = "bad"}; });
  if (breakage == Breakage::kUnfencedOffsets)
    sink.exactlyOnce([destinations](const ScenarioRun& run) {
      return destinations->forRun(run.connector)->storedOffsets();
    });
  return sink;
}

}  // namespace ksink::testkit::selftest
