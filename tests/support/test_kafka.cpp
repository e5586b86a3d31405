#include "test_kafka.h"

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <thread>

#include "command_output.h"

namespace ksink::it {
namespace {

rd_kafka_t* newClient(rd_kafka_type_t type, const std::string& bootstrap,
                      const std::map<std::string, std::string>& extra = {}) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  for (const auto& [k, v] : extra)
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      throw std::runtime_error(err);
  if (type == RD_KAFKA_PRODUCER)
    rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void*) {
      // The per-message opaque is the producing call's failure counter.
      if (m->err && m->_private) ++*static_cast<std::atomic<int>*>(m->_private);
    });
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) throw std::runtime_error(err);
  return rk;
}

}  // namespace

KafkaBrokerProcess::KafkaBrokerProcess(std::filesystem::path workdir, std::string sasl_plain)
    : workdir_(std::move(workdir)), sasl_plain_(std::move(sasl_plain)) {}

std::string KafkaBrokerProcess::saslBootstrap() const {
  if (sasl_plain_.empty()) return "";
  return test::scriptOutput(fmt::format("cat '{}/sasl_bootstrap'", workdir_.string()));
}

KafkaBrokerProcess::~KafkaBrokerProcess() {
  try {
    stop();
  } catch (...) {
  }
}

std::string KafkaBrokerProcess::start() {
  bootstrap_ = test::scriptOutput(
      fmt::format("KSINK_KAFKA_SASL_PLAIN='{}' '{}/integration/kafka/start.sh' '{}'", sasl_plain_,
                  KSINK_SOURCE_DIR, workdir_.string()));
  running_ = true;
  return bootstrap_;
}

void KafkaBrokerProcess::stop() {
  if (!running_) return;
  running_ = false;
  test::scriptOutput(
      fmt::format("'{}/integration/kafka/stop.sh' '{}' 2>&1", KSINK_SOURCE_DIR, workdir_.string()));
}

struct RealKafka::Clients {
  std::atomic<int> delivery_failures{0};
  rd_kafka_t* producer = nullptr;
  ~Clients() {
    if (producer) rd_kafka_destroy(producer);
  }
};

RealKafka::RealKafka(std::string bootstrap)
    : bootstrap_(std::move(bootstrap)), clients_(std::make_unique<Clients>()) {
  clients_->producer = newClient(RD_KAFKA_PRODUCER, bootstrap_,
                                 {{"linger.ms", "5"}, {"enable.idempotence", "true"}});
}

RealKafka::~RealKafka() = default;

RealKafka& RealKafka::shared() {
  static std::unique_ptr<KafkaBrokerProcess> own;
  static RealKafka* instance = [] {
    if (const char* env = std::getenv("KSINK_TEST_BOOTSTRAP"); env && *env)
      return new RealKafka(env);
    own = std::make_unique<KafkaBrokerProcess>(freshDir("ksink-kafka"));
    return new RealKafka(own->start());
  }();
  return *instance;
}

RealKafka::TopicDescription RealKafka::describeTopic(const std::string& topic) {
  TopicDescription out;
  // Every topic listed: a request naming the topic would have the broker auto-create it.
  const rd_kafka_metadata_t* md = nullptr;
  if (const auto err = rd_kafka_metadata(clients_->producer, 1, nullptr, &md, 10000))
    throw std::runtime_error("describe topic " + topic + ": " + rd_kafka_err2str(err));
  for (int i = 0; i < md->topic_cnt; ++i)
    if (topic == md->topics[i].topic && !md->topics[i].err)
      out.partitions = md->topics[i].partition_cnt;
  rd_kafka_metadata_destroy(md);
  if (out.partitions == 0) return out;
  rd_kafka_ConfigResource_t* resource =
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(clients_->producer);
  rd_kafka_DescribeConfigs(clients_->producer, &resource, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  std::string failure = ev ? "" : "timed out";
  if (ev && rd_kafka_event_error(ev)) failure = rd_kafka_event_error_string(ev);
  if (ev && failure.empty()) {
    size_t n = 0;
    const auto** resources =
        rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev), &n);
    for (size_t i = 0; i < n; ++i) {
      size_t count = 0;
      const auto** entries = rd_kafka_ConfigResource_configs(resources[i], &count);
      for (size_t j = 0; j < count; ++j)
        if (rd_kafka_ConfigEntry_source(entries[j]) ==
                RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG &&
            rd_kafka_ConfigEntry_value(entries[j]))
          out.configs[rd_kafka_ConfigEntry_name(entries[j])] =
              rd_kafka_ConfigEntry_value(entries[j]);
    }
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_ConfigResource_destroy(resource);
  if (!failure.empty()) throw std::runtime_error("describe topic " + topic + ": " + failure);
  return out;
}

