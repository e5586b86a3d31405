#include "kafka_consumer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <future>
#include <stdexcept>
#include <thread>

#include "ksink/detail/config_parse.h"
#include "rdkafka_timeout.h"

namespace ksink {
namespace {

void logCallback(const rd_kafka_t* /*rk*/, int level, const char* facility, const char* buf) {
  // syslog levels: 0..3 error, 4 warning, 5..6 info, 7 debug.
  const auto spd_level = level <= 3   ? spdlog::level::err
                         : level == 4 ? spdlog::level::warn
                         : level <= 6 ? spdlog::level::info
                                      : spdlog::level::debug;
  spdlog::log(spd_level, "librdkafka {}: {}", facility, buf);
}

void errorCallback(rd_kafka_t* /*rk*/, int err, const char* reason, void* /*opaque*/) {
  // Broker connectivity problems are retried by librdkafka; report them, never crash.
  spdlog::warn("kafka: {} ({})", reason, rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err)));
}

// A numeric property as librdkafka resolved it (its default when not set).
int64_t confNumber(rd_kafka_conf_t* conf, const char* key) {
  char buf[64];
  size_t size = sizeof buf;
  if (rd_kafka_conf_get(conf, key, buf, &size) != RD_KAFKA_CONF_OK) return 0;
  return detail::parseLong(buf).value_or(0);
}

// Whether the assignors partition.assignment.strategy lists are cooperative. librdkafka refuses a
// mix of protocols (rd_kafka_new fails) and cooperative-sticky is its only cooperative one, so
// this decides every rebalance's protocol. Asking rd_kafka_rebalance_protocol() instead costs a
// round trip to the group's thread and answers NULL once the group is gone: a consumer closed in
// the background after leaving for max.poll.interval.ms (an abandoned task let go) got its
// revocation then, and reading the NULL as a string crashed the process.
bool cooperativeStrategy(rd_kafka_conf_t* conf) {
  char buf[256];
  size_t size = sizeof buf;
  if (rd_kafka_conf_get(conf, "partition.assignment.strategy", buf, &size) != RD_KAFKA_CONF_OK)
    return false;
  const std::string_view strategy(buf);
  return strategy.find("cooperative-sticky") != std::string_view::npos;
}

// How long a consumer destroyed without close() may wait for its first assignment (destroy()).
constexpr auto kAssignorStateWait = std::chrono::seconds(10);

}  // namespace

std::shared_ptr<KafkaConsumer> KafkaConsumer::create(
    const std::map<std::string, std::string>& properties, RebalanceListener& listener) {
  std::shared_ptr<KafkaConsumer> consumer(new KafkaConsumer());
  consumer->listener_ = &listener;
  ConfHandle conf(rd_kafka_conf_new());
  char errstr[512];
  for (const auto& [key, value] : properties) {
    if (key == "max.poll.records" || key == "key.deserializer" || key == "value.deserializer" ||
        key == "default.api.timeout.ms")
      continue;
    if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr) !=
        RD_KAFKA_CONF_OK)
      throw std::runtime_error(fmt::format("consumer property {}: {}", key, errstr));
  }
  rd_kafka_conf_set_log_cb(conf.get(), logCallback);
  rd_kafka_conf_set_error_cb(conf.get(), errorCallback);
  rd_kafka_conf_set_rebalance_cb(conf.get(), &KafkaConsumer::rebalanceCallback);
  rd_kafka_conf_set_opaque(conf.get(), consumer.get());
  consumer->cooperative_ = cooperativeStrategy(conf.get());
  consumer->prefetch_.emplace(confNumber(conf.get(), "queued.min.messages"),
                              confNumber(conf.get(), "queued.max.messages.kbytes") * 1024);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), errstr, sizeof errstr);
  if (!rk) throw std::runtime_error(fmt::format("cannot create the Kafka consumer: {}", errstr));
  conf.release();  // rd_kafka_new took ownership
  rd_kafka_poll_set_consumer(rk);
  consumer->rk_ = rk;
  consumer->commit_queue_.reset(rd_kafka_queue_new(rk));
  consumer->consumer_queue_.reset(rd_kafka_queue_get_consumer(rk));
  consumer->waker_ = std::make_unique<FetchWaker>(rk);
  return consumer;
}

