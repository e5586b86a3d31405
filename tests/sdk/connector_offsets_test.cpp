// `ksink offsets --set/--reset` in Kafka Connect's order (connector_offsets.h): the group is
// checked for members before anything changes, the sink's stored offsets change before the
// group's, and a failing sink leaves the group alone. A recording group stands in for the broker.
#include "connector_offsets.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace ksink {
namespace {

class RecordingGroup final : public ConnectorGroup {
 public:
  explicit RecordingGroup(std::vector<std::string>& calls) : calls_(calls) {}
  std::string id() const override { return "connect-c"; }
  void requireNoMembers() override {
    calls_.push_back("group.check");
    if (has_members) throw std::runtime_error("it still has members");
  }
  void reset() override { calls_.push_back("group.reset"); }
  void alter(const OffsetMap& offsets) override {
    calls_.push_back(
        fmt::format("group.alter {}={}", offsets.begin()->first, offsets.begin()->second));
  }
  bool has_members = false;

 private:
  std::vector<std::string>& calls_;
};

class ConnectorOffsetsTest : public ::testing::Test {
 protected:
  ConnectorRegistry::SinkEntry sinkWithHook(bool fails = false) {
    ConnectorRegistry::SinkEntry entry{"stores-offsets", nullptr, ConfigDef(), "test"};
    entry.alter_offsets = [this, fails](const Config& config,
                                        const std::optional<OffsetMap>& offsets) {
      calls_.push_back(fmt::format("sink.{} name={}", offsets ? "set" : "reset",
                                   config.get("name").value_or("?")));
      if (fails) throw std::runtime_error("disk on fire");
    };
    return entry;
  }

  std::vector<std::string> calls_;
  RecordingGroup group_{calls_};
  Config config_{std::map<std::string, std::string>{{"name", "c"}}};
  OffsetMap offsets_{{{"t", 0}, 5}};
};

TEST_F(ConnectorOffsetsTest, SetChecksTheGroupThenAltersTheSinkThenTheGroup) {
  const auto lines = alterConnectorOffsets(config_, sinkWithHook(), offsets_, group_);
  EXPECT_EQ(calls_,
            (std::vector<std::string>{"group.check", "sink.set name=c", "group.alter t-0=5"}));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("stored offsets of connector c set: t-0=5"), std::string::npos)
      << lines[0];
}

TEST_F(ConnectorOffsetsTest, ResetChecksTheGroupThenResetsTheSinkThenTheGroup) {
  alterConnectorOffsets(config_, sinkWithHook(), std::nullopt, group_);
  EXPECT_EQ(calls_, (std::vector<std::string>{"group.check", "sink.reset name=c", "group.reset"}));
}

TEST_F(ConnectorOffsetsTest, AGroupWithMembersIsRefusedBeforeTheSinkIsCalled) {
  group_.has_members = true;
  EXPECT_THROW(alterConnectorOffsets(config_, sinkWithHook(), offsets_, group_),
               std::runtime_error);
  EXPECT_EQ(calls_, (std::vector<std::string>{"group.check"}));
}

TEST_F(ConnectorOffsetsTest, AFailingSinkHookLeavesTheGroupUnchangedAndSaysWhy) {
  try {
    alterConnectorOffsets(config_, sinkWithHook(/*fails=*/true), offsets_, group_);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("disk on fire"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("group's offsets are unchanged"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(calls_, (std::vector<std::string>{"group.check", "sink.set name=c"}));
}

TEST_F(ConnectorOffsetsTest, ASinkWithoutTheHookOnlyChangesTheGroup) {
  ConnectorRegistry::SinkEntry plain{"no-offsets", nullptr, ConfigDef(), "test"};
  const auto lines = alterConnectorOffsets(config_, plain, offsets_, group_);
  EXPECT_EQ(calls_, (std::vector<std::string>{"group.check", "group.alter t-0=5"}));
  EXPECT_NE(lines.at(0).find("stores no offsets of its own"), std::string::npos) << lines.at(0);
}

}  // namespace
}  // namespace ksink
