#include "kafka_producer.h"

#include <fmt/format.h>
#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "rdkafka_handles.h"
#include "rdkafka_timeout.h"

namespace ksink {
namespace {

void onDelivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* m, void* opaque) {
  const auto& deliver = *static_cast<KafkaProducer::Delivery*>(opaque);
  RecordMetadata metadata{rd_kafka_topic_name(m->rkt), m->partition, std::nullopt, std::nullopt};
  if (m->offset >= 0) metadata.offset = m->offset;
  rd_kafka_timestamp_type_t type;
  if (const int64_t ts = rd_kafka_message_timestamp(m, &type); ts >= 0) metadata.timestamp = ts;
  const auto token = reinterpret_cast<uintptr_t>(m->_private);
  try {
    deliver(token, m->err ? std::optional<std::string>(rd_kafka_err2str(m->err)) : std::nullopt,
            metadata);
  } catch (const std::exception& e) {
    spdlog::error("delivery report of record {}: {}", token, e.what());
  }
}

}  // namespace

void KafkaProducer::Deleter::operator()(rd_kafka_s* rk) const {
  rd_kafka_destroy(rk);
}

KafkaProducer::KafkaProducer(const std::map<std::string, std::string>& properties,
                             Delivery on_delivery)
    : on_delivery_(std::make_unique<Delivery>(std::move(on_delivery))) {
  auto conf = makeConf(properties, "producer");
  char err[512];
  rd_kafka_conf_set_dr_msg_cb(conf.get(), onDelivery);
  rd_kafka_conf_set_opaque(conf.get(), on_delivery_.get());
  rk_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err));
  if (!rk_) throw std::runtime_error(fmt::format("producer: {}", err));
  conf.release();
}

KafkaProducer::~KafkaProducer() = default;

KafkaProducer::Send KafkaProducer::send(const detail::ProducerRecordBytes& record, uint64_t token) {
  rd_kafka_headers_t* headers = nullptr;
  if (!record.headers.empty()) {
    headers = rd_kafka_headers_new(record.headers.size());
    for (const auto& [name, value] : record.headers)
      rd_kafka_header_add(headers, name.data(), static_cast<ssize_t>(name.size()),
                          value ? value->data() : nullptr,
                          value ? static_cast<ssize_t>(value->size()) : 0);
  }
  // rd_kafka_produceva rather than the producev macros: those use a GNU extension.
  rd_kafka_vu_t fields[8];
  size_t n = 0;
  fields[n].vtype = RD_KAFKA_VTYPE_TOPIC;
  fields[n++].u.cstr = record.topic.c_str();
  fields[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
  fields[n++].u.i = RD_KAFKA_MSG_F_COPY;
  fields[n].vtype = RD_KAFKA_VTYPE_PARTITION;
  fields[n++].u.i32 = record.partition.value_or(RD_KAFKA_PARTITION_UA);
  fields[n].vtype = RD_KAFKA_VTYPE_KEY;
  fields[n++].u.mem = {record.key ? const_cast<char*>(record.key->data()) : nullptr,
                       record.key ? record.key->size() : 0};
  fields[n].vtype = RD_KAFKA_VTYPE_VALUE;
  fields[n++].u.mem = {record.value ? const_cast<char*>(record.value->data()) : nullptr,
                       record.value ? record.value->size() : 0};
  fields[n].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
  fields[n++].u.i64 = record.timestamp.value_or(0);
  fields[n].vtype = RD_KAFKA_VTYPE_OPAQUE;
  fields[n++].u.ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(token));
  if (headers) {
    fields[n].vtype = RD_KAFKA_VTYPE_HEADERS;
    fields[n++].u.headers = headers;
  }
  ErrorHandle error(rd_kafka_produceva(rk_.get(), fields, n));
  if (!error) {
    if (known_topics_.insert(record.topic).second) learnTopic(record.topic);
    return Send::kQueued;
  }
  if (headers) rd_kafka_headers_destroy(headers);  // only owned by librdkafka when queued
  if (rd_kafka_error_code(error.get()) == RD_KAFKA_RESP_ERR__QUEUE_FULL) return Send::kQueueFull;
  throw std::runtime_error(fmt::format("Kafka refused a record for {}: {}", record.topic,
                                       rd_kafka_error_string(error.get())));
}