KafkaConsumer::~KafkaConsumer() {
  if (rk_) {
    listener_ = nullptr;
    waker_->stop();
    commit_queue_.reset();
    consumer_queue_.reset();
    destroy(rk_, std::chrono::steady_clock::now() + kAssignorStateWait,
            RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  }
}

// librdkafka 2.0.2 makes a cooperative-sticky consumer's assignor state with its first SyncGroup
// answer, and destroying a handle that had its JoinGroup answer but not that one asserts on the
// missing state and aborts the process (rd_kafka_sticky_assignor_state_destroy; librdkafka #4312,
// fixed in 2.2.0). A subscribed cooperative consumer with no assignment yet may be there: it
// serves its group (dropping what it fetches; nothing is committed) until the first assignment
// comes, or `deadline`. One with no JoinGroup answer yet has no assignor (its protocol is NONE)
// and nothing to assert on. False when it may not be destroyed.
bool KafkaConsumer::awaitAssignorState(rd_kafka_t* rk,
                                       std::chrono::steady_clock::time_point deadline) {
  if (!cooperative_ || !subscribed_) return true;
  while (!assigned_once_) {
    // NULL once the group is gone: not known, so not safe.
    const char* protocol = rd_kafka_rebalance_protocol(rk);
    if (protocol && std::string_view(protocol) == "NONE") return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (rd_kafka_message_t* message = rd_kafka_consumer_poll(rk, 50))
      rd_kafka_message_destroy(message);
  }
  return true;
}

bool KafkaConsumer::destroy(rd_kafka_t* rk, std::chrono::steady_clock::time_point deadline,
                            int flags) {
  const bool settled = awaitAssignorState(rk, deadline);
  if (!(flags & RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE)) rd_kafka_consumer_close(rk);
  if (settled) {
    rd_kafka_destroy_flags(rk, flags);
    return true;
  }
  // Left as it is (its threads and memory), out of the group once closed: better than an abort.
  spdlog::warn(
      "a cooperative-sticky consumer got no assignment to close after; its handle is left "
      "undestroyed (librdkafka 2.0.2 aborts destroying it then: librdkafka issue #4312)");
  return false;
}

void KafkaConsumer::subscribe(const std::vector<std::string>& topics) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(topics.size())));
  for (const auto& t : topics)
    rd_kafka_topic_partition_list_add(list.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  if (auto err = rd_kafka_subscribe(rk_, list.get()))
    throw std::runtime_error(fmt::format("subscribe failed: {}", rd_kafka_err2str(err)));
  subscribed_ = true;
}

void KafkaConsumer::subscribeRegex(const std::string& regex) {
  // librdkafka treats a topic name starting with '^' as a regular expression.
  subscribe({regex.starts_with('^') ? regex : "^" + regex});
}

MessagePtr KafkaConsumer::poll(std::chrono::milliseconds timeout) {
  MessagePtr message(rd_kafka_consumer_poll(rk_, rdkafkaTimeoutMs(timeout)));
  if (!message) {
    if (prefetch_->empty(std::chrono::steady_clock::now())) waker_->wake();
  } else if (!message->err && prefetch_->polled(message->len + message->key_len) &&
             prefetch_->observe(
                 static_cast<int64_t>(rd_kafka_queue_length(consumer_queue_.get())))) {
    waker_->wake();
  }
  if (listener_error_) {
    auto error = std::exchange(listener_error_, nullptr);
    std::rethrow_exception(error);
  }
  return message;
}

void KafkaConsumer::rebalanceCallback(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                      rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  static_cast<KafkaConsumer*>(opaque)->onRebalance(rk, err, partitions);
}

