// The routes of Kafka Connect's REST API that `ksink run` serves over its Herder, with Connect's
// codes and bodies (Connect 4.1's shapes), beside ksink's own /status and /metrics:
//   GET  /                                   {"version","commit","kafka_cluster_id"}
//   GET  /health                             KIP-1017: 200 healthy, 503 starting
//   GET  /connectors[?expand=status&expand=info]
//   GET  /connectors/{c}, /config, /status, /tasks, /tasks/{t}/status
//   POST /connectors/{c}/restart[?includeTasks=&onlyFailed=]   204, or 202 + status
//   POST /connectors/{c}/tasks/{t}/restart   204
//   PUT  /connectors/{c}/pause, /resume      202
//   PUT  /connectors/{c}/stop                204
//   GET  /connectors/{c}/topics, PUT /connectors/{c}/topics/reset (202)   KIP-558
//   POST /connectors, PUT|PATCH /connectors/{c}/config, DELETE /connectors/{c}
//   GET  /connector-plugins[?connectorsOnly=false], /connector-plugins/{p}/config
//   PUT  /connector-plugins/{p}/config/validate           Connect's ConfigInfos
//   GET  /admin/loggers[/{l}], PUT /admin/loggers/{l}     ksink's one logger: root
// Errors are Connect's {"error_code","message"}: 404 for an unknown connector, task or route, 409
// for a request the connector's state refuses, 500 for what failed.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace httplib {
class Server;
}

namespace ksink {

class Herder;

struct RestIdentity {
  std::string worker_id;  // host:port of the listener, as each status names its worker
  // The Kafka cluster's id (GET /), asked once when first needed.
  std::function<std::optional<std::string>()> cluster_id;
  // The worker file's keys, under a configuration validated (PUT …/config/validate).
  std::map<std::string, std::string> worker_properties;
  // GET /health answers 500 when the herder is held longer than this (Connect's 10 s).
  std::chrono::milliseconds health_timeout{10000};
};

void addConnectRoutes(httplib::Server& server, Herder& herder, RestIdentity identity);

}  // namespace ksink
