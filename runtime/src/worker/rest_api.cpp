#include "rest_api.h"

#include <fmt/format.h>
#include <httplib.h>

#include <mutex>

#include "herder.h"
#include "ksink/connector_registry.h"
#include "ksink/detail/json_string.h"

namespace ksink {
namespace {

// The Connect API level served: what kcctl reads as major.minor to turn its commands on.
constexpr std::string_view kConnectVersion = "4.1.1";

std::string json(std::string_view text) {
  std::string out;
  detail::appendJsonString(out, text);
  return out;
}

std::string jsonMap(const std::map<std::string, std::string>& values) {
  std::string out = "{";
  for (const auto& [key, value] : values) {
    if (out.size() > 1) out += ',';
    out += json(key) + ':' + json(value);
  }
  return out + '}';
}

// Connect's ConnectorStateInfo.TaskState.
std::string taskJson(const TaskStatus& task, const RestIdentity& identity) {
  auto out = fmt::format(R"({{"id":{},"state":{},"worker_id":{},"version":{})", task.id,
                         json(task.state), json(identity.worker_id), json(KSINK_VERSION));
  if (!task.last_error.empty() && task.state == "FAILED")
    out += R"(,"trace":)" + json(task.last_error);
  return out + '}';
}

// Connect's ConnectorStateInfo.
std::string stateJson(const Herder::State& state, const RestIdentity& identity) {
  auto connector = fmt::format(R"({{"state":{},"worker_id":{},"version":{})", json(state.state),
                               json(identity.worker_id), json(KSINK_VERSION));
  if (!state.trace.empty()) connector += R"(,"trace":)" + json(state.trace);
  std::string tasks;
  for (const auto& task : state.tasks)
    tasks += (tasks.empty() ? "" : ",") + taskJson(task, identity);
  return fmt::format(R"({{"name":{},"connector":{}}},"tasks":[{}],"type":{}}})", json(state.name),
                     connector, tasks, json(state.type));
}

// Connect's ConnectorInfo.
std::string infoJson(const Herder::Info& info) {
  std::string tasks;
  for (int t = 0; t < info.tasks; ++t)
    tasks += fmt::format(R"({}{{"connector":{},"task":{}}})", t ? "," : "", json(info.name), t);
  return fmt::format(R"({{"name":{},"config":{},"tasks":[{}],"type":{}}})", json(info.name),
                     jsonMap(info.config), tasks, json(info.type));
}

void reply(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json");
}

// Connect's ErrorMessage.
void error(httplib::Response& res, int status, std::string_view message) {
  reply(res, status, fmt::format(R"({{"error_code":{},"message":{}}})", status, json(message)));
}

// A handler answering Connect's errors for what the herder throws.
template <typename Handle>
httplib::Server::Handler guarded(Handle handle) {
  return [handle](const httplib::Request& req, httplib::Response& res) {
    try {
      handle(req, res);
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

void addServerRoutes(httplib::Server& server, Herder& herder, const RestIdentity& identity) {
  server.Get("/", guarded([identity](const httplib::Request&, httplib::Response& res) {
               const auto cluster = identity.cluster_id();
               reply(res, 200,
                     fmt::format(
                         R"({{"version":{},"commit":{},"kafka_cluster_id":{},"ksink_version":{}}})",
                         json(kConnectVersion), json(KSINK_VERSION),
                         cluster ? json(*cluster) : "null", json(KSINK_VERSION)));
             }));
  server.Get(
      "/health", guarded([&herder](const httplib::Request&, httplib::Response& res) {
        if (herder.started())
          reply(
              res, 200,
              R"({"status":"healthy","message":"Worker has completed startup and is ready to handle requests."})");
        else
          reply(res, 503, R"({"status":"starting","message":"Worker is still starting up."})");
      }));
  server.Get("/connector-plugins", guarded([](const httplib::Request&, httplib::Response& res) {
               std::string out;
               for (const auto& [name, type] : ConnectorRegistry::global().classes())
                 out += fmt::format(R"({}{{"class":{},"type":{},"version":{}}})",
                                    out.empty() ? "" : ",", json(name), json(type),
                                    json(KSINK_VERSION));
               reply(res, 200, '[' + out + ']');
             }));
}

void addReadRoutes(httplib::Server& server, Herder& herder, const RestIdentity& identity) {
  server.Get("/connectors",
             guarded([&herder, identity](const httplib::Request& req, httplib::Response& res) {
               bool status = false, info = false;
               for (size_t i = 0; i < req.get_param_value_count("expand"); ++i) {
                 status = status || req.get_param_value("expand", i) == "status";
                 info = info || req.get_param_value("expand", i) == "info";
               }
               std::string out;
               for (const auto& name : herder.names()) {
                 if (!out.empty()) out += ',';
                 if (!status && !info) {
                   out += json(name);
                   continue;
                 }
                 std::string parts;
                 if (status) parts = R"("status":)" + stateJson(herder.state(name), identity);
                 if (info)
                   parts +=
                       std::string(status ? "," : "") + R"("info":)" + infoJson(herder.info(name));
                 out += json(name) + ":{" + parts + '}';
               }
               reply(res, 200, (status || info) ? '{' + out + '}' : '[' + out + ']');
             }));
  server.Get(R"(/connectors/([^/]+))",
             guarded([&herder](const httplib::Request& req, httplib::Response& res) {
               reply(res, 200, infoJson(herder.info(req.matches[1])));
             }));
  server.Get(R"(/connectors/([^/]+)/config)",
             guarded([&herder](const httplib::Request& req, httplib::Response& res) {
               reply(res, 200, jsonMap(herder.info(req.matches[1]).config));
             }));
  server.Get(R"(/connectors/([^/]+)/status)",
             guarded([&herder, identity](const httplib::Request& req, httplib::Response& res) {
               reply(res, 200, stateJson(herder.state(req.matches[1]), identity));
             }));
  server.Get(R"(/connectors/([^/]+)/tasks)",
             guarded([&herder](const httplib::Request& req, httplib::Response& res) {
               const auto info = herder.info(req.matches[1]);
               std::string out;
               for (int t = 0; t < info.tasks; ++t)
                 out += fmt::format(R"({}{{"id":{{"connector":{},"task":{}}},"config":{}}})",
                                    t ? "," : "", json(info.name), t, jsonMap(info.config));
               reply(res, 200, '[' + out + ']');
             }));
  server.Get(R"(/connectors/([^/]+)/tasks/([^/]+)/status)",
             guarded([&herder, identity](const httplib::Request& req, httplib::Response& res) {
               const auto state = herder.state(req.matches[1]);
               const int id = taskId(req.matches[2]);
               for (const auto& task : state.tasks)
                 if (task.id == id) return reply(res, 200, taskJson(task, identity));
               throw NotFound(fmt::format("No status found for task {}-{}", state.name, id));
             }));
}

void addControlRoutes(httplib::Server& server, Herder& herder, const RestIdentity& identity) {
  server.Post(R"(/connectors/([^/]+)/restart)",
              bodyless([&herder, identity](const httplib::Request& req, httplib::Response& res) {
                const bool include_tasks = flag(req, "includeTasks");
                const bool only_failed = flag(req, "onlyFailed");
                herder.restart(req.matches[1], include_tasks, only_failed);
                if (!include_tasks && !only_failed) return reply(res, 204, "");
                reply(res, 202, stateJson(herder.state(req.matches[1]), identity));
              }));
  server.Post(R"(/connectors/([^/]+)/tasks/([^/]+)/restart)",
              bodyless([&herder](const httplib::Request& req, httplib::Response& res) {
                herder.restartTask(req.matches[1], taskId(req.matches[2]));
                reply(res, 204, "");
              }));
  server.Put(R"(/connectors/([^/]+)/pause)",
             bodyless([&herder](const httplib::Request& req, httplib::Response& res) {
               herder.pause(req.matches[1]);
               reply(res, 202, "");
             }));
  server.Put(R"(/connectors/([^/]+)/resume)",
             bodyless([&herder](const httplib::Request& req, httplib::Response& res) {
               herder.resume(req.matches[1]);
               reply(res, 202, "");
             }));
  server.Put(R"(/connectors/([^/]+)/stop)",
             bodyless([&herder](const httplib::Request& req, httplib::Response& res) {
               herder.stop(req.matches[1]);
               reply(res, 204, "");
             }));
}

}  // namespace

void addConnectRoutes(httplib::Server& server, Herder& herder, RestIdentity identity) {
  // The cluster's id does not change: asked once, when first shown.
  auto once = std::make_shared<std::once_flag>();
  auto cached = std::make_shared<std::optional<std::string>>();
  identity.cluster_id = [once, cached, ask = identity.cluster_id] {
    std::call_once(*once, [&] { *cached = ask(); });
    return *cached;
  };
  addServerRoutes(server, herder, identity);
  addReadRoutes(server, herder, identity);
  addControlRoutes(server, herder, identity);
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    error(res, res.status, fmt::format("HTTP {} {} {}", res.status, req.method, req.path));
  });
}

}  // namespace ksink