// `rk` rather than rk_: during close() this runs on the teardown thread after rk_ was released.
void KafkaConsumer::onRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                rd_kafka_topic_partition_list_t* partitions) {
  const auto tps = toPartitions(partitions);
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    assigned_once_ = true;
    // Start offsets are set in a copy of the list before assigning, so the first fetch of each
    // partition already starts where the task (or its stored offsets) wants.
    PartitionList list(rd_kafka_topic_partition_list_copy(partitions));
    if (listener_ && !tps.empty()) {
      try {
        for (const auto& [tp, offset] : listener_->onPartitionsAssigned(tps)) {
          if (auto* elem =
                  rd_kafka_topic_partition_list_find(list.get(), tp.topic.c_str(), tp.partition))
            elem->offset = offset;
        }
      } catch (...) {
        if (!listener_error_) listener_error_ = std::current_exception();
      }
    }
    if (cooperative_) {
      ErrorHandle error(rd_kafka_incremental_assign(rk, list.get()));
      if (error) spdlog::error("incremental assign failed: {}", rd_kafka_error_string(error.get()));
    } else if (auto e = rd_kafka_assign(rk, list.get())) {
      spdlog::error("assign failed: {}", rd_kafka_err2str(e));
    }
    if (listener_ && !tps.empty()) {
      try {
        listener_->afterAssigned(tps);
      } catch (...) {
        if (!listener_error_) listener_error_ = std::current_exception();
      }
    }
    return;
  }
  const bool lost = err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS || rd_kafka_assignment_lost(rk);
  if (err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS)
    spdlog::error("rebalance error: {}; dropping the assignment", rd_kafka_err2str(err));
  if (listener_ && !tps.empty()) {
    try {
      listener_->onPartitionsRevoked(tps, lost);
    } catch (...) {
      if (!listener_error_) listener_error_ = std::current_exception();
    }
  }
  if (cooperative_ && err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    ErrorHandle error(rd_kafka_incremental_unassign(rk, partitions));
    if (error) spdlog::error("incremental unassign failed: {}", rd_kafka_error_string(error.get()));
  } else {
    rd_kafka_assign(rk, nullptr);
  }
}

std::vector<TopicPartition> KafkaConsumer::assignment() const {
  rd_kafka_topic_partition_list_t* raw = nullptr;
  if (rd_kafka_assignment(rk_, &raw)) return {};
  PartitionList list(raw);
  return toPartitions(list.get());
}

bool KafkaConsumer::commitAsync(const OffsetMap& offsets, uint64_t seqno) {
  auto list = toPartitionList(offsets);
  const auto err = rd_kafka_commit_queue(rk_, list.get(), commit_queue_.get(), nullptr,
                                         reinterpret_cast<void*>(static_cast<uintptr_t>(seqno)));
  if (err) {
    spdlog::warn("offset commit #{} not sent: {}", seqno, rd_kafka_err2str(err));
    return false;
  }
  return true;
}

std::optional<CommitResult> KafkaConsumer::pollCommitResult(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    EventHandle event(rd_kafka_queue_poll(commit_queue_.get(), rdkafkaTimeoutMs(left)));
    if (!event) return std::nullopt;
    if (rd_kafka_event_type(event.get()) != RD_KAFKA_EVENT_OFFSET_COMMIT) continue;
    CommitResult result;
    result.seqno =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(rd_kafka_event_opaque(event.get())));
    result.error = rd_kafka_event_error(event.get());
    result.offsets = toOffsetMap(rd_kafka_event_topic_partition_list(event.get()));
    // A commit can succeed as a whole and fail for single partitions.
    if (!result.error) {
      const auto* list = rd_kafka_event_topic_partition_list(event.get());
      for (int i = 0; list && i < list->cnt; ++i)
        if (list->elems[i].err) result.error = list->elems[i].err;
    }
    return result;
  }
}

std::optional<OffsetMap> KafkaConsumer::committed(const std::vector<TopicPartition>& partitions,
                                                  std::chrono::milliseconds timeout) {
  auto list = toPartitionList(partitions);
  if (auto err = rd_kafka_committed(rk_, list.get(), rdkafkaTimeoutMs(timeout))) {
    spdlog::warn("reading committed offsets failed: {}", rd_kafka_err2str(err));
    return std::nullopt;
  }
  OffsetMap out;
  for (const auto& [tp, offset] : toOffsetMap(list.get()))
    if (offset >= 0) out.emplace(tp, offset);
  return out;
}

