// The REST API's requests and answers as Kafka Connect makes them: a body sent with its status,
// Connect's {"error_code","message"} for what a handler throws (400 for a bad request or a refused
// configuration, 404 for an unknown connector or task, 409 for a state that refuses the request,
// 500 for the rest), and the JSON a request body holds.
#pragma once

#include <httplib.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "herder.h"
#include "ksink/config_exception.h"
#include "ksink/value.h"

namespace ksink {

// A request Connect answers 400 to.
struct BadRequest : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A request the worker's settings refuse (Connect: 403).
struct Forbidden : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void reply(httplib::Response& res, int status, const std::string& body);
// Connect's ErrorMessage.
void error(httplib::Response& res, int status, std::string_view message);
// Connect's words for a configuration refused.
std::string invalidConfiguration(const ConfigException& e);

// A handler answering Connect's errors for what the herder throws.
template <typename Handle>
httplib::Server::Handler guarded(Handle handle) {
  return [handle](const httplib::Request& req, httplib::Response& res) {
    try {
      handle(req, res);
    } catch (const BadRequest& e) {
      error(res, 400, e.what());
    } catch (const Forbidden& e) {
      error(res, 403, e.what());
    } catch (const ConfigException& e) {
      error(res, 400, invalidConfiguration(e));
    } catch (const NotFound& e) {
      error(res, 404, e.what());
    } catch (const ConnectorConflict& e) {
      error(res, 409, e.what());
    } catch (const std::exception& e) {
      error(res, 500, e.what());
    }
  };
}

// The same for a request whose body is not read (pause, restart…): such a request may come without
// Content-Length (curl -X PUT), which cpp-httplib refuses for a handler that reads the body.
template <typename Handle>
httplib::Server::HandlerWithContentReader bodyless(Handle handle) {
  return [handler = guarded(handle)](const httplib::Request& req, httplib::Response& res,
                                     const httplib::ContentReader&) { handler(req, res); };
}

// The request's body, a JSON object (the REST API takes JSON only); BadRequest otherwise.
Value::Object bodyObject(const httplib::Request& req);
// A configuration object of a body: keys to text (Connect's configurations are strings; numbers
// and booleans are taken as their text), null refused unless `nulls` (PATCH: nullopt).
std::map<std::string, std::optional<std::string>> configOf(const Value::Object& object, bool nulls);
Herder::Config plainConfig(const Value::Object& object);
// POST /connectors' initial_state: RUNNING (also when absent), PAUSED or STOPPED.
Herder::Target initialState(const Value* state);
// Whether query parameter `name` is "true".
bool flag(const httplib::Request& req, const char* name);
// A task number of a path; NotFound for anything else.
int taskId(const std::string& text);

}  // namespace ksink
