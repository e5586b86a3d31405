#include "support/recording_sink.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <thread>

#include "ksink/retriable_error.h"

namespace ksink {
void PrintTo(const TopicPartition& tp, std::ostream* os) {
  *os << format_as(tp);
}
}  // namespace ksink

namespace ksink::test {
namespace {

std::string_view nameOf(CallKind kind) {
  switch (kind) {
    case CallKind::kStart:
      return "start";
    case CallKind::kOpen:
      return "open";
    case CallKind::kPut:
      return "put";
    case CallKind::kFlush:
      return "flush";
    case CallKind::kPreCommit:
      return "preCommit";
    case CallKind::kClose:
      return "close";
    case CallKind::kStop:
      return "stop";
  }
  return "?";
}

std::string describe(const OffsetMap& offsets) {
  std::vector<std::string> items;
  for (const auto& [tp, offset] : offsets) items.push_back(fmt::format("{}:{}", tp, offset));
  return fmt::format("{{{}}}", fmt::join(items, ","));
}

bool putContains(std::span<const SinkRecord> records, const TopicPartition& tp, int64_t offset) {
  return std::any_of(records.begin(), records.end(), [&](const SinkRecord& r) {
    return r.offset() == offset && r.partition() == tp.partition && r.topic() == tp.topic;
  });
}

RecordedRecord copyOf(const SinkRecord& r) {
  RecordedRecord out{r.topicPartition(), r.offset(), r.timestamp(), {}, {}, {}};
  if (r.key()) out.key = std::string(*r.key());
  if (r.value()) out.value = std::string(*r.value());
  for (const auto& h : r.headers())
    out.headers.emplace_back(
        std::string(h.key),
        h.value ? std::optional<std::string>(std::string(*h.value)) : std::nullopt);
  return out;
}

// Runs `body` as a recorded call: logged when it begins, marked finished (or thrown) when it ends.
template <typename Body>
void recorded(CallLog& log, Call call, Body&& body) {
  const size_t index = log.begin(std::move(call));
  try {
    body();
  } catch (...) {
    log.end(index, true);
    throw;
  }
  log.end(index, false);
}

}  // namespace

std::string describe(const Call& call) {
  std::string out = fmt::format("task {} {}", call.task, nameOf(call.kind));
  switch (call.kind) {
    case CallKind::kOpen:
    case CallKind::kClose:
      out += fmt::format("({})", fmt::join(call.partitions, ","));
      break;
    case CallKind::kPut: {
      std::vector<std::string> coords;
      for (const auto& r : call.records) coords.push_back(fmt::format("{}@{}", r.tp, r.offset));
      out += fmt::format("[{}]", fmt::join(coords, ","));
      break;
    }
    case CallKind::kFlush:
      out += fmt::format("({})", describe(call.offsets));
      break;
    case CallKind::kPreCommit:
      out += fmt::format("({}) -> {}", describe(call.offsets), describe(call.returned));
      break;
    default:
      break;
  }
  if (call.threw) out += " THREW";
  if (!call.finished) out += " (running)";
  return out;
}

std::string describe(const std::vector<Call>& calls) {
  std::string out;
  for (size_t i = 0; i < calls.size(); ++i) {
    // Runs of empty puts say nothing; fold them.
    if (calls[i].kind == CallKind::kPut && calls[i].records.empty() && !calls[i].threw) {
      size_t j = i;
      while (j + 1 < calls.size() && calls[j + 1].kind == CallKind::kPut &&
             calls[j + 1].records.empty() && !calls[j + 1].threw &&
             calls[j + 1].task == calls[i].task)
        ++j;
      out += fmt::format("  #{} task {} put[] x{}\n", i, calls[i].task, j - i + 1);
      i = j;
      continue;
    }
    out += fmt::format("  #{} {}\n", i, describe(calls[i]));
  }
  return out;
}

void PrintTo(const RecordedRecord& r, std::ostream* os) {
  *os << fmt::format("{}@{} key={} value={} headers={}", r.tp, r.offset, r.key ? *r.key : "null",
                     r.value ? *r.value : "null", r.headers.size());
}

std::vector<TopicPartition> sorted(std::vector<TopicPartition> partitions) {
  std::sort(partitions.begin(), partitions.end());
  return partitions;
}

size_t CallLog::begin(Call call) {
  std::lock_guard lock(mutex_);
  calls_.push_back(std::move(call));
  changed_.notify_all();
  return calls_.size() - 1;
}

void CallLog::end(size_t index, bool threw, OffsetMap returned) {
  std::lock_guard lock(mutex_);
  auto& call = calls_.at(index);
  call.finished = true;
  call.threw = threw;
  call.returned = std::move(returned);
  changed_.notify_all();
}

std::vector<Call> CallLog::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

bool CallLog::waitUntil(const std::function<bool(const std::vector<Call>&)>& condition,
                        milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return condition(calls_); });
}