std::optional<std::pair<int64_t, int64_t>> KafkaConsumer::watermarks(
    const TopicPartition& tp, std::chrono::milliseconds timeout) {
  int64_t low = 0, high = 0;
  if (rd_kafka_query_watermark_offsets(rk_, tp.topic.c_str(), tp.partition, &low, &high,
                                       rdkafkaTimeoutMs(timeout)))
    return std::nullopt;
  return std::make_pair(low, high);
}

std::optional<int64_t> KafkaConsumer::cachedHighWatermark(const TopicPartition& tp) {
  int64_t low = 0, high = 0;
  if (rd_kafka_get_watermark_offsets(rk_, tp.topic.c_str(), tp.partition, &low, &high) || high < 0)
    return std::nullopt;
  return high;
}

int KafkaConsumer::seekTimeoutArgument(std::chrono::milliseconds timeout, int version) {
  constexpr int kFixedIn = 0x020100ff;  // 2.1.0: "seek_partitions timeout was 1000x too low"
  if (version >= kFixedIn) return rdkafkaTimeoutMs(timeout);
  return rdkafkaTimeoutMs(
      std::min<std::chrono::milliseconds>(timeout, std::chrono::milliseconds(INT32_MAX / 1000)) *
      1000);
}

void KafkaConsumer::seek(const OffsetMap& offsets, std::chrono::milliseconds timeout) {
  if (offsets.empty()) return;
  auto list = toPartitionList(offsets);
  ErrorHandle error(
      rd_kafka_seek_partitions(rk_, list.get(), seekTimeoutArgument(timeout, rd_kafka_version())));
  if (error)
    throw std::runtime_error(fmt::format("seek failed: {}", rd_kafka_error_string(error.get())));
  for (int i = 0; i < list->cnt; ++i)
    if (list->elems[i].err)
      throw std::runtime_error(fmt::format("seek of {}-{} to {} failed: {}", list->elems[i].topic,
                                           list->elems[i].partition, list->elems[i].offset,
                                           rd_kafka_err2str(list->elems[i].err)));
}

void KafkaConsumer::pause(const std::vector<TopicPartition>& partitions) {
  if (partitions.empty()) return;
  auto list = toPartitionList(partitions);
  rd_kafka_pause_partitions(rk_, list.get());
}

void KafkaConsumer::resume(const std::vector<TopicPartition>& partitions) {
  if (partitions.empty()) return;
  auto list = toPartitionList(partitions);
  rd_kafka_resume_partitions(rk_, list.get());
  waker_->wake();  // the broker thread would otherwise notice the resumed partitions on its tick
}

uint64_t KafkaConsumer::fetchWakeups() const {
  return waker_->requestsSent();
}

std::string KafkaConsumer::memberId() const {
  if (!rk_) return "";
  char* id = rd_kafka_memberid(rk_);
  std::string out = id ? id : "";
  rd_kafka_mem_free(rk_, id);
  return out;
}

bool KafkaConsumer::close(std::chrono::milliseconds timeout) {
  if (!rk_) return true;
  listener_ = nullptr;
  rd_kafka_t* rk = std::exchange(rk_, nullptr);
  auto queue = std::move(commit_queue_);
  consumer_queue_.reset();
  auto self = shared_from_this();  // the rebalance callback's opaque must outlive the teardown
  std::promise<bool> done;         // true: the handle was destroyed
  auto finished = done.get_future();
  // The waker's request in flight is bounded by its own timeout; stopped on the teardown thread
  // so that this one is bounded by `timeout` alone.
  // Up to half of the time may go to waiting for a first assignment (destroy()), the rest to
  // leaving the group.
  const auto settle_by = std::chrono::steady_clock::now() + timeout / 2;
  std::thread([rk, queue = std::move(queue), self, settle_by, done = std::move(done)]() mutable {
    self->waker_->stop();
    queue.reset();
    done.set_value(self->destroy(rk, settle_by, 0));
  }).detach();
  if (finished.wait_for(timeout) == std::future_status::ready) return finished.get();
  spdlog::warn("consumer close did not finish within {} ms; leaving it to finish in the background",
               timeout.count());
  return false;
}

}  // namespace ksink
