// The process's log lines (log_format.h): Connect's [connector|task-N] tag in the text format, one
// JSON object a line with the connector and task in the json format, and log.format values that
// are neither refused at start naming the key.
#include "log_format.h"

#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>
#include <spdlog/spdlog.h>

#include <map>
#include <regex>
#include <string>

#include "json_text.h"
#include "ksink/config_exception.h"
#include "log_context.h"

namespace ksink {
namespace {

std::string render(LogFormat format, spdlog::level::level_enum level, std::string_view text) {
  const auto formatter = makeLogFormatter(format);
  const spdlog::details::log_msg msg("", level, text);
  spdlog::memory_buf_t out;
  formatter->format(msg, out);
  return fmt::to_string(out);
}

// The fields of one JSON line, by name (numbers as text).
std::map<std::string, std::string> fields(const std::string& line) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : parseJsonObject(line))
    out[key] =
        value.kind() == Value::Kind::kString ? value.asString() : std::to_string(value.asInt());
  return out;
}

TEST(LogFormatTest, ATextLineOnATaskThreadCarriesConnectsTag) {
  const LogContext::Scope context({"my-sink", 0});
  EXPECT_NE(render(LogFormat::kText, spdlog::level::info, "hello")
                .find("] [info] [my-sink|task-0] hello"),
            std::string::npos);
}

TEST(LogFormatTest, ATextLineOnTheConnectorsThreadIsTaggedWorkerAndOneOfNoConnectorIsNotTagged) {
  {
    const LogContext::Scope context({"my-sink", std::nullopt});
    EXPECT_NE(render(LogFormat::kText, spdlog::level::warn, "x").find("] [my-sink|worker] x"),
              std::string::npos);
  }
  const auto line = render(LogFormat::kText, spdlog::level::warn, "x");
  EXPECT_NE(line.find("[warning] x"), std::string::npos) << line;
  EXPECT_EQ(line.find('|'), std::string::npos) << line;
}

TEST(LogFormatTest, AJsonLineIsOneObjectWithTimeLevelLoggerMessageConnectorAndTask) {
  const LogContext::Scope context({"my-sink", 3});
  const auto line = render(LogFormat::kJson, spdlog::level::err, "a \"quoted\"\nsecond line");
  ASSERT_EQ(line.find('\n'), line.size() - 1) << line;  // one line, whatever the message holds
  const auto f = fields(line);
  EXPECT_EQ(f.at("message"), "a \"quoted\"\nsecond line");
  EXPECT_EQ(f.at("level"), "ERROR");
  EXPECT_EQ(f.at("logger"), "root");
  EXPECT_EQ(f.at("connector"), "my-sink");
  EXPECT_EQ(f.at("task"), "3");
  EXPECT_TRUE(
      std::regex_match(f.at("time"), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << f.at("time");
}

TEST(LogFormatTest, AJsonLineNamesOnlyTheConnectorOnItsOwnThreadAndNeitherElsewhere) {
  {
    const LogContext::Scope context({"my-sink", std::nullopt});
    const auto f = fields(render(LogFormat::kJson, spdlog::level::info, "m"));
    EXPECT_EQ(f.at("connector"), "my-sink");
    EXPECT_FALSE(f.contains("task"));
  }
  const auto f = fields(render(LogFormat::kJson, spdlog::level::debug, "m"));
  EXPECT_EQ(f.at("level"), "DEBUG");
  EXPECT_FALSE(f.contains("connector"));
}

TEST(LogFormatTest, AScopeRestoresTheContextBeforeIt) {
  const LogContext::Scope outer({"a", 1});
  {
    const LogContext::Scope inner({"b", 2});
    EXPECT_EQ(LogContext::current().tag(), "[b|task-2] ");
  }
  EXPECT_EQ(LogContext::current().tag(), "[a|task-1] ");
}

TEST(LogFormatTest, AnUnknownLogFormatIsRefusedNamingTheKeyAndTheValue) {
  try {
    configureLogging({{"log.format", "xml"}});
    FAIL() << "log.format=xml was accepted";
  } catch (const ConfigException& e) {
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_EQ(e.problems()[0].key, "log.format");
    EXPECT_NE(e.problems()[0].reason.find("'xml'"), std::string::npos) << e.problems()[0].reason;
  }
}

TEST(LogFormatTest, ConfiguredJsonLinesGoToStderrAtTheConfiguredLevel) {
  configureLogging({{"log.format", "json"}, {"log.level", "warn"}});
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  spdlog::info("not shown");
  spdlog::warn("shown");
  spdlog::default_logger()->flush();
  const auto err = testing::internal::GetCapturedStderr();
  const auto out = testing::internal::GetCapturedStdout();
  configureLogging({{"log.format", "text"}, {"log.level", "info"}});
  EXPECT_EQ(out, "");
  EXPECT_EQ(fields(err).at("message"), "shown") << err;
}

}  // namespace
}  // namespace ksink