std::vector<Call> select(const std::vector<Call>& calls, CallKind kind, std::optional<int> task) {
  std::vector<Call> out;
  for (const auto& c : calls)
    if (c.kind == kind && (!task || c.task == *task)) out.push_back(c);
  return out;
}

std::vector<RecordedRecord> deliveredRecords(const std::vector<Call>& calls,
                                             std::optional<int> task) {
  std::vector<RecordedRecord> out;
  for (const auto& c : calls)
    if (c.kind == CallKind::kPut && c.finished && !c.threw && (!task || c.task == *task))
      out.insert(out.end(), c.records.begin(), c.records.end());
  return out;
}

std::vector<int64_t> deliveredOffsets(const std::vector<Call>& calls, const TopicPartition& tp,
                                      std::optional<int> task) {
  std::vector<int64_t> out;
  for (const auto& r : deliveredRecords(calls, task))
    if (r.tp == tp) out.push_back(r.offset);
  return out;
}

bool deliveredAll(const std::vector<Call>& calls, const TopicPartition& tp, int64_t end) {
  const auto offsets = deliveredOffsets(calls, tp);
  const std::set<int64_t> seen(offsets.begin(), offsets.end());
  for (int64_t o = 0; o < end; ++o)
    if (!seen.contains(o)) return false;
  return true;
}

std::optional<size_t> findCall(const std::vector<Call>& calls,
                               const std::function<bool(const Call&)>& pred, size_t from) {
  for (size_t i = from; i < calls.size(); ++i)
    if (pred(calls[i])) return i;
  return std::nullopt;
}

bool contains(const Call& put, const TopicPartition& tp, int64_t offset) {
  return std::any_of(put.records.begin(), put.records.end(),
                     [&](const RecordedRecord& r) { return r.tp == tp && r.offset == offset; });
}

SinkScript& SinkScript::onStart(StartHook hook) {
  start_.push_back(std::move(hook));
  return *this;
}

SinkScript& SinkScript::onPut(PutHook hook) {
  put_.push_back(std::move(hook));
  return *this;
}
SinkScript& SinkScript::onOpen(PartitionsHook hook) {
  open_.push_back(std::move(hook));
  return *this;
}
SinkScript& SinkScript::onClose(PartitionsHook hook) {
  close_.push_back(std::move(hook));
  return *this;
}
SinkScript& SinkScript::onFlush(OffsetsHook hook) {
  flush_.push_back(std::move(hook));
  return *this;
}
SinkScript& SinkScript::onPreCommit(PreCommitHook hook) {
  pre_commit_.push_back(std::move(hook));
  return *this;
}
SinkScript& SinkScript::onStop(StopHook hook) {
  stop_.push_back(std::move(hook));
  return *this;
}

SinkScript& SinkScript::retriableOnPut(int nth, int times,
                                       std::optional<milliseconds> context_timeout) {
  auto seen = std::make_shared<std::atomic<int>>(0);
  return onPut([=](SinkTaskContext& ctx, std::span<const SinkRecord> records) {
    if (records.empty()) return;
    const int n = ++*seen;
    if (n < nth || n >= nth + times) return;
    if (context_timeout) ctx.timeout(*context_timeout);
    throw RetriableError(fmt::format("scripted retriable failure of non-empty put #{}", n));
  });
}

SinkScript& SinkScript::retriableWhenPutContains(TopicPartition tp, int64_t offset, int times,
                                                 std::optional<milliseconds> context_timeout) {
  auto seen = std::make_shared<std::atomic<int>>(0);
  return onPut([=](SinkTaskContext& ctx, std::span<const SinkRecord> records) {
    if (!putContains(records, tp, offset) || ++*seen > times) return;
    if (context_timeout) ctx.timeout(*context_timeout);
    throw RetriableError(fmt::format("scripted retriable failure at {}@{}", tp, offset));
  });
}

SinkScript& SinkScript::fatalWhenPutContains(TopicPartition tp, int64_t offset) {
  return onPut([=](SinkTaskContext&, std::span<const SinkRecord> records) {
    if (putContains(records, tp, offset))
      throw std::runtime_error(fmt::format("scripted fatal failure at {}@{}", tp, offset));
  });
}

SinkScript& SinkScript::requestCommitWhenPutContains(TopicPartition tp, int64_t offset) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  return onPut([=](SinkTaskContext& ctx, std::span<const SinkRecord> records) {
    if (putContains(records, tp, offset) && !done->exchange(true)) ctx.requestCommit();
  });
}

