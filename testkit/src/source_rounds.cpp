#include "source_rounds.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ksink::testkit {

int runRound(SourceHarness& h, int count, std::string_view what, const std::string& store) {
  const int64_t from = h.fed(0);
  h.feed(count);
  const int first = h.journal().tasks();
  auto worker = h.startWorker(store);
  const bool acknowledged = h.waitAcknowledged(first, from, what);
  h.stopWorker(worker);
  return acknowledged && !h.taskFailed() ? first : -1;
}

std::set<std::string> askedPartitions(const std::vector<SourceEvent>& events, int first_task) {
  std::set<std::string> out;
  for (const auto& e : events)
    if (e.call == SourceCall::kRead && e.task >= first_task)
      out.insert(e.asked.begin(), e.asked.end());
  return out;
}

std::string listed(const std::set<std::string>& items) {
  return items.empty() ? "nothing" : fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace ksink::testkit
