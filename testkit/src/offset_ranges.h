// Offsets (or item numbers) as compact ranges for the kit's failure messages: "0..4, 7, 9..12".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ksink::testkit {

// "0..4, 7, 9..12" for sorted offsets; "none" for none.
std::string offsetRanges(const std::vector<int64_t>& sorted_offsets);

}  // namespace ksink::testkit
