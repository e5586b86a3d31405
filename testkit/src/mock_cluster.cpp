#include "ksink/testkit/mock_cluster.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "rdkafka_handles.h"

namespace ksink::testkit {
namespace {

// A client a worker abandoned at a shutdown deadline finishes within this once the broker answers.
constexpr std::chrono::milliseconds kLingeringClientsTimeout{30000};

rd_kafka_t* newClient(rd_kafka_type_t type, const std::map<std::string, std::string>& props) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (const auto& [key, value] : props) {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(fmt::format("client property {}: {}", key, err));
    }
  }
  if (type == RD_KAFKA_PRODUCER) {
    // Each message's opaque points at the slot that receives its offset (or -1 on failure).
    rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void*) {
      *static_cast<int64_t*>(m->_private) = m->err ? -1 : m->offset;
    });
  }
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) {
    rd_kafka_conf_destroy(conf);
    throw std::runtime_error(fmt::format("cannot create a test client: {}", err));
  }
  return rk;
}

// A consumer that never subscribes: it only talks to the group coordinator for offsets.
struct OffsetClient {
  explicit OffsetClient(const std::string& bootstrap, const std::string& group)
      : rk(newClient(RD_KAFKA_CONSUMER, {{"bootstrap.servers", bootstrap},
                                         {"group.id", group},
                                         {"enable.auto.commit", "false"}})) {}
  ~OffsetClient() { rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE); }
  rd_kafka_t* rk;
};

void check(rd_kafka_resp_err_t err, const char* what) {
  if (err) throw std::runtime_error(fmt::format("{}: {}", what, rd_kafka_err2str(err)));
}

// librdkafka's thread count once the threads just created have started: each counts itself when
// it runs, which rd_kafka_new() and rd_kafka_mock_cluster_new() do not wait for.
int settledThreadCount() {
  int count = rd_kafka_thread_cnt();
  auto stable_since = std::chrono::steady_clock::now();
  const auto give_up = stable_since + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() - stable_since < std::chrono::milliseconds(50) &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (const int now = rd_kafka_thread_cnt(); now != count) {
      count = now;
      stable_since = std::chrono::steady_clock::now();
    }
  }
  return count;
}

}  // namespace

MockCluster::MockCluster(int brokers) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  host_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!host_) throw std::runtime_error(fmt::format("mock host: {}", err));
  cluster_ = rd_kafka_mock_cluster_new(host_, brokers);
  if (!cluster_) throw std::runtime_error("cannot create the mock cluster");
  bootstrap_ = rd_kafka_mock_cluster_bootstraps(cluster_);
  own_threads_ = settledThreadCount();
  producer_ = newClient(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap_}, {"linger.ms", "0"}});
}

MockCluster::~MockCluster() {
  rd_kafka_destroy(producer_);
  // Other clients (a consumer a worker left to finish closing in the background) must be gone
  // while the brokers still answer them: without brokers their close would wait for request
  // timeouts. librdkafka counts its threads, and only this cluster's remain once they are gone.
  const auto deadline = std::chrono::steady_clock::now() + kLingeringClientsTimeout;
  while (rd_kafka_thread_cnt() > own_threads_ && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (rd_kafka_thread_cnt() > own_threads_)
    ADD_FAILURE() << "a Kafka client was still running " << kLingeringClientsTimeout.count()
                  << " ms after the test ended (" << rd_kafka_thread_cnt()
                  << " librdkafka threads, " << own_threads_ << " of them the cluster's)";
  rd_kafka_mock_cluster_destroy(cluster_);
  rd_kafka_destroy(host_);
}

void MockCluster::createTopic(const std::string& topic, int partitions) {
  check(rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, 1), "create topic");
}

