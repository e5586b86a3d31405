// A request about a task that runs in another process of the cluster, forwarded to that process as
// Kafka Connect forwards it to the worker running the task (the status topic names it by its
// worker_id, host:port). The owner's answer is the answer.
#pragma once

#include <httplib.h>

#include <string>

namespace ksink {

// The header that marks a forwarded request: its receiver answers it itself, never forwards it on.
inline constexpr const char* kForwardedHeader = "X-Ksink-Forwarded";

// Sends `req` (its method, path, query, body and Authorization header) to the process at
// `worker_id` and answers `res` with its reply. Throws ConnectorConflict (409, which Connect's
// clients retry) when the listener is https (ksink forwards over http only: ask the owner) or the
// owner does not answer.
void forwardTo(const std::string& worker_id, bool https, const httplib::Request& req,
               httplib::Response& res);

}  // namespace ksink
