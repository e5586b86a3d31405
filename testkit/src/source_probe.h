// SourceProbe: the test kit's window on a source task under test. ProbeSourceTask wraps the
// author's task (each call forwarded; the task's context replaced by one whose
// OffsetStorageReader journals what was asked and answered) and writes what happened into a
// SourceJournal: start, every reader call, poll (the records it returned: their source partition
// and offset in Connect's bytes, and their item), wakeup, commitRecord (with where Kafka put the
// record), commit and stop. Each record poll() returns is tagged with its item in the header
// kItemHeader, so the kit recognises it in Kafka.
//
// Thread-safety: the journal is shared (journal.h). A probe's calls come from its task's thread
// and the worker's service thread, as the task's do.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "journal.h"
#include "ksink/record_metadata.h"
#include "ksink/source_task.h"
#include "ksink/testkit/source_under_test.h"

namespace ksink::testkit {

inline constexpr std::string_view kItemHeader = "ksink.testkit.item";

// A new call needs a row in source_probe.cpp's table of their names.
enum class SourceCall { kStart, kRead, kPoll, kWakeup, kCommitRecord, kCommit, kStop };

// A record the task returned, as the kit follows it.
struct PolledRecord {
  std::string partition;              // its source partition in Connect's bytes ("null": none)
  std::optional<std::string> offset;  // its source offset in Connect's bytes
  std::optional<SourceItem> item;
};

struct SourceEvent {
  SourceCall call = SourceCall::kStart;
  int task = 0;                                 // which task instance (numbered as made)
  std::vector<PolledRecord> records = {};       // poll: what it returned; commitRecord: the one
  std::optional<RecordMetadata> metadata = {};  // commitRecord: where Kafka put it
  std::vector<std::string> asked = {};          // read: the partitions asked, in Connect's bytes
  std::map<std::string, std::string> answered = {};  // read: partition → its stored offset
  Outcome outcome = Outcome::kRunning;
  std::string error = {};
  Clock::time_point began = {};
  Clock::time_point ended = {};
};

using SourceJournal = Journal<SourceEvent>;

// A SourceTaskFactory whose tasks wrap `inner`'s, numbered by the journal; `identify` names the
// item of each record.
SourceTaskFactory sourceProbeFactory(SourceTaskFactory inner, SourceUnderTest::IdentifyFn identify,
                                     std::shared_ptr<SourceJournal> journal);

// "<stream>:<index>", the tag's value, and back.
std::string itemTag(const SourceItem& item);
std::optional<SourceItem> itemOfTag(std::string_view tag);

// The items tasks numbered `first_task` and later got commitRecord() for (with metadata).
std::set<SourceItem> acknowledged(const std::vector<SourceEvent>& events, int first_task);
// The first start/poll/stop that threw something other than RetriableError, if any.
const SourceEvent* firstSourceFailure(const std::vector<SourceEvent>& events);
// "poll", "commitRecord", … for messages.
std::string_view nameOf(SourceCall call);

}  // namespace ksink::testkit
