#include "destination_check.h"

#include <fmt/format.h>

#include <algorithm>

namespace ksink::testkit {

std::map<RecordId, int> copiesOf(const std::vector<StoredRecord>& held) {
  std::map<RecordId, int> copies;
  for (const auto& r : held) ++copies[{r.tp, r.offset}];
  return copies;
}

bool checkHeld(SinkHarness& harness, const std::vector<StoredRecord>& held, const OffsetMap& ends,
               Delivery delivery, std::string_view when, const std::set<RecordId>& absent) {
  const auto copies = copiesOf(held);
  bool ok = true;
  for (const auto& [tp, end] : ends) {
    std::vector<int64_t> missing, doubled, unwanted;
    for (int64_t offset = 0; offset < end; ++offset) {
      const RecordId id{tp, offset};
      const auto it = copies.find(id);
      const int n = it == copies.end() ? 0 : it->second;
      if (absent.contains(id)) {
        if (n > 0) unwanted.push_back(offset);
      } else if (n == 0) {
        missing.push_back(offset);
      } else if (n > 1 && delivery == Delivery::kExactlyOnce) {
        doubled.push_back(offset);
      }
    }
    if (!missing.empty())
      harness.fail(fmt::format("{}: {}, the destination is missing offsets {} (of 0..{})", tp, when,
                               offsetRanges(missing), end - 1));
    if (!doubled.empty())
      harness.fail(fmt::format("{}: {}, the destination holds offsets {} more than once", tp, when,
                               offsetRanges(doubled)));
    if (!unwanted.empty())
      harness.fail(fmt::format("{}: {}, the destination holds offsets {}, which it must not", tp,
                               when, offsetRanges(unwanted)));
    ok = ok && missing.empty() && doubled.empty() && unwanted.empty();
  }
  return ok;
}

void checkExactlyOnceAtEnd(SinkHarness& harness, const std::set<RecordId>& absent) {
  const SinkUnderTest& sink = harness.sink();
  if (!sink.isExactlyOnce()) return;
  const OffsetMap ends = harness.producedEnds();
  checkHeld(harness, harness.readBack(), ends, Delivery::kExactlyOnce,
            "with exactly-once declared, at the end of the run", absent);
  OffsetMap stored;
  try {
    stored = sink.storedOffsets(harness.run());
  } catch (const std::exception& e) {
    harness.fail(fmt::format("reading the offsets the task stores failed: {}", e.what()));
    return;
  }
  for (const auto& [tp, end] : ends) {
    const auto it = stored.find(tp);
    if (it == stored.end() || it->second != end)
      harness.fail(fmt::format(
          "{}: with exactly-once declared, the task stores offset {} in the destination at the "
          "end of the run, but it holds offsets 0..{}",
          tp, it == stored.end() ? std::string("none") : std::to_string(it->second), end - 1));
  }
}

}  // namespace ksink::testkit
