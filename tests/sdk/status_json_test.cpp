// /status as JSON: strings escaped as JSON requires (a task's error carries quotes, newlines, tabs
// and control characters from the exceptions it reports).
#include <gtest/gtest.h>

#include "status_server.h"

namespace ksink {
namespace {

TEST(StatusJsonTest, AnErrorWithQuotesNewlinesAndControlCharactersIsValidJsonText) {
  ConnectorStatus connector;
  connector.name = "n\"ame";
  connector.type = "source";
  connector.connector_class = "FileStreamSource";
  TaskStatus task;
  task.id = 0;
  task.state = "FAILED";
  task.last_error = "said \"no\"\n\tat C:\\dir\x01 caf\xC3\xA9";
  connector.tasks.push_back(task);
  const auto json = renderStatusJson({connector});
  EXPECT_NE(json.find(R"("name":"n\"ame")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("said \"no\"\n\tat C:\\dir\u0001 café")"), std::string::npos) << json;
  for (const unsigned char c : json) EXPECT_GE(c, 0x20) << json;  // no raw control character
  EXPECT_NE(json.find(R"("stalled":null)"), std::string::npos) << json;
}

TEST(StatusJsonTest, AStalledTaskShowsWhatDoesNotMoveInStatusAndInMetrics) {
  ConnectorStatus connector;
  connector.name = "slow";
  TaskStatus stalled, moving;
  stalled.id = 0;
  stalled.state = moving.state = "RUNNING";
  stalled.stalled = "poll() has not returned for 200 s";
  moving.id = 1;
  connector.tasks = {stalled, moving};
  const auto json = renderStatusJson({connector});
  EXPECT_NE(
      json.find(
          R"("id":0,"state":"RUNNING","last_error":null,"stalled":"poll() has not returned for 200 s")"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("id":1,"state":"RUNNING","last_error":null,"stalled":null)"),
            std::string::npos)
      << json;
  const auto metrics = renderPrometheus({connector});
  EXPECT_NE(metrics.find("ksink_task_stalled{connector=\"slow\",task=\"0\"} 1\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("ksink_task_stalled{connector=\"slow\",task=\"1\"} 0\n"),
            std::string::npos)
      << metrics;
}

}  // namespace
}  // namespace ksink