SinkScript& SinkScript::rewindWhenPutContains(TopicPartition tp, int64_t offset, OffsetMap rewind) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  return onPut([=](SinkTaskContext& ctx, std::span<const SinkRecord> records) {
    if (putContains(records, tp, offset) && !done->exchange(true)) ctx.offset(rewind);
  });
}

SinkScript& SinkScript::sleepInPut(milliseconds duration) {
  return onPut([=](SinkTaskContext&, std::span<const SinkRecord> records) {
    if (!records.empty()) std::this_thread::sleep_for(duration);
  });
}

SinkScript& SinkScript::rewindInOpen(OffsetMap rewind) {
  return onOpen([=](SinkTaskContext& ctx, const std::vector<TopicPartition>& partitions) {
    for (const auto& tp : partitions)
      if (auto it = rewind.find(tp); it != rewind.end()) ctx.offset(tp, it->second);
  });
}

SinkScript& SinkScript::pauseInOpen(std::vector<TopicPartition> to_pause) {
  return onOpen([=](SinkTaskContext& ctx, const std::vector<TopicPartition>& partitions) {
    std::vector<TopicPartition> mine;
    for (const auto& tp : partitions)
      if (std::find(to_pause.begin(), to_pause.end(), tp) != to_pause.end()) mine.push_back(tp);
    ctx.pause(mine);
  });
}

SinkScript& SinkScript::preCommitReturns(std::function<OffsetMap(const OffsetMap&)> f) {
  return onPreCommit([f = std::move(f)](SinkTaskContext&, const OffsetMap& current) {
    return std::optional<OffsetMap>(f(current));
  });
}

SinkScript& SinkScript::flushThrowsOnce(std::function<bool(const OffsetMap&)> when) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  return onFlush([=](SinkTaskContext&, const OffsetMap& current) {
    if (when(current) && !done->exchange(true)) throw std::runtime_error("scripted flush failure");
  });
}

RecordingSink::RecordingSink(int id, std::shared_ptr<CallLog> log,
                             std::shared_ptr<const SinkScript> script)
    : id_(id), log_(std::move(log)), script_(std::move(script)) {}

Call RecordingSink::newCall(CallKind kind) const {
  Call call;
  call.kind = kind;
  call.task = id_;
  call.at = log_->now();
  return call;
}

void RecordingSink::start(const Config&) {
  recorded(*log_, newCall(CallKind::kStart), [&] {
    for (const auto& hook : script_->start_) hook(context());
  });
}

void RecordingSink::open(const std::vector<TopicPartition>& partitions) {
  auto call = newCall(CallKind::kOpen);
  call.partitions = partitions;
  recorded(*log_, std::move(call), [&] {
    for (const auto& hook : script_->open_) hook(context(), partitions);
  });
}

void RecordingSink::put(std::span<const SinkRecord> records) {
  auto call = newCall(CallKind::kPut);
  call.records.reserve(records.size());
  for (const auto& r : records) call.records.push_back(copyOf(r));
  recorded(*log_, std::move(call), [&] {
    for (const auto& hook : script_->put_) hook(context(), records);
  });
}

void RecordingSink::flush(const OffsetMap& current_offsets) {
  auto call = newCall(CallKind::kFlush);
  call.offsets = current_offsets;
  recorded(*log_, std::move(call), [&] {
    for (const auto& hook : script_->flush_) hook(context(), current_offsets);
  });
}

OffsetMap RecordingSink::preCommit(const OffsetMap& current_offsets) {
  auto call = newCall(CallKind::kPreCommit);
  call.offsets = current_offsets;
  const size_t index = log_->begin(std::move(call));
  OffsetMap result;
  try {
    std::optional<OffsetMap> scripted;
    for (const auto& hook : script_->pre_commit_)
      if (auto r = hook(context(), current_offsets)) scripted = std::move(r);
    result = scripted ? std::move(*scripted) : SinkTask::preCommit(current_offsets);
  } catch (...) {
    log_->end(index, true);
    throw;
  }
  log_->end(index, false, result);
  return result;
}

void RecordingSink::close(const std::vector<TopicPartition>& partitions) {
  auto call = newCall(CallKind::kClose);
  call.partitions = partitions;
  recorded(*log_, std::move(call), [&] {
    for (const auto& hook : script_->close_) hook(context(), partitions);
  });
}

void RecordingSink::stop() {
  recorded(*log_, newCall(CallKind::kStop), [&] {
    for (const auto& hook : script_->stop_) hook();
  });
}

TaskFactory RecordingSink::factory(std::shared_ptr<CallLog> log,
                                   std::shared_ptr<const SinkScript> script, int first_id) {
  auto next = std::make_shared<std::atomic<int>>(first_id);
  return [log, script, next]() -> std::unique_ptr<SinkTask> {
    return std::make_unique<RecordingSink>((*next)++, log, script);
  };
}

}  // namespace ksink::test
