#include "ksink/testkit/source_under_test.h"

#include <stdexcept>

namespace ksink::testkit {

SourceUnderTest::SourceUnderTest(std::string name, SourceTaskFactory factory)
    : TaskUnderTest("SourceUnderTest", std::move(name), std::move(factory)) {}

SourceUnderTest& SourceUnderTest::streams(int count) {
  if (count < 1) throw std::invalid_argument("SourceUnderTest " + name() + ": streams() < 1");
  streams_ = count;
  return *this;
}

SourceUnderTest& SourceUnderTest::feed(FeedFn feed) {
  feed_ = std::move(feed);
  return *this;
}

SourceUnderTest& SourceUnderTest::identify(IdentifyFn identify) {
  identify_ = std::move(identify);
  return *this;
}

void SourceUnderTest::feedItems(const ScenarioRun& run, int stream, int64_t first,
                                int count) const {
  if (!feed_)
    throw std::logic_error("SourceUnderTest " + name() +
                           ": feed() is required (the source's data)");
  feed_(run, stream, first, count);
}

std::optional<SourceItem> SourceUnderTest::itemOf(const SourceRecord& record) const {
  if (!identify_)
    throw std::logic_error("SourceUnderTest " + name() +
                           ": identify() is required (which item a record carries)");
  return identify_(record);
}

}  // namespace ksink::testkit
