#include "sink_probe.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <set>

#include "enum_table.h"
#include "ksink/retriable_error.h"

namespace ksink::testkit {
namespace {

std::vector<RecordId> idsOf(std::span<const SinkRecord> records) {
  std::vector<RecordId> out;
  out.reserve(records.size());
  for (const auto& r : records) out.push_back({r.topicPartition(), r.offset()});
  return out;
}

// The errant record reporter the task sees: the worker's, with each report journaled first.
class ProbeReporter final : public ErrantRecordReporter {
 public:
  ProbeReporter(ErrantRecordReporter& inner, SinkJournal& journal, int task)
      : inner_(inner), journal_(journal), task_(task) {}

  void report(const SinkRecord& record, const std::exception& error) override {
    const size_t i = journal_.begin({.call = ProbeCall::kReport,
                                     .task = task_,
                                     .records = {{record.topicPartition(), record.offset()}},
                                     .error = error.what()});
    journal_.end(i, Outcome::kReturned, error.what());
    inner_.report(record, error);
  }
  Delivery awaitDelivered() override { return inner_.awaitDelivered(); }

 private:
  ErrantRecordReporter& inner_;
  SinkJournal& journal_;
  const int task_;
};

// The context the wrapped task sees: the worker's, except that errant records pass the probe.
class ProbeContext final : public SinkTaskContext {
 public:
  ProbeContext(SinkTaskContext& inner, SinkJournal& journal, int task)
      : inner_(inner), journal_(journal), task_(task) {}

  std::set<TopicPartition> assignment() const override { return inner_.assignment(); }
  void offset(const TopicPartition& tp, int64_t offset) override { inner_.offset(tp, offset); }
  void offset(const OffsetMap& offsets) override { inner_.offset(offsets); }
  void timeout(std::chrono::milliseconds timeout) override { inner_.timeout(timeout); }
  void pause(const std::vector<TopicPartition>& partitions) override { inner_.pause(partitions); }
  void resume(const std::vector<TopicPartition>& partitions) override { inner_.resume(partitions); }
  void requestCommit() override { inner_.requestCommit(); }
  ErrantRecordReporter* errantRecordReporter() override {
    ErrantRecordReporter* inner = inner_.errantRecordReporter();
    if (!inner) return nullptr;
    if (!reporter_ || reporter_inner_ != inner) {
      reporter_ = std::make_unique<ProbeReporter>(*inner, journal_, task_);
      reporter_inner_ = inner;
    }
    return reporter_.get();
  }
  const Config& config() const override { return inner_.config(); }
  void retryConversion(std::exception_ptr failure, const std::function<void()>& convert) override {
    inner_.retryConversion(std::move(failure), convert);
  }

 private:
  SinkTaskContext& inner_;
  SinkJournal& journal_;
  const int task_;
  std::unique_ptr<ProbeReporter> reporter_;
  ErrantRecordReporter* reporter_inner_ = nullptr;
};

class ProbeSinkTask final : public SinkTask {
 public:
  ProbeSinkTask(std::unique_ptr<SinkTask> inner, std::shared_ptr<SinkJournal> journal,
                std::shared_ptr<const ProbeHooks> hooks, int id)
      : inner_(std::move(inner)), journal_(std::move(journal)), hooks_(std::move(hooks)), id_(id) {}

  void start(const Config& config) override {
    context_.emplace(context(), *journal_, id_);
    inner_->initialize(*context_);
    journaled({.call = ProbeCall::kStart}, [&] { inner_->start(config); });
  }
  void open(const std::vector<TopicPartition>& partitions) override {
    journaled({.call = ProbeCall::kOpen, .partitions = partitions},
              [&] { inner_->open(partitions); });
  }
  void put(std::span<const SinkRecord> records) override;
  OffsetMap preCommit(const OffsetMap& current) override {
    OffsetMap returned;
    journaled(
        {.call = ProbeCall::kPreCommit, .offsets = current},
        [&] {
          kill(KillPoint::kBeforePreCommit);
          returned = inner_->preCommit(current);
          kill(KillPoint::kAfterPreCommit);
        },
        &returned);
    if (hooks_->after_pre_commit) hooks_->after_pre_commit(id_, current, returned);
    return returned;
  }
  void close(const std::vector<TopicPartition>& partitions) override {
    journaled({.call = ProbeCall::kClose, .partitions = partitions},
              [&] { inner_->close(partitions); });
  }
  void stop() override {
    journaled({.call = ProbeCall::kStop}, [&] { inner_->stop(); });
  }
  std::string version() const override { return inner_->version(); }
  bool convertsRecords() const override { return inner_->convertsRecords(); }

