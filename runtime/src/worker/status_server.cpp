#include "status_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <regex>
#include <stdexcept>
#include <type_traits>

#include "ksink/detail/json_string.h"

namespace ksink {
namespace {

std::string jsonString(std::string_view s) {
  std::string out;
  detail::appendJsonString(out, s, false);
  return out;
}

std::string jsonOptional(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "null";
}

// Prometheus label values escape backslash, quote and newline.
std::string labelValue(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// One counter group of `counters` (an empty one where the task is not of the group's kind).
template <typename Group>
const Group& groupOf(const TaskCounters& counters) {
  static const Group none;
  if constexpr (std::is_same_v<Group, CommitCounters>) return counters.commits;
  if constexpr (std::is_same_v<Group, ErrorCounters>) return counters.errors;
  if constexpr (std::is_same_v<Group, SinkCounters>) return counters.sink ? *counters.sink : none;
  if constexpr (std::is_same_v<Group, SourceCounters>)
    return counters.source ? *counters.source : none;
}

// A metric's value: one counter of a task's.
template <typename Group, typename Number>
std::function<double(const TaskStatus&)> field(Number Group::*counter) {
  return [counter](const TaskStatus& t) { return double(groupOf<Group>(t.counters).*counter); };
}

}  // namespace

std::string renderPrometheus(const std::vector<ConnectorStatus>& connectors) {
  // Names as the Prometheus JMX exporter turns Connect's MBeans into metrics
  // (kafka.connect:type=sink-task-metrics → kafka_connect_sink_task_metrics_<attribute>), so
  // existing Connect dashboards work.
  // Each metric is rendered for the tasks of connectors of its type ("" = every type).
  struct Metric {
    const char* type_of_connector;
    const char* group;
    const char* name;
    const char* type;
    const char* help;
    std::function<double(const TaskStatus&)> value;
  };
  const std::vector<Metric> metrics = {
      {"sink", "sink_task", "sink_record_read_total", "counter", "Records read from Kafka",
       field(&SinkCounters::sink_record_read_total)},
      {"sink", "sink_task", "sink_record_send_total", "counter",
       "Records handed to a successful put()", field(&SinkCounters::sink_record_send_total)},
      {"sink", "sink_task", "sink_record_active_count", "gauge",
       "Records read but not yet committed",
       [](const TaskStatus& t) { return double(t.activeCount()); }},
      {"sink", "sink_task", "sink_record_lag_max", "gauge",
       "Largest number of records not yet confirmed durable, over the task's partitions",
       [](const TaskStatus& t) { return double(t.lagMax()); }},
      {"sink", "sink_task", "partition_count", "gauge", "Partitions assigned to the task",
       [](const TaskStatus& t) { return double(t.partitions.size()); }},
      {"sink", "sink_task", "offset_commit_seq_no", "gauge",
       "Sequence number of the last commit attempt", field(&CommitCounters::offset_commit_seq_no)},
      {"sink", "sink_task", "offset_commit_completion_total", "counter",
       "Commits completed (skipped ones included)",
       field(&CommitCounters::offset_commit_completion_total)},
      {"sink", "sink_task", "offset_commit_skip_total", "counter",
       "Commit results ignored because a newer commit had started",
       field(&CommitCounters::offset_commit_skip_total)},
      {"sink", "sink_task", "offset_commit_failure_total", "counter",
       "Commits that failed or timed out", field(&CommitCounters::offset_commit_failure_total)},
      {"sink", "sink_task", "put_batch_avg_time_ms", "gauge",
       "Average duration of successful put()", field(&SinkCounters::put_batch_avg_time_ms)},
      {"sink", "sink_task", "put_batch_max_time_ms", "gauge", "Longest successful put()",
       field(&SinkCounters::put_batch_max_time_ms)},
      {"", "task_error", "total_record_errors", "counter", "Records that failed",
       field(&ErrorCounters::total_record_errors)},
      {"", "task_error", "total_records_skipped", "counter", "Bad records skipped",
       field(&ErrorCounters::total_records_skipped)},
      {"", "task_error", "total_errors_logged", "counter", "Errors logged",
       field(&ErrorCounters::total_errors_logged)},
      {"", "task_error", "total_retries", "counter",
       "Retries after a RetriableError: of a record's conversion, and of put()",
       field(&ErrorCounters::total_retries)},
      {"", "task_error", "deadletterqueue_produce_requests", "counter",
       "Records written to the DLQ", field(&ErrorCounters::deadletterqueue_produce_requests)},
      {"", "task_error", "deadletterqueue_produce_failures", "counter", "Failed DLQ writes",
       field(&ErrorCounters::deadletterqueue_produce_failures)},
      {"", "task_error", "last_error_timestamp", "gauge", "Time of the last error (ms since epoch)",
       field(&ErrorCounters::last_error_timestamp_ms)},
      {"source", "source_task", "source_record_poll_total", "counter",
       "Records the task's poll() returned", field(&SourceCounters::source_record_poll_total)},
      {"source", "source_task", "source_record_write_total", "counter",
       "Records Kafka acknowledged", field(&SourceCounters::source_record_write_total)},
      {"source", "source_task", "source_record_active_count", "gauge",
       "Records returned by poll() and not yet acknowledged by Kafka",
       field(&SourceCounters::source_record_active_count)},
      {"source", "source_task", "poll_batch_avg_time_ms", "gauge", "Average duration of poll()",
       field(&SourceCounters::poll_batch_avg_time_ms)},
      {"source", "source_task", "poll_batch_max_time_ms", "gauge", "Longest poll()",
       field(&SourceCounters::poll_batch_max_time_ms)},
      {"", "ksink", "task_stalled", "gauge",
       "1 while the task has work and makes no progress (task.stall.intervals)",
       [](const TaskStatus& t) { return t.stalled.empty() ? 0.0 : 1.0; }},
      {"source", "ksink", "source_partition_key_mismatches_total", "counter",
       "Partitions emitted without a stored offset while one equal up to key order or number "
       "types has one",
       field(&SourceCounters::source_partition_key_mismatches)},
      {"source", "ksink", "source_transaction_commit_total", "counter",
       "Transactions an exactly-once source task committed",
       field(&SourceCounters::transaction_commit_total)},
      {"source", "ksink", "source_transaction_abort_total", "counter",
       "Transactions an exactly-once source task aborted at its own request",
       field(&SourceCounters::transaction_abort_total)},
      {"source", "connector_task", "offset_commit_success_percentage", "gauge",
       "Share of offset commits that succeeded",
       [](const TaskStatus& t) {
         const auto& c = t.counters.commits;
         const double all =
             double(c.offset_commit_completion_total + c.offset_commit_failure_total);
         return all == 0 ? 0.0 : double(c.offset_commit_completion_total) / all;
       }},
      {"source", "connector_task", "offset_commit_failure_percentage", "gauge",
       "Share of offset commits that failed or timed out",
       [](const TaskStatus& t) {
         const auto& c = t.counters.commits;
         const double all =
             double(c.offset_commit_completion_total + c.offset_commit_failure_total);
         return all == 0 ? 0.0 : double(c.offset_commit_failure_total) / all;
       }},
  };
  std::string out;
  for (const auto& m : metrics) {
    // Connect's metrics under Connect's names; ksink's own (group "ksink") under ksink_.
    const auto full = std::string_view(m.group) == "ksink"
                          ? fmt::format("ksink_{}", m.name)
                          : fmt::format("kafka_connect_{}_metrics_{}", m.group, m.name);
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", full, m.help, full, m.type);
    for (const auto& c : connectors) {
      if (*m.type_of_connector && c.type != m.type_of_connector) continue;
      for (const auto& t : c.tasks)
        out += fmt::format("{}{{connector=\"{}\",task=\"{}\"}} {}\n", full, labelValue(c.name),
                           t.id, m.value(t));
    }
  }
  // Per partition: the ledger, so commit progress is visible where Connect shows nothing.
  for (const char* which : {"delivered", "confirmed", "committed"}) {
    const auto full = fmt::format("ksink_partition_{}_offset", which);
    out +=
        fmt::format("# HELP {} Next offset {} per partition\n# TYPE {} gauge\n", full, which, full);
    for (const auto& c : connectors)
      for (const auto& t : c.tasks)
        for (const auto& p : t.partitions) {
          const auto& v = std::string_view(which) == "delivered"   ? p.offsets.delivered
                          : std::string_view(which) == "confirmed" ? p.offsets.confirmed
                                                                   : p.offsets.committed;
          if (v)
            out += fmt::format(
                "{}{{connector=\"{}\",task=\"{}\",topic=\"{}\",partition=\"{}\"}} {}\n", full,
                labelValue(c.name), t.id, labelValue(p.tp.topic), p.tp.partition, *v);
        }
  }
  return out;
}

std::string renderStatusJson(const std::vector<ConnectorStatus>& connectors) {
  std::string out = "{\"connectors\":[";
  for (size_t ci = 0; ci < connectors.size(); ++ci) {
    const auto& c = connectors[ci];
    if (ci) out += ",";
    out += fmt::format("{{\"name\":{},\"type\":{},\"class\":{},\"tasks\":[", jsonString(c.name),
                       jsonString(c.type), jsonString(c.connector_class));
    for (size_t ti = 0; ti < c.tasks.size(); ++ti) {
      const auto& t = c.tasks[ti];
      if (ti) out += ",";
      out += fmt::format(
          "{{\"id\":{},\"state\":{},\"last_error\":{},\"stalled\":{},\"partitions\":[", t.id,
          jsonString(t.state), t.last_error.empty() ? "null" : jsonString(t.last_error),
          t.stalled.empty() ? "null" : jsonString(t.stalled));
      for (size_t pi = 0; pi < t.partitions.size(); ++pi) {
        const auto& p = t.partitions[pi];
        if (pi) out += ",";
        out += fmt::format(
            "{{\"topic\":{},\"partition\":{},\"delivered\":{},\"confirmed\":{},\"committed\":{},"
            "\"end\":{},\"lag\":{}}}",
            jsonString(p.tp.topic), p.tp.partition, jsonOptional(p.offsets.delivered),
            jsonOptional(p.offsets.confirmed), jsonOptional(p.offsets.committed),
            jsonOptional(p.end), jsonOptional(p.lag()));
      }
      out += "]}";
    }
    out += "]}";
  }
  return out + "]}";
}

struct StatusServer::Impl {
  std::unique_ptr<httplib::Server> server;
};

std::optional<StatusServer::Listener> StatusServer::parseListener(const std::string& listener) {
  static const std::regex form(R"((https?)://([^:/]+|\[[0-9a-fA-F:]+\]):(\d+)/?)");
  std::smatch m;
  if (!std::regex_match(listener, m, form)) return std::nullopt;
  std::string host = m[2];
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  return Listener{m[1] == "https", host, std::stoi(m[3])};
}

StatusServer::StatusServer(const std::string& listener, Snapshot snapshot, Routes routes,
                           const ListenerSecurity& security)
    : impl_(std::make_unique<Impl>()) {
  const auto parsed = parseListener(listener);
  if (!parsed)
    throw std::runtime_error(fmt::format(
        "listeners: '{}' is not of the form http://host:port or https://host:port", listener));
  if (parsed->https != security.tls.has_value())
    throw std::logic_error("listeners: the listener's security does not match its scheme");
  const std::string& host = parsed->host;
  const int port = parsed->port;
  impl_->server = security.makeServer();

  impl_->server->Get("/metrics", [snapshot](const httplib::Request&, httplib::Response& res) {
    res.set_content(renderPrometheus(snapshot()), "text/plain; version=0.0.4");
  });
  impl_->server->Get("/status", [snapshot](const httplib::Request&, httplib::Response& res) {
    res.set_content(renderStatusJson(snapshot()), "application/json");
  });
  // cpp-httplib sets SO_REUSEPORT, with which a second process binds the same port and the
  // kernel shares the connections between the two; SO_REUSEADDR alone still lets a restart bind
  // over connections in TIME_WAIT.
  impl_->server->set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  errno = 0;
  port_ = port == 0 ? impl_->server->bind_to_any_port(host)
                    : (impl_->server->bind_to_port(host, port) ? port : -1);
  if (port_ < 0) {
    const int error = errno;
    throw std::runtime_error(fmt::format(
        "listeners: cannot listen on {}: {}", listener,
        error == EADDRINUSE ? "the address is in use (by another ksink or Kafka Connect worker?): "
                              "set listeners to another address, or leave it empty for none"
                            : (error ? std::strerror(error) : "the host is not an address here")));
  }
  if (routes) routes(*impl_->server, fmt::format("{}:{}", host, port_));
  thread_ = std::thread([this] { impl_->server->listen_after_bind(); });
  spdlog::info("listening on {}://{}:{} (/status, /metrics{}{})", parsed->https ? "https" : "http",
               host, port_, routes ? ", Kafka Connect's REST API" : "",
               security.users.empty() ? "" : "; HTTP basic authentication");
}

bool StatusServer::serving() const {
  return impl_->server->is_running();
}

StatusServer::~StatusServer() {
  impl_->server->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace ksink
