#include "rest_api.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>

#include "config_infos.h"
#include "connector_file.h"
#include "herder.h"
#include "json_text.h"
#include "ksink/config_exception.h"
#include "ksink/connector_registry.h"
#include "ksink/detail/config_parse.h"
#include "ksink/value.h"
#include "log_format.h"
#include "rest_entities.h"
#include "rest_exchange.h"
#include "rest_forward.h"
#include "rest_offsets.h"

namespace ksink {
namespace {

// The Connect API level served: what kcctl reads as major.minor to turn its commands on.
constexpr std::string_view kConnectVersion = "4.1.1";

void addServerRoutes(httplib::Server& server, Herder& herder, const RestIdentity& identity) {
  server.Get("/", guarded([identity](const httplib::Request&, httplib::Response& res) {
               const auto cluster = identity.cluster_id();
               reply(res, 200,
                     fmt::format(R"({{"version":{},"commit":{},"kafka_cluster_id":{}}})",
                                 jsonText(kConnectVersion),
                                 jsonText(fmt::format("ksink-{}", KSINK_VERSION)),
                                 cluster ? jsonText(*cluster) : "null"));
             }));
  server.Get(
      "/health", guarded([&herder, timeout = identity.health_timeout](const httplib::Request&,
                                                                      httplib::Response& res) {
        if (!herder.started())
          reply(res, 503, R"({"status":"starting","message":"Worker is still starting up."})");
        else if (!herder.responsive(timeout))
          reply(
              res, 500,
              R"({"status":"unhealthy","message":"Worker was unable to handle this request and may be unable to handle other requests."})");
        else
          reply(
              res, 200,
              R"({"status":"healthy","message":"Worker has completed startup and is ready to handle requests."})");
      }));
  server.Get("/connector-plugins", guarded([](const httplib::Request&, httplib::Response& res) {
               std::string out;
               for (const auto& [name, type] : ConnectorRegistry::global().classes())
                 out += fmt::format(R"({}{{"class":{},"type":{},"version":{}}})",
                                    out.empty() ? "" : ",", jsonText(name), jsonText(type),
                                    jsonText(KSINK_VERSION));
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
                   out += jsonText(name);
                   continue;
                 }
                 std::string parts;
                 if (status)
                   parts = R"("status":)" + stateJson(herder.state(name), identity.worker_id);
                 if (info)
                   parts +=
                       std::string(status ? "," : "") + R"("info":)" + infoJson(herder.info(name));
                 out += jsonText(name) + ":{" + parts + '}';
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
               reply(res, 200, stateJson(herder.state(req.matches[1]), identity.worker_id));
             }));
  server.Get(R"(/connectors/([^/]+)/tasks)",
             guarded([&herder](const httplib::Request& req, httplib::Response& res) {
               const auto info = herder.info(req.matches[1]);
               std::string out;
               for (int t = 0; t < info.tasks; ++t)
                 out += fmt::format(R"({}{{"id":{{"connector":{},"task":{}}},"config":{}}})",
                                    t ? "," : "", jsonText(info.name), t, jsonMap(info.config));
               reply(res, 200, '[' + out + ']');
             }));
  server.Get(R"(/connectors/([^/]+)/tasks/([^/]+)/status)",
             guarded([&herder, identity](const httplib::Request& req, httplib::Response& res) {
               const auto state = herder.state(req.matches[1]);
               const int id = taskId(req.matches[2]);
               for (const auto& task : state.tasks)
                 if (task.id == id)
                   return reply(res, 200, taskJson(state, task, identity.worker_id));
               throw NotFound(fmt::format("No status found for task {}-{}", state.name, id));
             }));
}

// KIP-558, under Connect's worker keys topic.tracking.enable and topic.tracking.allow.reset.
void addTopicRoutes(httplib::Server& server, Herder& herder, const RestIdentity& identity) {
  const auto setting = [&](const char* key) {
    const auto it = identity.worker_properties.find(key);
    return it == identity.worker_properties.end() ||
           detail::parseBoolean(it->second).value_or(true);
  };
  const bool tracking = setting("topic.tracking.enable");
  const bool resets = setting("topic.tracking.allow.reset");
  server.Get(R"(/connectors/([^/]+)/topics)",
             guarded([&herder, tracking](const httplib::Request& req, httplib::Response& res) {
               if (!tracking) throw Forbidden("Topic tracking is disabled.");
               const std::string name = req.matches[1];
               std::string topics;
               for (const auto& topic : herder.activeTopics(name))
                 topics += (topics.empty() ? "" : ",") + jsonText(topic);
               reply(res, 200, fmt::format(R"({{{}:{{"topics":[{}]}}}})", jsonText(name), topics));
             }));
  server.Put(
      R"(/connectors/([^/]+)/topics/reset)",
      bodyless([&herder, tracking, resets](const httplib::Request& req, httplib::Response& res) {
        if (!tracking) throw Forbidden("Topic tracking is disabled.");
        if (!resets) throw Forbidden("Topic tracking reset is disabled.");
        herder.resetActiveTopics(req.matches[1]);
        reply(res, 202, "");
      }));
}

void addControlRoutes(httplib::Server& server, Herder& herder, const RestIdentity& identity) {
  server.Post(R"(/connectors/([^/]+)/restart)",
              bodyless([&herder, identity](const httplib::Request& req, httplib::Response& res) {
                const bool include_tasks = flag(req, "includeTasks");
                const bool only_failed = flag(req, "onlyFailed");
                herder.restart(req.matches[1], include_tasks, only_failed);
                if (!include_tasks && !only_failed) return reply(res, 204, "");
                reply(res, 202, stateJson(herder.state(req.matches[1]), identity.worker_id));
              }));
  server.Post(R"(/connectors/([^/]+)/tasks/([^/]+)/restart)",
              bodyless([&herder, identity](const httplib::Request& req, httplib::Response& res) {
                const std::string name = req.matches[1];
                const int id = taskId(req.matches[2]);
                // A shared task that runs in another process: restarted there.
                const auto state = herder.state(name);
                const auto owner = state.elsewhere.find(id);
                if (owner != state.elsewhere.end() && !owner->second.empty() &&
                    owner->second != identity.worker_id && !req.has_header(kForwardedHeader))
                  return forwardTo(owner->second,
                                   listenerOf(identity.worker_properties).starts_with("https:"),
                                   req, res);
                herder.restartTask(name, id);
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

void addWriteRoutes(httplib::Server& server, Herder& herder) {
  server.Post("/connectors",
              guarded([&herder](const httplib::Request& req, httplib::Response& res) {
                const auto body = Value::object(bodyObject(req));
                const auto* name = body.find("name");
                if (!name || name->kind() != Value::Kind::kString || name->asString().empty())
                  throw BadRequest("Connector name must be given as \"name\"");
                const auto* config = body.find("config");
                if (!config || config->kind() != Value::Kind::kObject)
                  throw BadRequest("Connector configuration must be given as \"config\"");
                const auto info = herder.create(name->asString(), plainConfig(config->asObject()),
                                                initialState(body.find("initial_state")));
                res.set_header("Location", "/connectors/" + info.name);
                reply(res, 201, infoJson(info));
              }));
  server.Put(R"(/connectors/([^/]+)/config)",
             guarded([&herder](const httplib::Request& req, httplib::Response& res) {
               const std::string name = req.matches[1];
               const bool created = herder.putConfig(name, plainConfig(bodyObject(req)));
               reply(res, created ? 201 : 200, infoJson(herder.info(name)));
             }));
  server.Patch(R"(/connectors/([^/]+)/config)",
               guarded([&herder](const httplib::Request& req, httplib::Response& res) {
                 reply(
                     res, 200,
                     infoJson(herder.patchConfig(req.matches[1], configOf(bodyObject(req), true))));
               }));
  server.Delete(R"(/connectors/([^/]+))",
                bodyless([&herder](const httplib::Request& req, httplib::Response& res) {
                  herder.remove(req.matches[1]);
                  reply(res, 204, "");
                }));
}

void addOffsetRoutes(httplib::Server& server, Herder& herder) {
  server.Get(R"(/connectors/([^/]+)/offsets)",
             guarded([&herder](const httplib::Request& req, httplib::Response& res) {
               reply(res, 200, offsetsJson(herder.file(req.matches[1])));
             }));
  server.Patch(R"(/connectors/([^/]+)/offsets)",
               guarded([&herder](const httplib::Request& req, httplib::Response& res) {
                 reply(res, 200, herder.whileStopped(req.matches[1], [&](const auto& connector) {
                   return alterOffsets(connector, req.body);
                 }));
               }));
  server.Delete(R"(/connectors/([^/]+)/offsets)",
                bodyless([&herder](const httplib::Request& req, httplib::Response& res) {
                  reply(res, 200, herder.whileStopped(req.matches[1], [](const auto& connector) {
                    return alterOffsets(connector, std::nullopt);
                  }));
                }));
}

void addPluginRoutes(httplib::Server& server, const RestIdentity& identity) {
  server.Get(R"(/connector-plugins/([^/]+)/config)",
             guarded([](const httplib::Request& req, httplib::Response& res) {
               const auto keys = pluginConfigJson(req.matches[1].str());
               if (!keys) throw NotFound(fmt::format("Unknown plugin {}", req.matches[1].str()));
               reply(res, 200, *keys);
             }));
  server.Put(
      R"(/connector-plugins/([^/]+)/config/validate)",
      guarded([identity](const httplib::Request& req, httplib::Response& res) {
        auto config = plainConfig(bodyObject(req));
        const std::string plugin = req.matches[1];
        // Connect's check: the class the body names ends with the plugin of the path.
        auto [it, added] = config.try_emplace("connector.class", plugin);
        if (!added && !it->second.ends_with(plugin) && !plugin.ends_with(it->second))
          throw BadRequest(fmt::format("Included connector type {} does not match request type {}",
                                       it->second, plugin));
        reply(res, 200, configInfosJson(identity.worker_properties, config));
      }));
}

// ksink logs through one logger, spdlog's default: Connect's root logger (log_format.h).
std::string rootLevel() {
  return fmt::format(R"({{"level":"{}"}})", connectLevelName(spdlog::get_level()));
}

void requireRoot(const std::string& logger) {
  if (logger != "root")
    throw NotFound(fmt::format("Logger {} not found: ksink has one logger, root", logger));
}

void addAdminRoutes(httplib::Server& server) {
  server.Get("/admin/loggers", guarded([](const httplib::Request&, httplib::Response& res) {
               reply(res, 200, R"({"root":)" + rootLevel() + '}');
             }));
  server.Get(R"(/admin/loggers/([^/]+))",
             guarded([](const httplib::Request& req, httplib::Response& res) {
               requireRoot(req.matches[1]);
               reply(res, 200, rootLevel());
             }));
  server.Put(
      R"(/admin/loggers/([^/]+))", guarded([](const httplib::Request& req, httplib::Response& res) {
        requireRoot(req.matches[1]);
        const auto body = Value::object(bodyObject(req));
        const auto* level = body.find("level");
        const auto text =
            level && level->kind() == Value::Kind::kString ? level->asString() : std::string();
        const auto value = connectLevel(text);
        if (!value) throw BadRequest(fmt::format("Invalid log level '{}'", text));
        spdlog::set_level(*value);
        spdlog::info("log level set to {} over the REST API", connectLevelName(*value));
        reply(res, 200, R"(["root"])");
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
  addTopicRoutes(server, herder, identity);
  addWriteRoutes(server, herder);
  addOffsetRoutes(server, herder);
  addPluginRoutes(server, identity);
  addAdminRoutes(server);
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    error(res, res.status, fmt::format("HTTP {} {} {}", res.status, req.method, req.path));
  });
}

}  // namespace ksink
