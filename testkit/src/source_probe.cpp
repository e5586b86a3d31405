#include "source_probe.h"

#include <fmt/format.h>

#include <charconv>

#include "enum_table.h"
#include "ksink/connect_json.h"

namespace ksink::testkit {
namespace {

std::string bytesOf(const std::optional<SourceMap>& map) {
  return map ? toConnectJson(*map) : "null";
}

// The reader the wrapped task sees: the worker's, each call journaled with its answer.
class ProbeReader final : public OffsetStorageReader {
 public:
  ProbeReader(const OffsetStorageReader& inner, SourceJournal& journal, int task)
      : inner_(inner), journal_(journal), task_(task) {}

  std::optional<SourceMap> offset(const SourceMap& partition) const override {
    std::optional<SourceMap> answer;
    journaled(
        journal_,
        SourceEvent{.call = SourceCall::kRead, .task = task_, .asked = {bytesOf(partition)}},
        [&] { answer = inner_.offset(partition); },
        [&](SourceEvent& e) {
          if (answer) e.answered[bytesOf(partition)] = toConnectJson(*answer);
        });
    return answer;
  }
  std::vector<std::pair<SourceMap, SourceMap>> offsets(
      const std::vector<SourceMap>& partitions) const override {
    SourceEvent event{.call = SourceCall::kRead, .task = task_};
    for (const auto& p : partitions) event.asked.push_back(bytesOf(p));
    std::vector<std::pair<SourceMap, SourceMap>> answer;
    journaled(
        journal_, std::move(event), [&] { answer = inner_.offsets(partitions); },
        [&](SourceEvent& e) {
          for (const auto& [p, o] : answer) e.answered[bytesOf(p)] = toConnectJson(o);
        });
    return answer;
  }

 private:
  const OffsetStorageReader& inner_;
  SourceJournal& journal_;
  const int task_;
};

// The context the wrapped task sees: the worker's, but for the reader.
class ProbeSourceContext final : public SourceTaskContext {
 public:
  ProbeSourceContext(SourceTaskContext& inner, SourceJournal& journal, int task)
      : inner_(inner), reader_(inner.offsetStorageReader(), journal, task) {}
  const Config& config() const override { return inner_.config(); }
  const OffsetStorageReader& offsetStorageReader() const override { return reader_; }
  TransactionContext* transactionContext() override { return inner_.transactionContext(); }

 private:
  SourceTaskContext& inner_;
  ProbeReader reader_;
};

class ProbeSourceTask final : public SourceTask {
 public:
  ProbeSourceTask(std::unique_ptr<SourceTask> inner, SourceUnderTest::IdentifyFn identify,
                  std::shared_ptr<SourceJournal> journal, int id)
      : inner_(std::move(inner)),
        identify_(std::move(identify)),
        journal_(std::move(journal)),
        id_(id) {}

  void start(const Config& config) override {
    context_.emplace(context(), *journal_, id_);
    inner_->initialize(*context_);
    journaled(*journal_, event(SourceCall::kStart), [&] { inner_->start(config); });
  }
  std::vector<SourceRecord> poll() override;
  void wakeup() override {
    journaled(*journal_, event(SourceCall::kWakeup), [&] { inner_->wakeup(); });
  }
  void commit() override {
    journaled(*journal_, event(SourceCall::kCommit), [&] { inner_->commit(); });
  }
  void commitRecord(const SourceRecord& record,
                    const std::optional<RecordMetadata>& metadata) override {
    SourceEvent e = event(SourceCall::kCommitRecord);
    e.records.push_back(followed(record));
    e.metadata = metadata;
    journaled(*journal_, std::move(e), [&] { inner_->commitRecord(record, metadata); });
  }
  void stop() override {
    journaled(*journal_, event(SourceCall::kStop), [&] { inner_->stop(); });
  }
  std::string version() const override { return inner_->version(); }

