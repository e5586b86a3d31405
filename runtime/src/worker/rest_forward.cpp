#include "rest_forward.h"

#include <fmt/format.h>

#include "herder.h"

namespace ksink {

void forwardTo(const std::string& worker_id, bool https, const httplib::Request& req,
               httplib::Response& res) {
  if (https)
    throw ConnectorConflict(fmt::format(
        "this runs in the process {}; ksink forwards requests over http only: send it there",
        worker_id));
  httplib::Client owner("http://" + worker_id);
  owner.set_connection_timeout(std::chrono::seconds(5));
  owner.set_read_timeout(std::chrono::seconds(60));
  httplib::Headers headers{{kForwardedHeader, "1"}};
  if (req.has_header("Authorization"))
    headers.emplace("Authorization", req.get_header_value("Authorization"));
  std::string target = req.path;
  if (!req.params.empty()) target += '?' + httplib::detail::params_to_query_str(req.params);
  httplib::Request forwarded;
  forwarded.method = req.method;
  forwarded.path = target;
  forwarded.headers = headers;
  forwarded.body = req.body;
  if (req.has_header("Content-Type"))
    forwarded.set_header("Content-Type", req.get_header_value("Content-Type"));
  const auto answer = owner.send(forwarded);
  if (!answer)
    throw ConnectorConflict(fmt::format("this runs in the process {}, which did not answer: {}",
                                        worker_id, httplib::to_string(answer.error())));
  res.status = answer->status;
  res.set_content(answer->body, answer->get_header_value("Content-Type").empty()
                                    ? "application/json"
                                    : answer->get_header_value("Content-Type"));
}

}  // namespace ksink
