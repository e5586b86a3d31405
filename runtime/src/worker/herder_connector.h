// Herder::Connector: one connector of a Herder — what it was read from, and how it runs: its
// target state, its Worker and the thread running it, what made it FAILED. Private to the
// herder's files.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "herder.h"

namespace ksink {

// Topics a connector used, each with when it last did (Worker::activeTopics()).
using UsedTopics = std::map<std::string, std::chrono::steady_clock::time_point, std::less<>>;

struct Herder::Connector {
  explicit Connector(ConnectorFile connector_file)
      : file(std::move(connector_file)),
        name(file.config.getString("name")),
        type(file.sink ? "sink" : "source") {}

  const ConnectorFile file;
  const std::string name;
  const std::string type;
  std::mutex operation;  // one operation (pause, resume, stop, restart) at a time

  // Under Herder::mutex_:
  Target target = Target::kRunning;
  std::shared_ptr<Worker> worker;  // null while stopped
  std::thread thread;              // runs worker->run(); joined by halt()
  std::string failure;             // what run() threw: the connector is FAILED
  // Replaced by a new configuration, or deleted: an operation that found it before then (a
  // resume, say) must not start it again.
  bool retired = false;
  // The topics its former Workers used (a Worker's own are asked of it), and when they were last
  // reset: what was used before is not shown.
  UsedTopics topics;
  std::chrono::steady_clock::time_point topics_reset{};
};

}  // namespace ksink
