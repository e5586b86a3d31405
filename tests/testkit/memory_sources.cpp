#include "memory_sources.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ksink::testkit::selftest {
namespace {

constexpr int kStreams = 2;
constexpr int kBatch = 5;  // records per stream and poll()

struct MemoryUpstream {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<int64_t> fed = std::vector<int64_t>(kStreams, 0);
  std::vector<int64_t> position = std::vector<int64_t>(kStreams, 0);  // kKeepsPositionOutside's
};

// One upstream per run, made when the run's configuration is asked for.
class Upstreams {
 public:
  std::shared_ptr<MemoryUpstream> forRun(const std::string& connector) {
    std::lock_guard lock(mutex_);
    auto& upstream = by_run_[connector];
    if (!upstream) upstream = std::make_shared<MemoryUpstream>();
    current_ = upstream;
    return upstream;
  }
  std::shared_ptr<MemoryUpstream> current() {
    std::lock_guard lock(mutex_);
    return current_;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<MemoryUpstream>> by_run_;
  std::shared_ptr<MemoryUpstream> current_;
};

class MemorySource final : public SourceTask {
 public:
  MemorySource(std::shared_ptr<MemoryUpstream> upstream, SourceBreakage breakage)
      : upstream_(std::move(upstream)), breakage_(breakage) {}

  void start(const Config& config) override {
    topic_ = config.getString("topic");
    for (int s = 0; s < kStreams; ++s) {
      if (breakage_ == SourceBreakage::kKeepsPositionOutside) continue;
      const SourceMap read_under = breakage_ == SourceBreakage::kKeyOrderDiffers
                                       ? SourceMap{{"v", Value::integer(1)}, {"stream", name(s)}}
                                       : partition(s);
      if (auto stored = context().offsetStorageReader().offset(read_under))
        if (breakage_ != SourceBreakage::kForgetsOffsets)
          next_[static_cast<size_t>(s)] = stored->at(0).second.asInt() + 1;
    }
  }

  std::vector<SourceRecord> poll() override {
    std::unique_lock lock(upstream_->mutex);
    std::vector<SourceRecord> out;
    for (int s = 0; s < kStreams; ++s) {
      int64_t& next = breakage_ == SourceBreakage::kKeepsPositionOutside
                          ? upstream_->position[static_cast<size_t>(s)]
                          : next_[static_cast<size_t>(s)];
      for (int i = 0; i < kBatch && next < upstream_->fed[static_cast<size_t>(s)]; ++i, ++next)
        out.emplace_back(partition(s), SourceMap{{"seq", Value::integer(next)}}, topic_,
                         std::nullopt,
                         SchemaAndValue{nullptr, Value::string(fmt::format("{}:{}", s, next))});
    }
    if (!out.empty()) return out;
    if (breakage_ == SourceBreakage::kIgnoresWakeup) {
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(2500));
      return out;
    }
    upstream_->changed.wait_for(lock, std::chrono::seconds(1),
                                [&] { return woken_ || available(); });
    return out;
  }

  void wakeup() override {
    std::lock_guard lock(upstream_->mutex);
    woken_ = true;
    upstream_->changed.notify_all();
  }

  void commitRecord(const SourceRecord&, const std::optional<RecordMetadata>&) override {
    if (breakage_ == SourceBreakage::kThrowsInCommitRecord)
      throw std::runtime_error("acknowledging upstream failed");
  }

  void stop() override {}

 private:
  // Whether a stream has items not read yet (under upstream_->mutex).
  bool available() const {
    for (size_t s = 0; s < kStreams; ++s)
      if ((breakage_ == SourceBreakage::kKeepsPositionOutside ? upstream_->position[s] : next_[s]) <
          upstream_->fed[s])
        return true;
    return false;
  }
  static Value name(int stream) { return Value::string(fmt::format("s{}", stream)); }
  SourceMap partition(int stream) const {
    if (breakage_ == SourceBreakage::kKeyOrderDiffers)
      return {{"stream", name(stream)}, {"v", Value::integer(1)}};
    return {{"stream", name(stream)}};
  }

  std::shared_ptr<MemoryUpstream> upstream_;
  const SourceBreakage breakage_;
  std::string topic_;
  std::vector<int64_t> next_ = std::vector<int64_t>(kStreams, 0);
  bool woken_ = false;  // under upstream_->mutex
};

}  // namespace

SourceUnderTest memorySource(const std::string& name, SourceBreakage breakage) {
  auto upstreams = std::make_shared<Upstreams>();
  ConfigDef def;
  def.define("topic", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh,
             "the topic to write to");
  return SourceUnderTest(name,
                         [upstreams, breakage] {
                           return std::make_unique<MemorySource>(upstreams->current(), breakage);
                         })
      .configDef(def)
      .streams(kStreams)
      .config([upstreams](const ScenarioRun& run) {
        upstreams->forRun(run.connector);
        return Properties{{"topic", run.topic}};
      })
      .feed([upstreams](const ScenarioRun& run, int stream, int64_t first, int count) {
        auto upstream = upstreams->forRun(run.connector);
        std::lock_guard lock(upstream->mutex);
        upstream->fed[static_cast<size_t>(stream)] = first + count;
        upstream->changed.notify_all();
      })
      .identify([](const SourceRecord& r) -> std::optional<SourceItem> {
        const std::string& v = r.value().asString();
        const auto colon = v.find(':');
        return SourceItem{std::stoi(v.substr(0, colon)), std::stoll(v.substr(colon + 1))};
      });
}

}  // namespace ksink::testkit::selftest