 private:
  SourceEvent event(SourceCall call) const { return {.call = call, .task = id_}; }
  // What the kit follows of a record; its item from the tag when it has one (commitRecord()).
  PolledRecord followed(const SourceRecord& record) const {
    PolledRecord out{bytesOf(record.sourcePartition()), std::nullopt, std::nullopt};
    if (record.sourceOffset()) out.offset = toConnectJson(*record.sourceOffset());
    for (const auto& h : record.headers())
      if (h.key == kItemHeader && h.value.value.kind() == Value::Kind::kString)
        out.item = itemOfTag(h.value.value.asString());
    return out;
  }

  std::unique_ptr<SourceTask> inner_;
  SourceUnderTest::IdentifyFn identify_;
  std::shared_ptr<SourceJournal> journal_;
  const int id_;
  std::optional<ProbeSourceContext> context_;
};

std::vector<SourceRecord> ProbeSourceTask::poll() {
  std::vector<SourceRecord> records;
  std::vector<PolledRecord> seen;
  journaled(
      *journal_, event(SourceCall::kPoll),
      [&] {
        for (auto& r : inner_->poll()) {
          PolledRecord p = followed(r);
          p.item = identify_(r);
          auto headers = r.headers();
          if (p.item)
            headers.push_back({std::string(kItemHeader),
                               SchemaAndValue{nullptr, Value::string(itemTag(*p.item))}});
          records.emplace_back(r.sourcePartition(), r.sourceOffset(), r.topic(), r.kafkaPartition(),
                               r.keyAndSchema(), r.valueAndSchema(), r.timestamp(),
                               std::move(headers));
          seen.push_back(std::move(p));
        }
      },
      [&](SourceEvent& e) { e.records = std::move(seen); });
  return records;
}

}  // namespace

SourceTaskFactory sourceProbeFactory(SourceTaskFactory inner, SourceUnderTest::IdentifyFn identify,
                                     std::shared_ptr<SourceJournal> journal) {
  return [inner = std::move(inner), identify = std::move(identify),
          journal = std::move(journal)]() -> std::unique_ptr<SourceTask> {
    return std::make_unique<ProbeSourceTask>(inner(), identify, journal, journal->nextTask());
  };
}

std::string itemTag(const SourceItem& item) {
  return fmt::format("{}:{}", item.stream, item.index);
}

std::optional<SourceItem> itemOfTag(std::string_view tag) {
  const auto colon = tag.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  SourceItem item;
  const auto* end = tag.data() + tag.size();
  if (std::from_chars(tag.data(), tag.data() + colon, item.stream).ec != std::errc() ||
      std::from_chars(tag.data() + colon + 1, end, item.index).ec != std::errc())
    return std::nullopt;
  return item;
}

std::set<SourceItem> acknowledged(const std::vector<SourceEvent>& events, int first_task) {
  std::set<SourceItem> out;
  for (const auto& e : events)
    if (e.call == SourceCall::kCommitRecord && e.task >= first_task && e.metadata &&
        !e.records.empty() && e.records.front().item)
      out.insert(*e.records.front().item);
  return out;
}

const SourceEvent* firstSourceFailure(const std::vector<SourceEvent>& events) {
  for (const auto& e : events)
    if (e.outcome == Outcome::kFailed &&
        (e.call == SourceCall::kStart || e.call == SourceCall::kPoll ||
         e.call == SourceCall::kStop))
      return &e;
  return nullptr;
}

// The calls' names, as the kit's failures name them.
constexpr EnumName<SourceCall> kCallNames[] = {
    {SourceCall::kStart, "start"},
    {SourceCall::kRead, "offsetStorageReader().offset"},
    {SourceCall::kPoll, "poll"},
    {SourceCall::kWakeup, "wakeup"},
    {SourceCall::kCommitRecord, "commitRecord"},
    {SourceCall::kCommit, "commit"},
    {SourceCall::kStop, "stop"},
};
static_assert(listsEnum(kCallNames, SourceCall::kStop));

std::string_view nameOf(SourceCall call) {
  return nameIn(kCallNames, call);
}

}  // namespace ksink::testkit
