// The process's log lines: where they go and how they read. Every line goes to stderr (under
// systemd, journald keeps it), names the connector and task its thread works for
// (log_context.h), and reads in one of two formats, the worker's `log.format`:
//   text  `[2024-05-01 12:00:00.123] [info] [my-sink|task-0] message` — Connect's tag, after
//         spdlog's usual time and level (the tag is absent on a thread of no connector);
//   json  one object a line: {"time","level","logger","message"} plus "connector" and "task"
//         (a number; absent on the connector's own thread) when the thread works for one.
// ksink logs through one logger, spdlog's default (Connect's root: /admin/loggers changes its
// level at run time).
//
// Thread-safety: configureLogging() replaces spdlog's default logger; call it before the threads
// that log start (the CLI does, when it reads the worker file).
#pragma once

#include <spdlog/formatter.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ksink {

enum class LogFormat { kText, kJson };

// Applies the worker's log.level and log.format (absent: info, text). Throws ConfigException
// naming the key when a value is not one of those listed in its definition.
void configureLogging(const std::map<std::string, std::string>& worker);

// Connect's (log4j's) name of a level, as JSON lines and /admin/loggers show it: TRACE, DEBUG,
// INFO, WARN, ERROR, FATAL (spdlog's critical), OFF.
std::string_view connectLevelName(spdlog::level::level_enum level);
// The level of such a name, in any case; nullopt when it names none.
std::optional<spdlog::level::level_enum> connectLevel(std::string_view name);

// The formatter of `format`; for tests that render a line.
std::unique_ptr<spdlog::formatter> makeLogFormatter(LogFormat format);

}  // namespace ksink