// librdkafka 2.0.2's idempotent producer asks for a new topic's partitions only at its next
// one-second topic scan, so the first records of each topic would wait up to a second: ask now.
void KafkaProducer::learnTopic(const std::string& topic) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk_.get(), topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  if (!rd_kafka_metadata(rk_.get(), 0, rkt, &md, 5000)) rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);
}

void KafkaProducer::poll(std::chrono::milliseconds timeout) {
  rd_kafka_poll(rk_.get(), rdkafkaTimeoutMs(timeout));
}

int KafkaProducer::inFlight() const {
  return rd_kafka_outq_len(rk_.get());
}

void KafkaProducer::purge() {
  rd_kafka_purge(rk_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_poll(rk_.get(), 0);
}

namespace {

// Calls `call` until it succeeds or `timeout` passed, retrying what librdkafka calls retriable (a
// coordinator not yet known, a request that timed out). Throws TransactionFailure otherwise.
template <typename Call>
void retryTransactional(const char* what, std::chrono::milliseconds timeout, Call call) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    ErrorHandle error(call(rdkafkaTimeoutMs(std::max(left, std::chrono::milliseconds(1)))));
    if (!error) return;
    if (rd_kafka_error_is_retriable(error.get()) && left.count() > 0) continue;
    throw KafkaProducer::TransactionFailure(
        fmt::format("{} failed: {}", what, rd_kafka_error_string(error.get())),
        rd_kafka_error_is_fatal(error.get()) != 0,
        rd_kafka_error_txn_requires_abort(error.get()) != 0);
  }
}

}  // namespace

void KafkaProducer::initTransactions(std::chrono::milliseconds timeout) {
  retryTransactional("initializing transactions", timeout,
                     [&](int ms) { return rd_kafka_init_transactions(rk_.get(), ms); });
}

void KafkaProducer::beginTransaction() {
  ErrorHandle error(rd_kafka_begin_transaction(rk_.get()));
  if (error)
    throw TransactionFailure(
        fmt::format("beginning a transaction failed: {}", rd_kafka_error_string(error.get())),
        rd_kafka_error_is_fatal(error.get()) != 0, false);
}

void KafkaProducer::commitTransaction(std::chrono::milliseconds timeout) {
  try {
    retryTransactional("committing the transaction", timeout,
                       [&](int ms) { return rd_kafka_commit_transaction(rk_.get(), ms); });
  } catch (const TransactionFailure& e) {
    // Only a transaction that can no longer commit is aborted: after a commit that ran out of
    // time, librdkafka allows nothing but the same commit again.
    if (e.abortable && !e.fatal) {
      try {
        abortTransaction(timeout);
      } catch (const TransactionFailure& abort) {
        spdlog::warn("after a failed commit: {}", abort.what());
      }
    }
    throw;
  }
}

std::optional<std::string> KafkaProducer::fatalError() const {
  char reason[512];
  if (rd_kafka_fatal_error(rk_.get(), reason, sizeof reason) == RD_KAFKA_RESP_ERR_NO_ERROR)
    return std::nullopt;
  return std::string(reason);
}

void KafkaProducer::abortTransaction(std::chrono::milliseconds timeout) {
  // Records first delivered (into the transaction): librdkafka 2.0.2 may end a transaction whose
  // partitions are still being added to it, which the broker refuses (INVALID_TXN_STATE) and
  // which leaves the producer unusable.
  rd_kafka_flush(rk_.get(), rdkafkaTimeoutMs(timeout));
  retryTransactional("aborting the transaction", timeout,
                     [&](int ms) { return rd_kafka_abort_transaction(rk_.get(), ms); });
}

}  // namespace ksink
