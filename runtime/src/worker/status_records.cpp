#include "status_records.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

#include "json_text.h"

namespace ksink {
namespace {

constexpr std::string_view kConnector = "status-connector-";
constexpr std::string_view kTask = "status-task-";

std::string text(const Value::Object& object, std::string_view name) {
  const Value* v = jsonMember(object, name);
  return v && v->kind() == Value::Kind::kString ? v->asString() : std::string();
}

}  // namespace

std::optional<StatusRecord> StatusRecord::read(std::string_view key,
                                               const std::optional<std::string>& value) {
  StatusRecord out;
  if (key.starts_with(kConnector)) {
    out.name = key.substr(kConnector.size());
  } else if (key.starts_with(kTask)) {
    // The connector's name may hold dashes: the task's number follows the last.
    const auto rest = key.substr(kTask.size());
    const auto dash = rest.rfind('-');
    int task = -1;
    const char* end = rest.data() + rest.size();
    const auto parsed = dash == std::string_view::npos
                            ? std::from_chars_result{end, std::errc::invalid_argument}
                            : std::from_chars(rest.data() + dash + 1, end, task);
    if (parsed.ec != std::errc() || parsed.ptr != end || task < 0)
      throw std::invalid_argument(fmt::format("a task status key without a task number: {}", key));
    out.name = rest.substr(0, dash);
    out.task = task;
  } else {
    return std::nullopt;
  }
  if (!value) return out;
  const auto object = parseJsonObject(*value);
  out.state = text(object, "state");
  if (out.state->empty()) throw std::invalid_argument("a status without \"state\"");
  out.trace = text(object, "trace");
  out.worker_id = text(object, "worker_id");
  if (const Value* g = jsonMember(object, "generation"); g && g->kind() == Value::Kind::kInt)
    out.generation = static_cast<int>(g->asInt());
  return out;
}

std::string StatusRecord::key() const {
  if (task) return fmt::format("{}{}-{}", kTask, name, *task);
  return fmt::format("{}{}", kConnector, name);
}

std::optional<std::string> StatusRecord::value() const {
  if (!state) return std::nullopt;
  return fmt::format(R"({{"state":{},"trace":{},"worker_id":{},"generation":{},"version":{}}})",
                     jsonText(*state), trace.empty() ? "null" : jsonText(trace),
                     jsonText(worker_id), generation, jsonText(KSINK_VERSION));
}

}  // namespace ksink
