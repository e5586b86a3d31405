// Kafka Connect's REST entities as JSON, as Connect 4.1 writes them: ConnectorInfo,
// ConnectorStateInfo and its TaskState.
#pragma once

#include <string>
#include <string_view>

#include "herder.h"
#include "ksink/connector_status.h"

namespace ksink {

// `worker_id`: host:port of the listener, as each state names its worker (a task of `state` run
// by another process names that one's).
std::string taskJson(const Herder::State& state, const TaskStatus& task,
                     std::string_view worker_id);
std::string stateJson(const Herder::State& state, std::string_view worker_id);
std::string infoJson(const Herder::Info& info);

}  // namespace ksink
