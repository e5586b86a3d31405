#include "dead_letter_queue.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <utility>

#include "rdkafka_handles.h"
#include "rdkafka_timeout.h"
#include "topic_admin.h"

namespace ksink {
namespace {

void onDelivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* m, void* opaque) {
  if (!m->err) return;
  ++*static_cast<std::atomic<uint64_t>*>(opaque);
  spdlog::error("dead-letter queue write to {}-{} failed: {}", rd_kafka_topic_name(m->rkt),
                m->partition, rd_kafka_err2str(m->err));
}

}  // namespace

struct DeadLetterQueue::Producer {
  KafkaHandle rk;
};

DeadLetterQueue::DeadLetterQueue(const ErrorsConfig& config, std::string connector, int task_id,
                                 std::chrono::milliseconds queue_full_timeout)
    : producer_(std::make_unique<Producer>()),
      topic_(config.dlq_topic),
      connector_(std::move(connector)),
      task_id_(task_id),
      context_headers_(config.dlq_context_headers),
      queue_full_timeout_(queue_full_timeout) {
  ConfHandle conf(rd_kafka_conf_new());
  char err[512];
  for (const auto& [key, value] : config.producer_properties)
    if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), err, sizeof err) !=
        RD_KAFKA_CONF_OK)
      throw std::runtime_error(fmt::format("dead-letter queue producer property {}: {}", key, err));
  rd_kafka_conf_set_dr_msg_cb(conf.get(), onDelivery);
  rd_kafka_conf_set_opaque(conf.get(), &failures_);
  producer_->rk.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err));
  if (!producer_->rk) throw std::runtime_error(fmt::format("dead-letter queue producer: {}", err));
  conf.release();
  // Not fatal: brokers that auto-create topics (and the embedded mock cluster, which has no
  // CreateTopics) still accept the writes.
  try {
    if (ensureTopic(producer_->rk.get(), topic_, 1, config.dlq_replication_factor, {},
                    std::chrono::seconds(10)))
      spdlog::info("created dead-letter queue topic {}", topic_);
  } catch (const std::exception& e) {
    spdlog::warn("dead-letter queue: {}", e.what());
  }
}

DeadLetterQueue::~DeadLetterQueue() {
  if (producer_ && producer_->rk) rd_kafka_flush(producer_->rk.get(), 5000);
}

void DeadLetterQueue::send(const SinkRecord& record, const ErrorContext& context) {
  rd_kafka_headers_t* headers = rd_kafka_headers_new(record.headers().size() + 10);
  for (const auto& h : record.headers()) {
    const std::string name(h.key);
    rd_kafka_header_add(headers, name.data(), static_cast<ssize_t>(name.size()),
                        h.value ? h.value->data() : nullptr,
                        h.value ? static_cast<ssize_t>(h.value->size()) : 0);
  }
  if (context_headers_) {
    auto add = [&](const char* name, const std::string& value) {
      rd_kafka_header_add(headers, name, -1, value.data(), static_cast<ssize_t>(value.size()));
    };
    add("__connect.errors.topic", std::string(record.topic()));
    add("__connect.errors.partition", std::to_string(record.partition()));
    add("__connect.errors.offset", std::to_string(record.offset()));
    add("__connect.errors.connector.name", connector_);
    add("__connect.errors.task.id", std::to_string(task_id_));
    add("__connect.errors.stage", context.stage);
    add("__connect.errors.class.name", context.executing_class);
    add("__connect.errors.exception.class.name", context.exception_class);
    add("__connect.errors.exception.message", context.message);
    // C++ exceptions carry no stack trace; the message and the class are what there is.
    add("__connect.errors.exception.stacktrace",
        fmt::format("{}: {}", context.exception_class, context.message));
  }
  const auto key = record.key();
  const auto value = record.value();
  void* key_ptr = key ? const_cast<char*>(key->data()) : nullptr;
  const size_t key_len = key ? key->size() : 0;
  void* value_ptr = value ? const_cast<char*>(value->data()) : nullptr;
  const size_t value_len = value ? value->size() : 0;
  const int64_t timestamp = record.timestamp().value_or(0);
  // rd_kafka_produceva rather than the producev macros: those use a GNU extension.
  rd_kafka_vu_t fields[6];
  fields[0].vtype = RD_KAFKA_VTYPE_TOPIC;
  fields[0].u.cstr = topic_.c_str();
  fields[1].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
  fields[1].u.i = RD_KAFKA_MSG_F_COPY;
  fields[2].vtype = RD_KAFKA_VTYPE_KEY;
  fields[2].u.mem = {key_ptr, key_len};
  fields[3].vtype = RD_KAFKA_VTYPE_VALUE;
  fields[3].u.mem = {value_ptr, value_len};
  fields[4].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
  fields[4].u.i64 = timestamp;
  fields[5].vtype = RD_KAFKA_VTYPE_HEADERS;
  fields[5].u.headers = headers;
  rd_kafka_resp_err_t err;
  // A queue that stays full means the broker takes nothing: give up within a bound of its own
  // rather than hold the task (the record is then not skipped: the task fails).
  const auto give_up = std::chrono::steady_clock::now() + queue_full_timeout_;
  while (true) {
    ErrorHandle error(rd_kafka_produceva(producer_->rk.get(), fields, 6));
    err = error ? rd_kafka_error_code(error.get()) : RD_KAFKA_RESP_ERR_NO_ERROR;
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL || std::chrono::steady_clock::now() >= give_up) break;
    rd_kafka_poll(producer_->rk.get(), 50);
  }
  if (err) {
    rd_kafka_headers_destroy(headers);  // only owned by librdkafka when produce succeeded
    throw std::runtime_error(fmt::format(
        "dead-letter queue write of {} refused: {}{}", record, rd_kafka_err2str(err),
        err == RD_KAFKA_RESP_ERR__QUEUE_FULL
            ? fmt::format(" for {} ms (the broker takes nothing)", queue_full_timeout_.count())
            : ""));
  }
  ++requests_;
  rd_kafka_poll(producer_->rk.get(), 0);
}

ErrantRecordReporter::Delivery DeadLetterQueue::awaitDelivered(std::chrono::milliseconds timeout) {
  const auto err = rd_kafka_flush(producer_->rk.get(), rdkafkaTimeoutMs(timeout));
  const uint64_t failures = failures_;
  if (std::exchange(failures_reported_, failures) != failures)
    return ErrantRecordReporter::Delivery::kFailed;
  return err == RD_KAFKA_RESP_ERR_NO_ERROR ? ErrantRecordReporter::Delivery::kDelivered
                                           : ErrantRecordReporter::Delivery::kPending;
}

}  // namespace ksink
