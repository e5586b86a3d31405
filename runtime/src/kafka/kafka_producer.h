// KafkaProducer: a librdkafka producer for records given as bytes, whose acknowledgements come
// back through a callback with the token each record was sent with. A source task's records go
// through one; so do the offsets a source connector stores in its offsets topic.
//
// send() may run on one thread while poll() serves acknowledgements on another (librdkafka's
// producer is thread-safe); the delivery callback runs inside poll(), on the calling
// thread, and must not throw (an exception from it is caught and logged).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "producer_record_bytes.h"
#include "ksink/record_metadata.h"

struct rd_kafka_s;

namespace ksink {

class KafkaProducer {
 public:
  // `error`: nullopt when Kafka acknowledged the record, else librdkafka's reason.
  using Delivery = std::function<void(uint64_t token, const std::optional<std::string>& error,
                                      const RecordMetadata& metadata)>;
  // `properties` are librdkafka's; throws std::runtime_error naming a property it refuses.
  KafkaProducer(const std::map<std::string, std::string>& properties, Delivery on_delivery);
  ~KafkaProducer();
  KafkaProducer(const KafkaProducer&) = delete;
  KafkaProducer& operator=(const KafkaProducer&) = delete;

  enum class Send { kQueued, kQueueFull };
  // Queues the record (copied). kQueueFull: the producer's buffer is full; poll() and send again.
  // Throws std::runtime_error when librdkafka refuses the record outright (too large, an unknown
  // partition): no retry can help.
  Send send(const detail::ProducerRecordBytes& record, uint64_t token);
  // Serves acknowledgements for up to `timeout`.
  void poll(std::chrono::milliseconds timeout);
  // Records sent and not yet acknowledged (librdkafka's out queue, requests included).
  int inFlight() const;
  // Drops every record not yet sent to a broker (they are reported as failed): a task abandoned
  // by a stop that ran out of time.
  void purge();
  rd_kafka_s* handle() const { return rk_.get(); }

  // Transactions, for a producer made with transactional.id (KIP-98). Each throws
  // TransactionFailure once the call cannot succeed; a retriable error is retried until `timeout`.
  struct TransactionFailure : std::runtime_error {
    TransactionFailure(const std::string& what, bool fatal, bool abortable)
        : std::runtime_error(what), fatal(fatal), abortable(abortable) {}
    // The producer can make no more transactions: fenced by a newer producer with its id (a
    // zombie), or another fatal error.
    bool fatal;
    // The transaction cannot commit and must be aborted (librdkafka's txn_requires_abort); else,
    // for a commit that ran out of time, its outcome is not known.
    bool abortable;
  };
  // Fences every older producer with this transactional.id, aborting a transaction one left open.
  void initTransactions(std::chrono::milliseconds timeout);
  void beginTransaction();
  // Sends what is queued, then commits. A transaction that cannot commit is aborted before this
  // throws (abortable); one whose commit ran out of time may still commit.
  void commitTransaction(std::chrono::milliseconds timeout);
  // Drops what is queued and aborts: read_committed consumers never see the records.
  void abortTransaction(std::chrono::milliseconds timeout);
  // librdkafka's fatal error, once it has one (a transactional producer fenced by a newer one):
  // the producer can do nothing more.
  std::optional<std::string> fatalError() const;

 private:
  struct Deleter {
    void operator()(rd_kafka_s* rk) const;
  };
  void learnTopic(const std::string& topic);

  std::set<std::string, std::less<>> known_topics_;  // send()'s
  std::unique_ptr<Delivery> on_delivery_;            // its address is librdkafka's opaque
  std::unique_ptr<rd_kafka_s, Deleter> rk_;
};

}  // namespace ksink
