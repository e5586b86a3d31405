#include "source_harness.h"

#include <fmt/format.h>

#include <future>

#include "ksink/testkit/topic_reader.h"
#include "offset_ranges.h"

namespace ksink::testkit {
namespace {

constexpr std::chrono::seconds kReadTimeout{10};

}  // namespace

SourceHarness::SourceHarness(const SourceUnderTest& source, std::string_view scenario)
    : ScenarioHarness(source.name(), scenario, 1),
      source_(source),
      offsets_topic_(run().connector + "_offsets"),
      fed_(static_cast<size_t>(source.streamCount()), 0) {
  cluster().createTopic(offsets_topic_, 1);
}

void SourceHarness::feed(int count) {
  for (int stream = 0; stream < source_.streamCount(); ++stream) {
    source_.feedItems(run(), stream, fed(stream), count);
    fed_[static_cast<size_t>(stream)] += count;
  }
}

Properties SourceHarness::properties(const std::string& offsets_topic) const {
  Properties p{
      {"name", run().connector},
      {"bootstrap.servers", cluster().bootstrap()},
      {"offset.storage.topic", offsets_topic},
      {"offset.flush.interval.ms", "500"},
      {"offset.flush.timeout.ms", "1000"},
      {"task.shutdown.graceful.timeout.ms", "3000"},
  };
  for (auto& [key, value] : source_.properties(run())) p.insert_or_assign(key, value);
  return p;
}

std::unique_ptr<WorkerRunner> SourceHarness::startWorker(const std::string& offsets_topic) {
  const auto props = properties(offsets_topic.empty() ? offsets_topic_ : offsets_topic);
  return std::make_unique<WorkerRunner>(
      Config(props, source_.definitions()),
      sourceProbeFactory(
          source_.factory(), [source = source_](const SourceRecord& r) { return source.itemOf(r); },
          journal_));
}

bool SourceHarness::taskFailed() {
  const auto events = journal_->events();
  const SourceEvent* failure = firstSourceFailure(events);
  return failure && reportTaskFailure(nameOf(failure->call), failure->error);
}

bool SourceHarness::waitAcknowledged(int first_task, int64_t from, std::string_view what) {
  const auto done = [&](const std::vector<SourceEvent>& events) {
    const auto acked = acknowledged(events, first_task);
    for (int stream = 0; stream < source_.streamCount(); ++stream)
      for (int64_t i = from; i < fed(stream); ++i)
        if (!acked.contains({stream, i})) return false;
    return true;
  };
  const bool held = journal_->waitUntil(
      [&](const auto& events) { return done(events) || firstSourceFailure(events); },
      kScenarioWait);
  if (taskFailed()) return false;
  if (held) return true;
  const auto acked = acknowledged(journal_->events(), first_task);
  std::string got;
  for (int stream = 0; stream < source_.streamCount(); ++stream)
    got += fmt::format("{}{}: items {}", got.empty() ? "" : "; ", partitionOf(stream),
                       itemRanges(acked, stream));
  fail(
      fmt::format("{}: Kafka did not acknowledge items {}..{} of each stream within {} ms "
                  "(commitRecord() came for {})",
                  what, from, fed(0) - 1, kScenarioWait.count(), got));
  return false;
}

StoredOffsets SourceHarness::stored(const std::string& offsets_topic) {
  const std::string prefix = fmt::format(R"(["{}",)", run().connector);
  StoredOffsets out;
  for (const auto& r :
       readCommitted(cluster().bootstrap(), offsets_topic.empty() ? offsets_topic_ : offsets_topic,
                     0, kReadTimeout)) {
    if (!r.key || r.key->rfind(prefix, 0) != 0 || r.key->back() != ']') continue;
    out[r.key->substr(prefix.size(), r.key->size() - prefix.size() - 1)] = r.value;
  }
  return out;
}

std::string SourceHarness::copyStore(const std::string& name) {
  std::vector<TestRecord> records;
  for (const auto& r : readCommitted(cluster().bootstrap(), offsets_topic_, 0, kReadTimeout))
    records.push_back({.key = r.key, .value = r.value, .timestamp = r.timestamp});
  cluster().createTopic(name, 1);
  if (!records.empty()) cluster().produce(name, 0, records);
  return name;
}

std::map<SourceItem, std::vector<KafkaPosition>> SourceHarness::inKafka() {
  std::set<std::pair<std::string, int32_t>> partitions;
  for (const auto& e : journal_->events())
    if (e.call == SourceCall::kCommitRecord && e.metadata)
      partitions.insert({e.metadata->topic, e.metadata->partition});
  // Read side by side: each reader takes half a second to start and close.
  std::vector<std::pair<KafkaPosition, std::future<std::vector<ConsumedRecord>>>> reads;
  for (const auto& tp : partitions)
    reads.emplace_back(KafkaPosition{tp.first, tp.second, 0},
                       std::async(std::launch::async, readCommitted, cluster().bootstrap(),
                                  tp.first, tp.second, kReadTimeout));
  std::map<SourceItem, std::vector<KafkaPosition>> out;
  for (auto& [at, read] : reads)
    for (const auto& r : read.get()) {
      const auto tag = r.headers.find(std::string(kItemHeader));
      if (tag == r.headers.end()) continue;
      if (const auto item = itemOfTag(tag->second))
        out[*item].push_back({at.topic, at.partition, r.offset});
    }
  return out;
}

std::string SourceHarness::partitionOf(int stream) const {
  for (const auto& e : journal_->events())
    for (const auto& r : e.records)
      if (r.item && r.item->stream == stream) return r.partition;
  return fmt::format("stream {}", stream);
}

std::string itemRanges(const std::set<SourceItem>& items, int stream) {
  std::vector<int64_t> indexes;
  for (const auto& item : items)
    if (item.stream == stream) indexes.push_back(item.index);
  return offsetRanges(indexes);
}

}  // namespace ksink::testkit
