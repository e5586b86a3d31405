// TransactionContents: what an exactly-once source task's open transaction holds, for its end —
// the newest offset per source partition, how many records were produced (each under a token, for
// its delivery report), and, while the task wants commitRecord(), each record's id and where Kafka
// put it. A commit or an abort turns it into the calls the task is owed (SourceTaskCalls::Due).
//
// Thread-safety: none; ExactlyOnceSourceTask's lock guards it (the delivery reports come from
// inside the producer's calls, made under that lock).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ksink/record_metadata.h"
#include "source_task_calls.h"
#include "submitted_records.h"

namespace ksink {

class TransactionContents {
 public:
  // The token to produce the next record under; `keep`: its delivery report is kept for
  // commitRecord() (made room for before the send, whose report may come at once).
  uint64_t beginSend(bool keep);
  // The record of beginSend() was not produced after all (a stop while the queue was full).
  void abandonSend(bool keep);
  // The record of beginSend() was produced to `topic`.
  void produced(uint64_t record_id, const std::string& topic, bool keep);
  // A record the task polled that was not produced (dropped by a transform, or skipped).
  void notProduced(uint64_t record_id, bool keep);
  void setOffset(const std::string& key, std::optional<std::string> value);
  // The producer's report for `token`; reports of records not kept, or of an earlier
  // transaction, are ignored.
  void delivered(uint64_t token, const RecordMetadata& metadata);

  // The transaction was aborted: its records are gone, each owed commitRecord() with no metadata;
  // their offsets stay, to be committed alone.
  void aborted(SourceTaskCalls::Due& calls);
  // The transaction committed (its offsets included): each record is owed commitRecord() with
  // where Kafka put it, then the task commit(); everything is forgotten. Returns how many records
  // it produced.
  uint64_t committed(SourceTaskCalls::Due& calls);

  const OffsetEntries& offsets() const { return offsets_; }
  // The records kept for commitRecord() calls.
  size_t records() const { return records_.size(); }
  // The records produced in the open transaction.
  uint64_t produced() const { return next_token_ - first_token_; }

 private:
  struct Kept {
    uint64_t record_id;        // the driver's
    const std::string* topic;  // one of topics_; nullptr: never produced
  };
  struct Delivered {
    int32_t partition = -1;  // -1: no report yet
    int64_t offset = -1;
    int64_t timestamp = -1;
  };
  void forgetRecords();

  OffsetEntries offsets_;  // newest per source partition
  std::vector<Kept> records_;
  std::vector<Delivered> delivered_;  // the produced records of records_, in order
  uint64_t first_token_ = 0;          // the transaction's first produced record's token
  uint64_t next_token_ = 0;
  std::set<std::string, std::less<>> topics_;  // the topics written to, for Kept::topic
};

}  // namespace ksink
