#include "unknown_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace ksink {
namespace {

// Within this many edits a key is taken for a misspelling of the known one.
constexpr size_t kMisspelt = 2;

}  // namespace

size_t editDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance, three rows.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

UnknownKeys findUnknownKeys(const ConfigDef& def,
                            const std::map<std::string, std::string>& values) {
  UnknownKeys out;
  for (const auto& [key, value] : values) {
    if (def.claims(key)) continue;
    const std::string* closest = nullptr;
    size_t best = kMisspelt + 1;
    for (const auto& [known, _] : def.keys()) {
      // Cheap bound first: the lengths alone differ by more than the threshold.
      if (known.size() + kMisspelt < key.size() || key.size() + kMisspelt < known.size()) continue;
      if (const size_t d = editDistance(key, known); d < best) {
        best = d;
        closest = &known;
      }
    }
    if (closest && closest->size() > kMisspelt * 2)
      out.misspelt.push_back(
          {key, fmt::format("is not a key ksink knows; did you mean `{}`?", *closest)});
    else
      out.ignored.push_back(fmt::format("{}: not a key ksink knows; ignored", key));
  }
  return out;
}

}  // namespace ksink
