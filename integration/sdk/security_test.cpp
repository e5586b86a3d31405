// Security settings reach librdkafka: a worker consumes and commits through a real broker's
// SASL_PLAINTEXT listener (PLAIN mechanism), and a wrong password is reported, never a crash.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "ksink/ksink.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

class CountingSink : public SinkTask {
 public:
  explicit CountingSink(std::atomic<int>& count) : count_(count) {}
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override {
    count_ += static_cast<int>(records.size());
  }
  void stop() override {}

 private:
  std::atomic<int>& count_;
};

class SecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new KafkaBrokerProcess(freshDir("ksink-sasl-kafka"), "alice:s3cret");
    broker_->start();
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }

  std::map<std::string, std::string> config(const std::string& name, const std::string& topic,
                                            const std::string& password) {
    return {{"name", name},
            {"bootstrap.servers", broker_->saslBootstrap()},
            {"topics", topic},
            {"offset.flush.interval.ms", "300"},
            {"security.protocol", "SASL_PLAINTEXT"},
            {"sasl.mechanisms", "PLAIN"},
            {"sasl.username", "alice"},
            {"sasl.password", password}};
  }

  static KafkaBrokerProcess* broker_;
};

KafkaBrokerProcess* SecurityTest::broker_ = nullptr;

TEST_F(SecurityTest, SaslPlainCredentialsReachTheConsumerAndCommitsGoThroughThatListener) {
  RealKafka kafka(broker_->bootstrap());  // the plaintext listener, for setting up
  const auto topic = uniqueName("secure");
  const auto name = uniqueName("conn");
  kafka.createTopic(topic, 2);
  kafka.produceSequence(topic, 2, 20);

  std::atomic<int> count{0};
  Worker worker(Config(config(name, topic, "s3cret")),
                [&] { return std::make_unique<CountingSink>(count); });
  std::thread runner([&] { worker.run(); });
  const OffsetMap expected{{{topic, 0}, 10}, {{topic, 1}, 10}};
  EXPECT_EQ(kafka.waitForCommitted("connect-" + name, topic, 2, expected, 60s), expected);
  worker.stop();
  runner.join();
  EXPECT_EQ(count, 20);
}

TEST_F(SecurityTest, AWrongPasswordIsReportedAndRetriedNotACrash) {
  RealKafka kafka(broker_->bootstrap());
  const auto topic = uniqueName("secure");
  const auto name = uniqueName("conn");
  kafka.createTopic(topic, 1);
  kafka.produceSequence(topic, 1, 5);

  std::atomic<int> count{0};
  Worker worker(Config(config(name, topic, "wrong")),
                [&] { return std::make_unique<CountingSink>(count); });
  std::string error;
  std::thread runner([&] {
    try {
      worker.run();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  std::this_thread::sleep_for(4s);
  const auto started = std::chrono::steady_clock::now();
  worker.stop();
  runner.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 7s);  // graceful timeout 5 s + slack
  EXPECT_EQ(error, "");
  EXPECT_EQ(count, 0);
  EXPECT_TRUE(kafka.committed("connect-" + name, topic, 1).empty());
}

}  // namespace
}  // namespace ksink::it
