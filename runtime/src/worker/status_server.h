// StatusServer: the HTTP listener of `listeners` (default http://127.0.0.1:8083): /metrics in
// Prometheus text format, /status as JSON, and the routes its owner adds (`ksink run`: Kafka
// Connect's REST API, rest_api.h). Runs its own thread; reads snapshots through the callback,
// which must be thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ksink/connector_status.h"
#include "listener_security.h"

namespace httplib {
class Server;
}

namespace ksink {

std::string renderPrometheus(const std::vector<ConnectorStatus>& connectors);
std::string renderStatusJson(const std::vector<ConnectorStatus>& connectors);

class StatusServer {
 public:
  using Snapshot = std::function<std::vector<ConnectorStatus>()>;
  // Adds routes to the server, before it serves; `worker_id` is host:port as bound.
  using Routes = std::function<void(httplib::Server& server, const std::string& worker_id)>;

  struct Listener {
    bool https = false;
    std::string host;
    int port = 0;
  };
  // http://host:port or https://host:port; nullopt for anything else.
  static std::optional<Listener> parseListener(const std::string& listener);

  // `listener` is http://host:port or https://host:port (port 0 picks a free one), `security` its
  // TLS (required for https, refused otherwise) and users. Throws std::runtime_error when the
  // listener is malformed, a store cannot be read or the address cannot be bound — also when
  // another process listens on it (no SO_REUSEPORT).
  StatusServer(const std::string& listener, Snapshot snapshot, Routes routes = {},
               const ListenerSecurity& security = {});
  ~StatusServer();
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  int port() const { return port_; }
  // The listener's thread accepts and answers requests (from a little after construction).
  bool serving() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace ksink
