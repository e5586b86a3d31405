// ksink's sources writing Avro (value.converter=AvroConverter) through a real schema registry and a
// real broker, in `ksink` processes: the lines of a file reach the topic as Avro strings in
// Confluent's wire format, registered under <topic>-value; a registry that hangs holds the records
// back — none produced, skipped or reordered — until it answers, then every line arrives once;
// and Kafka Connect's own FileStreamSink, reading through Apicurio Registry's AvroConverter,
// writes back exactly the lines ksink's source wrote as Avro.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <thread>

#include "child_process.h"
#include "connect_standalone.h"
#include "ksink/config.h"
#include "ksink/converter.h"
#include "polling.h"
#include "test_kafka.h"
#include "test_schema_registry.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class AvroSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("avro-source");
    topic_ = uniqueName("lines");
    name_ = uniqueName("avro-file");
    input_ = (dir_ / "input.txt").string();
    RealKafka::shared().createTopic(topic_, 1);
  }

  std::unique_ptr<ChildProcess> startKsink(const std::string& registry) {
    const auto worker = dir_ / "worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\noffset.storage.topic={}-offsets\n"
        "offset.storage.replication.factor=1\noffset.storage.partitions=1\n"
        "offset.flush.interval.ms=500\nlisteners=\n",
        RealKafka::shared().bootstrap(), name_);
    const auto connector = dir_ / "source.properties";
    std::ofstream(connector) << fmt::format(
        "name={}\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n"
        "value.converter=io.confluent.connect.avro.AvroConverter\n"
        "value.converter.schema.registry.url={}\nvalue.converter.http.read.timeout.ms=1000\n",
        name_, input_, topic_, registry);
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / "ksink.log");
  }

  void writeLines(int first, int count) {
    std::ofstream out(input_, std::ios::app);
    for (int i = first; i < first + count; ++i) out << "line " << i << "\n";
  }

  int64_t produced() { return RealKafka::shared().endOffset({topic_, 0}); }

  // The topic's values read with ksink's Avro converter (through the registry at `registry`).
  std::vector<std::string> lines(const std::string& registry) {
    auto converter = Converter::create(
        Config(std::map<std::string, std::string>{
            {"value.converter", "avro"}, {"value.converter.schema.registry.url", registry}}),
        false);
    std::vector<std::string> out;
    for (const auto& r : test::readPartition(RealKafka::shared().bootstrap(), topic_, 0,
                                             static_cast<size_t>(produced()), 30s)) {
      const auto data = converter->toConnectData(topic_, r.value);
      EXPECT_EQ(data.schema->type, Schema::Type::kString);
      out.push_back(data.value.asString());
    }
    return out;
  }

  fs::path dir_;
  std::string topic_, name_, input_;
};

std::vector<std::string> expectedLines(int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(fmt::format("line {}", i));
  return out;
}

TEST_F(AvroSourceTest, ARegistryThatHangsHoldsTheRecordsBackAndThenEveryLineArrivesOnce) {
  SchemaRegistryProcess own(freshDir("ksink-registry-source"));
  const auto registry = own.start();
  writeLines(0, 300);
  own.pause();
  auto ksink = startKsink(registry);
  ASSERT_TRUE(waitUntil([&] { return ksink->log().find("retrying") != std::string::npos; }, 30s))
      << ksink->log();
  writeLines(300, 200);
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(produced(), 0);  // nothing produced, nothing skipped past
  own.resume();
  ASSERT_TRUE(waitUntil([&] { return produced() >= 500; }, 60s)) << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(20s), 0) << ksink->log();
  EXPECT_EQ(lines(registry), expectedLines(500));  // in order, each once
}

TEST_F(AvroSourceTest, ARestartResumesAfterTheLastLineWrittenAsAvro) {
  const auto& registry = TestSchemaRegistry::url();
  writeLines(0, 100);
  {
    auto ksink = startKsink(registry);
    ASSERT_TRUE(waitUntil([&] { return produced() == 100; }, 30s)) << ksink->log();
    ASSERT_TRUE(waitUntil([&] { return ksink->log().find("started") != std::string::npos; }, 30s));
    std::this_thread::sleep_for(1s);  // an offset commit
    ksink->signal(SIGTERM);
    ASSERT_EQ(ksink->wait(20s), 0) << ksink->log();
  }
  writeLines(100, 50);
  auto ksink = startKsink(registry);
  ASSERT_TRUE(waitUntil([&] { return produced() == 150; }, 30s)) << ksink->log();
  std::this_thread::sleep_for(1s);
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(20s), 0) << ksink->log();
  EXPECT_EQ(lines(registry), expectedLines(150));
}

TEST_F(AvroSourceTest, ConnectsFileStreamSinkReadsWhatKsinkWroteAsAvro) {
  const auto& registry = TestSchemaRegistry::url();
  writeLines(0, 60);
  {
    auto ksink = startKsink(registry);
    ASSERT_TRUE(waitUntil([&] { return produced() == 60; }, 30s)) << ksink->log();
    ASSERT_TRUE(waitUntil([&] { return ksink->log().find("started") != std::string::npos; }, 30s));
    ksink->signal(SIGTERM);
    ASSERT_EQ(ksink->wait(20s), 0) << ksink->log();
  }
  // Connect 4.1.1's FileStreamSink with Apicurio's AvroConverter in Confluent's format (ids are
  // Confluent API ids, which are Apicurio's content ids).
  auto native = registry;
  native.replace(native.find("/apis/ccompat/v7"), std::string::npos, "/apis/registry/v2");
  const auto out = dir_ / "connect-out.txt";
  const auto connect = dir_ / "connect";
  connectScript(
      "start.sh", connect,
      {RealKafka::shared().bootstrap(), "name=" + uniqueName("connect-sink"),
       "connector.class=FileStreamSink", "tasks.max=1", "file=" + out.string(), "topics=" + topic_,
       "value.converter=io.apicurio.registry.utils.converter.AvroConverter",
       "value.converter.apicurio.registry.url=" + native,
       "value.converter.apicurio.registry.as-confluent=true",
       "value.converter.apicurio.registry.use-id=contentId",
       "value.converter.apicurio.registry.headers.enabled=false",
       "value.converter.apicurio.registry.id-handler=io.apicurio.registry.serde."
       "Legacy4ByteIdHandler"});
  std::vector<std::string> got;
  const bool all = waitUntil(
      [&] {
        got.clear();
        std::ifstream in(out);
        for (std::string line; std::getline(in, line);) got.push_back(line);
        return got.size() >= 60;
      },
      60s);
  connectScript("stop.sh", connect, {});
  EXPECT_TRUE(all) << got.size() << " lines";
  EXPECT_EQ(got, expectedLines(60));
}

}  // namespace
}  // namespace ksink::it
