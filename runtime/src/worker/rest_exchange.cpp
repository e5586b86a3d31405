#include "rest_exchange.h"

#include <fmt/format.h>

#include "json_text.h"

namespace ksink {
namespace {

// A configuration value as text (Connect's configurations are strings; numbers and booleans are
// taken as their text); nullopt for null.
std::optional<std::string> configText(const std::string& key, const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kNull:
      return std::nullopt;
    case Value::Kind::kString:
      return value.asString();
    case Value::Kind::kBoolean:
      return value.asBoolean() ? "true" : "false";
    case Value::Kind::kInt:
      return std::to_string(value.asInt());
    case Value::Kind::kDouble:
      return value.toJson();
    default:
      throw BadRequest(fmt::format("The value of {} must be a string", key));
  }
}

}  // namespace

void reply(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

void error(httplib::Response& res, int status, std::string_view message) {
  reply(res, status, fmt::format(R"({{"error_code":{},"message":{}}})", status, jsonText(message)));
}

std::string invalidConfiguration(const ConfigException& e) {
  auto out =
      fmt::format("Connector configuration is invalid and contains the following {} error(s):",
                  e.problems().size());
  for (const auto& p : e.problems()) out += fmt::format("\n{}: {}", p.key, p.reason);
  return out;
}

Value::Object bodyObject(const httplib::Request& req) {
  try {
    return parseJsonObject(req.body);
  } catch (const std::invalid_argument& e) {
    throw BadRequest(fmt::format("Request body is {}", e.what()));
  }
}

std::map<std::string, std::optional<std::string>> configOf(const Value::Object& object,
                                                           bool nulls) {
  std::map<std::string, std::optional<std::string>> out;
  for (const auto& [key, value] : object) {
    auto text = configText(key, value);
    if (!text && !nulls) throw BadRequest(fmt::format("The value of {} must not be null", key));
    out[key] = std::move(text);
  }
  return out;
}

Herder::Config plainConfig(const Value::Object& object) {
  Herder::Config out;
  for (auto& [key, value] : configOf(object, false)) out[key] = *value;
  return out;
}

Herder::Target initialState(const Value* state) {
  if (!state || state->isNull()) return Herder::Target::kRunning;
  const auto text = state->kind() == Value::Kind::kString ? state->asString() : "";
  if (text == "RUNNING") return Herder::Target::kRunning;
  if (text == "PAUSED") return Herder::Target::kPaused;
  if (text == "STOPPED") return Herder::Target::kStopped;
  throw BadRequest(fmt::format("initial_state must be one of RUNNING, PAUSED, STOPPED, not {}",
                               state->toJson()));
}

bool flag(const httplib::Request& req, const char* name) {
  return req.has_param(name) && req.get_param_value(name) == "true";
}

int taskId(const std::string& text) {
  try {
    size_t end = 0;
    const int id = std::stoi(text, &end);
    if (end == text.size() && id >= 0) return id;
  } catch (const std::exception&) {
  }
  throw NotFound(fmt::format("Unknown task {}", text));
}

}  // namespace ksink
