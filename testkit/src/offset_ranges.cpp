#include "offset_ranges.h"

#include <fmt/format.h>

namespace ksink::testkit {

std::string offsetRanges(const std::vector<int64_t>& sorted_offsets) {
  if (sorted_offsets.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < sorted_offsets.size();) {
    size_t j = i;
    while (j + 1 < sorted_offsets.size() && sorted_offsets[j + 1] == sorted_offsets[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? fmt::format("{}", sorted_offsets[i])
                  : fmt::format("{}..{}", sorted_offsets[i], sorted_offsets[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace ksink::testkit
