// The worker in-process against a real Kafka broker: what the group coordinator really stores.
#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "ksink/conversion_error.h"
#include "ksink/ksink.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

// Everything a CollectingSink saw, shared with the test thread.
struct Seen {
  std::mutex mutex;
  std::map<TopicPartition, std::vector<int64_t>> offsets;  // put() order per partition
  size_t total = 0;
  std::function<OffsetMap(const OffsetMap&)> pre_commit;  // nullptr: return what was delivered

  size_t count() {
    std::lock_guard lock(mutex);
    return total;
  }
};

class CollectingSink : public SinkTask {
 public:
  explicit CollectingSink(std::shared_ptr<Seen> seen) : seen_(std::move(seen)) {}
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override {
    std::lock_guard lock(seen_->mutex);
    for (const auto& r : records) {
      seen_->offsets[r.topicPartition()].push_back(r.offset());
      ++seen_->total;
    }
  }
  OffsetMap preCommit(const OffsetMap& current) override {
    std::lock_guard lock(seen_->mutex);
    return seen_->pre_commit ? seen_->pre_commit(current) : current;
  }
  void stop() override {}

 private:
  std::shared_ptr<Seen> seen_;
};

// Runs a Worker on its own thread until the test stops it.
class RunningWorker {
 public:
  RunningWorker(std::map<std::string, std::string> config, std::shared_ptr<Seen> seen)
      : worker_(Config(std::move(config)), [seen] { return std::make_unique<CollectingSink>(seen); }),
        thread_([this] {
          try {
            worker_.run();
          } catch (const std::exception& e) {
            error_ = e.what();
          }
        }) {}
  ~RunningWorker() { stop(); }
  void stop() {
    worker_.stop();
    if (thread_.joinable()) thread_.join();
  }
  const std::string& error() const { return error_; }

 private:
  Worker worker_;
  std::string error_;
  std::thread thread_;
};

bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

std::map<std::string, std::string> connectorConfig(const std::string& name,
                                                   const std::string& topic) {
  return {{"name", name},
          {"bootstrap.servers", RealKafka::shared().bootstrap()},
          {"topics", topic},
          {"offset.flush.interval.ms", "500"},
          {"consumer.override.session.timeout.ms", "10000"}};
}

TEST(WorkerRealBroker, PeriodicCommitStoresLastDeliveredPlusOneWhileRunning) {
  auto& kafka = RealKafka::shared();
  const auto topic = uniqueName("periodic");
  const auto name = uniqueName("conn");
  kafka.createTopic(topic, 3);
  kafka.produceSequence(topic, 3, 300);

  auto seen = std::make_shared<Seen>();
  RunningWorker worker(connectorConfig(name, topic), seen);
  ASSERT_TRUE(waitUntil([&] { return seen->count() >= 300; }, 60s));
  // The periodic cycle, not the shutdown, must have committed: the worker is still running.
  const OffsetMap expected{{{topic, 0}, 100}, {{topic, 1}, 100}, {{topic, 2}, 100}};
  EXPECT_EQ(kafka.waitForCommitted("connect-" + name, topic, 3, expected, 20s), expected);
  worker.stop();
  EXPECT_EQ(worker.error(), "");
  EXPECT_EQ(seen->count(), 300u);
}

TEST(WorkerRealBroker, PreCommitReturningLessCommitsOnlyThatAndRestartRedeliversFromIt) {
  auto& kafka = RealKafka::shared();
  const auto topic = uniqueName("lessthan");
  const auto name = uniqueName("conn");
  kafka.createTopic(topic, 2);
  kafka.produceSequence(topic, 2, 40);  // 20 per partition

  {
    auto seen = std::make_shared<Seen>();
    // The sink says only records below offset 7 are durable.
    seen->pre_commit = [](const OffsetMap& current) {
      OffsetMap out;
      for (const auto& [tp, offset] : current) out[tp] = std::min<int64_t>(offset, 7);
      return out;
    };
    RunningWorker worker(connectorConfig(name, topic), seen);
    ASSERT_TRUE(waitUntil([&] { return seen->count() >= 40; }, 60s));
    const OffsetMap expected{{{topic, 0}, 7}, {{topic, 1}, 7}};
    EXPECT_EQ(kafka.waitForCommitted("connect-" + name, topic, 2, expected, 20s), expected);
    worker.stop();
    // The final commit at shutdown does not go past what preCommit returned either.
    EXPECT_EQ(kafka.committed("connect-" + name, topic, 2), expected);
  }
  auto seen = std::make_shared<Seen>();
  RunningWorker worker(connectorConfig(name, topic), seen);
  ASSERT_TRUE(waitUntil([&] { return seen->count() >= 26; }, 60s));
  worker.stop();
  std::lock_guard lock(seen->mutex);
  for (int p = 0; p < 2; ++p) {
    const auto& offsets = seen->offsets[{topic, p}];
    ASSERT_EQ(offsets.size(), 13u) << "partition " << p;
    EXPECT_EQ(offsets.front(), 7) << "partition " << p;
    EXPECT_EQ(offsets.back(), 19) << "partition " << p;
  }
}

// Writes values as they come; a value starting with "bad" goes to the errant record reporter.
class ReportingSink : public SinkTask {
 public:
  explicit ReportingSink(std::shared_ptr<Seen> seen) : seen_(std::move(seen)) {}
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override {
    for (const auto& r : records) {
      if (r.value().value_or("").starts_with("bad")) {
        context().errantRecordReporter()->report(r, ConversionError("cannot parse"));
        continue;
      }
      std::lock_guard lock(seen_->mutex);
      seen_->offsets[r.topicPartition()].push_back(r.offset());
      ++seen_->total;
    }
  }
  void stop() override {}

 private:
  std::shared_ptr<Seen> seen_;
};

TEST(WorkerRealBroker, S35_ToleranceAllWritesThePoisonPillToTheDlqAndCommitsPastIt) {
  auto& kafka = RealKafka::shared();
  const auto topic = uniqueName("poison");
  const auto dlq = topic + "-dlq";  // created by ksink, with the configured replication factor
  const auto name = uniqueName("conn");
  kafka.createTopic(topic, 1);
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 10; ++i)
    messages.push_back({0, "k" + std::to_string(i), (i == 7 ? "bad" : "v") + std::to_string(i)});
  kafka.produce(topic, messages);

  auto config = connectorConfig(name, topic);
  config["connector.class"] = "reporting";
  config["errors.tolerance"] = "all";
  config["errors.deadletterqueue.topic.name"] = dlq;
  config["errors.deadletterqueue.topic.replication.factor"] = "1";
  config["errors.deadletterqueue.context.headers.enable"] = "true";
  auto seen = std::make_shared<Seen>();
  Worker worker(Config(config), [seen] { return std::make_unique<ReportingSink>(seen); });
  std::thread runner([&] { worker.run(); });
  const OffsetMap expected{{{topic, 0}, 10}};
  EXPECT_EQ(kafka.waitForCommitted("connect-" + name, topic, 1, expected, 60s), expected);
  worker.stop();
  runner.join();
  EXPECT_EQ(seen->count(), 9u);
  // The DLQ topic exists (ksink created it) and holds exactly the bad record.
  EXPECT_EQ(kafka.endOffset({dlq, 0}), 1);
}

}  // namespace
}  // namespace ksink::it
