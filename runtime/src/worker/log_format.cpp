#include "log_format.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>

#include "json_text.h"
#include "ksink/config_exception.h"
#include "log_context.h"

namespace ksink {
namespace {

// `%*` in a pattern: the thread's connector tag ("[my-sink|task-0] ").
class ContextFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const auto tag = LogContext::current().tag();
    dest.append(tag.data(), tag.data() + tag.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<ContextFlag>();
  }
};

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const auto& context = LogContext::current();
    auto out = std::back_inserter(dest);
    // UTC, ISO 8601 with milliseconds: what log shippers parse without a pattern.
    const auto since_epoch = msg.time.time_since_epoch();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch) % 1000;
    fmt::format_to(out, R"({{"time":"{:%Y-%m-%dT%H:%M:%S}.{:03}Z","level":"{}","logger":{},)",
                   fmt::gmtime(std::chrono::system_clock::to_time_t(msg.time)), ms.count(),
                   connectLevelName(msg.level),
                   jsonText(msg.logger_name.size()
                                ? std::string_view(msg.logger_name.data(), msg.logger_name.size())
                                : "root"));
    fmt::format_to(out, R"("message":{})",
                   jsonText(std::string_view(msg.payload.data(), msg.payload.size())));
    if (!context.connector.empty())
      fmt::format_to(out, R"(,"connector":{})", jsonText(context.connector));
    if (!context.connector.empty() && context.task)
      fmt::format_to(out, R"(,"task":{})", *context.task);
    fmt::format_to(out, "}}\n");
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

LogFormat parseFormat(const std::map<std::string, std::string>& worker) {
  const auto it = worker.find("log.format");
  if (it == worker.end() || it->second == "text") return LogFormat::kText;
  if (it->second == "json") return LogFormat::kJson;
  throw ConfigException(
      {{"log.format", fmt::format("unknown format '{}' (text or json)", it->second)}});
}

spdlog::level::level_enum parseLevel(const std::map<std::string, std::string>& worker) {
  const auto it = worker.find("log.level");
  if (it == worker.end()) return spdlog::get_level();
  const auto level = spdlog::level::from_str(it->second);
  if (level == spdlog::level::off && it->second != "off")
    throw ConfigException({{"log.level", fmt::format("unknown level '{}' (trace, debug, info, "
                                                     "warn, error, critical, off)",
                                                     it->second)}});
  return level;
}

constexpr std::array<std::pair<std::string_view, spdlog::level::level_enum>, 7> kLevels{{
    {"TRACE", spdlog::level::trace},
    {"DEBUG", spdlog::level::debug},
    {"INFO", spdlog::level::info},
    {"WARN", spdlog::level::warn},
    {"ERROR", spdlog::level::err},
    {"FATAL", spdlog::level::critical},
    {"OFF", spdlog::level::off},
}};

}  // namespace

std::string_view connectLevelName(spdlog::level::level_enum level) {
  for (const auto& [name, value] : kLevels)
    if (value == level) return name;
  return "OFF";
}

std::optional<spdlog::level::level_enum> connectLevel(std::string_view name) {
  for (const auto& [known, value] : kLevels)
    if (std::equal(name.begin(), name.end(), known.begin(), known.end(),
                   [](char a, char b) { return std::toupper(static_cast<unsigned char>(a)) == b; }))
      return value;
  return std::nullopt;
}

std::unique_ptr<spdlog::formatter> makeLogFormatter(LogFormat format) {
  if (format == LogFormat::kJson) return std::make_unique<JsonFormatter>();
  auto text = std::make_unique<spdlog::pattern_formatter>();
  text->add_flag<ContextFlag>('*').set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %*%v");
  return text;
}

void configureLogging(const std::map<std::string, std::string>& worker) {
  const auto format = parseFormat(worker);
  const auto level = parseLevel(worker);
  // Colours only on a terminal (the colour sink checks), never inside a JSON line.
  std::shared_ptr<spdlog::sinks::sink> sink;
  if (format == LogFormat::kJson)
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  else
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  sink->set_formatter(makeLogFormatter(format));
  auto logger = std::make_shared<spdlog::logger>("", std::move(sink));
  logger->set_level(level);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace ksink