void RealKafka::deleteTopic(const std::string& topic) {
  rd_kafka_DeleteTopic_t* dt = rd_kafka_DeleteTopic_new(topic.c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(clients_->producer);
  rd_kafka_DeleteTopics(clients_->producer, &dt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  std::string failure;
  if (!ev) {
    failure = "timed out";
  } else {
    const auto* result = rd_kafka_event_DeleteTopics_result(ev);
    size_t n = 0;
    const auto** topics = rd_kafka_DeleteTopics_result_topics(result, &n);
    if (rd_kafka_event_error(ev)) failure = rd_kafka_event_error_string(ev);
    for (size_t i = 0; i < n; ++i)
      if (rd_kafka_topic_result_error(topics[i]))
        failure = rd_kafka_topic_result_error_string(topics[i]);
    rd_kafka_event_destroy(ev);
  }
  rd_kafka_queue_destroy(q);
  rd_kafka_DeleteTopic_destroy(dt);
  if (!failure.empty()) throw std::runtime_error("delete topic " + topic + ": " + failure);
}

void RealKafka::createTopic(const std::string& topic, int partitions,
                            const std::map<std::string, std::string>& configs) {
  char err[512];
  rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof err);
  for (const auto& [key, value] : configs)
    rd_kafka_NewTopic_set_config(nt, key.c_str(), value.c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(clients_->producer);
  rd_kafka_CreateTopics(clients_->producer, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 30000);
  std::string failure;
  if (!ev) {
    failure = "timed out";
  } else {
    const auto* result = rd_kafka_event_CreateTopics_result(ev);
    size_t n = 0;
    const auto** topics = rd_kafka_CreateTopics_result_topics(result, &n);
    if (rd_kafka_event_error(ev)) failure = rd_kafka_event_error_string(ev);
    for (size_t i = 0; i < n; ++i)
      if (rd_kafka_topic_result_error(topics[i]) &&
          rd_kafka_topic_result_error(topics[i]) != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        failure = rd_kafka_topic_result_error_string(topics[i]);
    rd_kafka_event_destroy(ev);
  }
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
  if (!failure.empty()) throw std::runtime_error("create topic " + topic + ": " + failure);
  // Wait until the broker reports a leader for every partition. Asked of the broker each time
  // (a metadata request for this topic), not of the client's metadata cache: librdkafka 2.0.2 can
  // keep answering "unknown partition" from its cache for a topic created moments ago.
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(clients_->producer, topic.c_str(), nullptr);
  std::string state = "no metadata";
  for (int attempt = 0; attempt < 300; ++attempt) {
    const rd_kafka_metadata_t* md = nullptr;
    const auto err = rd_kafka_metadata(clients_->producer, 0, rkt, &md, 2000);
    bool ready = false;
    if (err) {
      state = rd_kafka_err2str(err);
    } else if (md->topic_cnt != 1 || md->topics[0].err) {
      state = md->topic_cnt != 1 ? "topic missing" : rd_kafka_err2str(md->topics[0].err);
    } else {
      const auto& t = md->topics[0];
      ready = t.partition_cnt == partitions;
      for (int i = 0; ready && i < t.partition_cnt; ++i)
        ready = t.partitions[i].err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partitions[i].leader >= 0;
      state =
          fmt::format("{} of {} partitions, some without a leader", t.partition_cnt, partitions);
    }
    if (md) rd_kafka_metadata_destroy(md);
    if (ready) {
      rd_kafka_topic_destroy(rkt);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  rd_kafka_topic_destroy(rkt);
  throw std::runtime_error("topic " + topic + " has no leader (" + state + ")");
}

void RealKafka::produce(const std::string& topic, const std::vector<Message>& messages) {
  rd_kafka_t* rk = clients_->producer;
  clients_->delivery_failures = 0;
  for (const auto& m : messages) {
    // The librdkafka macros cast their arguments without parentheses: pass plain variables.
    void* key = m.key ? const_cast<char*>(m.key->data()) : nullptr;
    const size_t key_len = m.key ? m.key->size() : 0;
    void* value = m.value ? const_cast<char*>(m.value->data()) : nullptr;
    const size_t value_len = m.value ? m.value->size() : 0;
    const int64_t timestamp = m.timestamp.value_or(0);
    while (true) {
      // librdkafka takes the headers (when it accepts the message): a new list per attempt.
      rd_kafka_headers_t* headers = nullptr;
      if (!m.headers.empty()) {
        headers = rd_kafka_headers_new(m.headers.size());
        for (const auto& [name, text] : m.headers)
          rd_kafka_header_add(headers, name.data(), static_cast<ssize_t>(name.size()), text.data(),
                              static_cast<ssize_t>(text.size()));
      }
      const auto err =
          headers ? rd_kafka_producev(
                        rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(m.partition),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
                        RD_KAFKA_V_VALUE(value, value_len), RD_KAFKA_V_TIMESTAMP(timestamp),
                        RD_KAFKA_V_HEADERS(headers),
                        RD_KAFKA_V_OPAQUE(&clients_->delivery_failures), RD_KAFKA_V_END)
                  : rd_kafka_producev(
                        rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(m.partition),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
                        RD_KAFKA_V_VALUE(value, value_len), RD_KAFKA_V_TIMESTAMP(timestamp),
                        RD_KAFKA_V_OPAQUE(&clients_->delivery_failures), RD_KAFKA_V_END);
      if (err && headers) rd_kafka_headers_destroy(headers);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk, 50);
        continue;
      }
      if (err) throw std::runtime_error(fmt::format("produce: {}", rd_kafka_err2str(err)));
      break;
    }
    rd_kafka_poll(rk, 0);
  }
  if (rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw std::runtime_error("produce: flush timed out");
  if (clients_->delivery_failures > 0)
    throw std::runtime_error(
        fmt::format("produce: {} messages failed", clients_->delivery_failures.load()));
}

void RealKafka::produceSequence(const std::string& topic, int partitions, int count,
                                const std::string& prefix, int first) {
  std::vector<Message> messages;
  messages.reserve(static_cast<size_t>(count));
  for (int i = first; i < first + count; ++i)
    messages.push_back({i % partitions, "k" + std::to_string(i), prefix + std::to_string(i)});
  produce(topic, messages);
}

OffsetMap RealKafka::committed(const std::string& group, const std::string& topic, int partitions) {
  rd_kafka_t* consumer = newClient(RD_KAFKA_CONSUMER, bootstrap_, {{"group.id", group}});
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p) rd_kafka_topic_partition_list_add(list, topic.c_str(), p);
  const auto err = rd_kafka_committed(consumer, list, 10000);
  OffsetMap out;
  for (int i = 0; !err && i < list->cnt; ++i)
    if (list->elems[i].offset >= 0)
      out[{list->elems[i].topic, list->elems[i].partition}] = list->elems[i].offset;
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy(consumer);
  if (err) throw std::runtime_error(fmt::format("committed: {}", rd_kafka_err2str(err)));
  return out;
}

int64_t RealKafka::endOffset(const TopicPartition& tp) {
  // A topic created a moment ago may not have its leader elected yet (NOT_LEADER /
  // LEADER_NOT_AVAILABLE): asked again for up to 10 s, as the broker settles.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    int64_t lo = 0, hi = 0;
    const auto err = rd_kafka_query_watermark_offsets(clients_->producer, tp.topic.c_str(),
                                                      tp.partition, &lo, &hi, 10000);
    if (!err) return hi;
    const bool settling = err == RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION ||
                          err == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE;
    if (!settling || std::chrono::steady_clock::now() >= until)
      throw std::runtime_error(fmt::format("watermarks: {}", rd_kafka_err2str(err)));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

int RealKafka::groupMembers(const std::string& group) {
  const rd_kafka_group_list* groups = nullptr;
  if (auto err = rd_kafka_list_groups(clients_->producer, group.c_str(), &groups, 10000))
    throw std::runtime_error(fmt::format("list groups: {}", rd_kafka_err2str(err)));
  const int members = groups->group_cnt > 0 ? groups->groups[0].member_cnt : 0;
  rd_kafka_group_list_destroy(groups);
  return members;
}

OffsetMap RealKafka::waitForCommitted(const std::string& group, const std::string& topic,
                                      int partitions, const OffsetMap& expected,
                                      std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  OffsetMap last;
  while (true) {
    last = committed(group, topic, partitions);
    if (last == expected || std::chrono::steady_clock::now() >= deadline) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

std::string uniqueName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  static const auto run = std::random_device{}() % 100000;
  return fmt::format("{}-{}-{}-{}", prefix, ::getpid(), run, counter++);
}

std::filesystem::path freshDir(const std::string& prefix) {
  auto dir = std::filesystem::temp_directory_path() / uniqueName(prefix);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace ksink::it