std::vector<int64_t> MockCluster::produce(const std::string& topic, int32_t partition,
                                          const std::vector<TestRecord>& records) {
  std::vector<int64_t> offsets(records.size(), -2);  // -2: no delivery report yet
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    rd_kafka_headers_t* headers = rd_kafka_headers_new(r.headers.size());
    for (const auto& [name, value] : r.headers)
      rd_kafka_header_add(headers, name.data(), static_cast<ssize_t>(name.size()),
                          value ? value->data() : nullptr,
                          value ? static_cast<ssize_t>(value->size()) : 0);
    // The librdkafka macros cast their arguments without parentheses: pass plain variables.
    void* key = r.key ? const_cast<char*>(r.key->data()) : nullptr;
    const size_t key_len = r.key ? r.key->size() : 0;
    void* value = r.value ? const_cast<char*>(r.value->data()) : nullptr;
    const size_t value_len = r.value ? r.value->size() : 0;
    const int64_t timestamp = r.timestamp;
    void* slot = &offsets[i];
    const auto err = rd_kafka_producev(
        producer_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
        RD_KAFKA_V_VALUE(value, value_len), RD_KAFKA_V_TIMESTAMP(timestamp),
        RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_OPAQUE(slot), RD_KAFKA_V_END);
    if (err) {
      rd_kafka_headers_destroy(headers);  // ownership passes to librdkafka only on success
      check(err, "produce");
    }
  }
  check(rd_kafka_flush(producer_, 10000), "produce: flush");
  for (const auto offset : offsets)
    if (offset < 0) throw std::runtime_error(fmt::format("produce to {}: a record failed", topic));
  return offsets;
}

std::vector<int64_t> MockCluster::produceValues(const std::string& topic, int32_t partition,
                                                int count, const std::string& prefix, int first) {
  std::vector<TestRecord> records;
  for (int i = first; i < first + count; ++i)
    records.push_back({.key = fmt::format("k{}", i), .value = fmt::format("{}{}", prefix, i)});
  return produce(topic, partition, records);
}

OffsetMap MockCluster::committed(const std::string& group,
                                 const std::vector<TopicPartition>& partitions) {
  OffsetClient client(bootstrap_, group);
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const auto& tp : partitions)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
  check(rd_kafka_committed(client.rk, list.get(), 5000), "committed");
  OffsetMap out;
  for (int i = 0; i < list->cnt; ++i)
    if (list->elems[i].offset >= 0)
      out[{list->elems[i].topic, list->elems[i].partition}] = list->elems[i].offset;
  return out;
}

std::optional<int64_t> MockCluster::committed(const std::string& group, const TopicPartition& tp) {
  const auto all = committed(group, std::vector<TopicPartition>{tp});
  if (auto it = all.find(tp); it != all.end()) return it->second;
  return std::nullopt;
}

std::optional<int64_t> MockCluster::waitForCommitted(const std::string& group,
                                                     const TopicPartition& tp, int64_t offset,
                                                     std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto last = committed(group, tp);
    if (last == offset || std::chrono::steady_clock::now() >= deadline) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void MockCluster::seedCommitted(const std::string& group, const OffsetMap& offsets) {
  OffsetClient client(bootstrap_, group);
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, offset] : offsets)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = offset;
  check(rd_kafka_commit(client.rk, list.get(), 0), "seed committed offsets");
}

void MockCluster::pushRequestErrors(ApiKey api_key,
                                    const std::vector<rd_kafka_resp_err_t>& errors) {
  rd_kafka_mock_push_request_errors_array(cluster_, api_key, errors.size(), errors.data());
}

void MockCluster::pushBrokerRequestRtts(
    int32_t broker, ApiKey api_key,
    const std::vector<std::pair<rd_kafka_resp_err_t, int>>& errors_rtts) {
  // Each call appends to the broker's queue for this ApiKey, so one call per entry keeps order.
  for (const auto& [err, rtt] : errors_rtts)
    check(rd_kafka_mock_broker_push_request_error_rtts(cluster_, broker, api_key, 1, err, rtt),
          "push request rtts");
}

void MockCluster::setBrokerDown(int32_t broker) {
  check(rd_kafka_mock_broker_set_down(cluster_, broker), "broker down");
}

void MockCluster::setBrokerUp(int32_t broker) {
  check(rd_kafka_mock_broker_set_up(cluster_, broker), "broker up");
}

void MockCluster::setBrokerRtt(int32_t broker, std::chrono::milliseconds rtt) {
  check(rd_kafka_mock_broker_set_rtt(cluster_, broker, static_cast<int>(rtt.count())),
        "broker rtt");
}

void MockCluster::setGroupCoordinator(const std::string& group, int32_t broker) {
  check(rd_kafka_mock_coordinator_set(cluster_, "group", group.c_str(), broker), "set coordinator");
}

void MockCluster::setPartitionLeader(const std::string& topic, int32_t partition, int32_t broker) {
  check(rd_kafka_mock_partition_set_leader(cluster_, topic.c_str(), partition, broker),
        "set leader");
}

}  // namespace ksink::testkit