 private:
  // Runs `body` as a journaled call: its outcome (and a preCommit's result) recorded when it ends.
  template <typename Body>
  void journaled(ProbeEvent event, Body&& body, const OffsetMap* returned = nullptr) {
    event.task = id_;
    testkit::journaled(*journal_, std::move(event), std::forward<Body>(body),
                       [returned](ProbeEvent& e) {
                         if (returned) e.returned = *returned;
                       });
  }

  void kill(KillPoint point) {
    if (hooks_->at_kill_point) hooks_->at_kill_point(id_, point);
  }

  std::unique_ptr<SinkTask> inner_;
  std::shared_ptr<SinkJournal> journal_;
  std::shared_ptr<const ProbeHooks> hooks_;
  const int id_;
  std::optional<ProbeContext> context_;
};

void ProbeSinkTask::put(std::span<const SinkRecord> records) {
  const PutFault fault =
      records.empty() || !hooks_->put_fault ? PutFault::kNone : hooks_->put_fault(id_, records);
  ProbeEvent event{.call = ProbeCall::kPut, .records = idsOf(records)};
  event.injected = fault != PutFault::kNone;
  journaled(std::move(event), [&] {
    if (fault == PutFault::kRetriableBefore) {
      context_->timeout(std::chrono::milliseconds(50));
      throw RetriableError("test kit: the destination refused the batch (injected)");
    }
    if (fault == PutFault::kRetriableAfterHalf) {
      inner_->put(records.first(records.size() / 2));
      context_->timeout(std::chrono::milliseconds(50));
      throw RetriableError("test kit: the destination failed halfway through the batch (injected)");
    }
    if (!records.empty()) kill(KillPoint::kBeforePut);
    inner_->put(records);
    if (!records.empty()) kill(KillPoint::kAfterPut);
  });
}

}  // namespace

TaskFactory probeFactory(TaskFactory inner, std::shared_ptr<SinkJournal> journal,
                         std::shared_ptr<const ProbeHooks> hooks) {
  return [inner = std::move(inner), journal = std::move(journal),
          hooks = std::move(hooks)]() -> std::unique_ptr<SinkTask> {
    return std::make_unique<ProbeSinkTask>(inner(), journal, hooks, journal->nextTask());
  };
}

std::vector<RecordId> delivered(const std::vector<ProbeEvent>& events) {
  std::vector<RecordId> out;
  for (const auto& e : events)
    if (e.call == ProbeCall::kPut && e.outcome == Outcome::kReturned)
      out.insert(out.end(), e.records.begin(), e.records.end());
  return out;
}

bool deliveredAll(const std::vector<ProbeEvent>& events, const TopicPartition& tp, int64_t end) {
  std::vector<bool> seen(static_cast<size_t>(end), false);
  for (const auto& r : delivered(events))
    if (r.tp == tp && r.offset >= 0 && r.offset < end) seen[static_cast<size_t>(r.offset)] = true;
  return std::find(seen.begin(), seen.end(), false) == seen.end();
}

bool deliveredAll(const std::vector<ProbeEvent>& events, const OffsetMap& ends) {
  return std::all_of(ends.begin(), ends.end(),
                     [&](const auto& end) { return deliveredAll(events, end.first, end.second); });
}

const ProbeEvent* firstFailure(const std::vector<ProbeEvent>& events, const std::set<int>& except) {
  for (const auto& e : events)
    if (e.outcome == Outcome::kFailed && !except.contains(e.task)) return &e;
  return nullptr;
}

size_t preCommits(const std::vector<ProbeEvent>& events) {
  return static_cast<size_t>(std::count_if(events.begin(), events.end(), [](const ProbeEvent& e) {
    return e.call == ProbeCall::kPreCommit && e.outcome == Outcome::kReturned;
  }));
}

// The calls' names, as the kit's failures name them.
constexpr EnumName<ProbeCall> kCallNames[] = {
    {ProbeCall::kStart, "start"},         {ProbeCall::kOpen, "open"},   {ProbeCall::kPut, "put"},
    {ProbeCall::kPreCommit, "preCommit"}, {ProbeCall::kClose, "close"}, {ProbeCall::kStop, "stop"},
    {ProbeCall::kReport, "report"},
};
static_assert(listsEnum(kCallNames, ProbeCall::kReport));

std::string_view nameOf(ProbeCall call) {
  return nameIn(kCallNames, call);
}

}  // namespace ksink::testkit
