#include "ksink/testkit/sink_under_test.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ksink::testkit {

SinkUnderTest::SinkUnderTest(std::string name, TaskFactory factory)
    : TaskUnderTest("SinkUnderTest", std::move(name), std::move(factory)) {}

SinkUnderTest& SinkUnderTest::readBack(ReadBackFn read_back) {
  read_back_ = std::move(read_back);
  return *this;
}

SinkUnderTest& SinkUnderTest::records(RecordFn make) {
  make_ = std::move(make);
  return *this;
}

SinkUnderTest& SinkUnderTest::badRecord(RecordFn make) {
  bad_ = std::move(make);
  return *this;
}

SinkUnderTest& SinkUnderTest::exactlyOnce(StoredOffsetsFn stored_offsets) {
  stored_offsets_ = std::move(stored_offsets);
  return *this;
}

std::vector<StoredRecord> SinkUnderTest::read(const ScenarioRun& run) const {
  if (!read_back_)
    throw std::logic_error("SinkUnderTest " + name() +
                           ": readBack() is required (what the destination holds)");
  return read_back_(run);
}

TestRecord SinkUnderTest::record(const TopicPartition& tp, int64_t offset) const {
  if (make_) return make_(tp, offset);
  return {.key = fmt::format("{}-{}", tp.partition, offset),
          .value = fmt::format(R"({{"kit_partition":{},"kit_offset":{}}})", tp.partition, offset)};
}

TestRecord recordWithUnknownColumn(const TopicPartition& tp, int64_t offset) {
  return {.key = "bad",
          .value = fmt::format(R"({{"kit_partition":{},"kit_offset":{},"unknown_column":1}})",
                               tp.partition, offset)};
}

OffsetMap SinkUnderTest::storedOffsets(const ScenarioRun& run) const {
  return stored_offsets_ ? stored_offsets_(run) : OffsetMap{};
}

}  // namespace ksink::testkit
