// Enum tables: what the kit keeps for each enumerator of one of its enums (a scenario's name and
// run function, a kill point's description) as one array with a row per enumerator, in declaration
// order. The table is then the one list of those enumerators, so a loop over all of them and a
// lookup of one cannot disagree. A row is a struct whose member `key` is its enumerator.
//
// A table gives up the -Wswitch check a switch has; each makes up for most of it at compile time
// with static_assert(listsEnum(kRows, Enum::kLastEnumerator)): every enumerator up to the one
// named there, once, in order. One added after it is not caught, so each such enum says where
// its table is.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace ksink::testkit {

// Whether `rows` holds exactly the enumerators up to `last`, each once, in declaration order (an
// enum without explicit values, as all the kit's are, numbers them 0, 1, …).
template <typename Row, size_t N>
constexpr bool listsEnum(const Row (&rows)[N], decltype(Row::key) last) {
  if (static_cast<size_t>(last) + 1 != N) return false;
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(rows[i].key) != i) return false;
  return true;
}

// The row of `key` in a table listsEnum() holds for; nullptr for a value that is none of the
// enum's enumerators (only a cast makes one).
template <typename Row, size_t N>
constexpr const Row* rowOf(const Row (&rows)[N], decltype(Row::key) key) {
  const auto i = static_cast<size_t>(key);
  return i < N ? &rows[i] : nullptr;
}

// The row of a table that only names its enumerators.
template <typename Enum>
struct EnumName {
  Enum key;
  std::string_view name;
};

// The name of `key` in such a table; "?" for a value that is none of the enum's enumerators.
template <typename Enum, size_t N>
constexpr std::string_view nameIn(const EnumName<Enum> (&rows)[N], Enum key) {
  const auto* row = rowOf(rows, key);
  return row ? row->name : "?";
}

// Every key of `rows`, in order.
template <typename Row, size_t N>
std::vector<decltype(Row::key)> keysOf(const Row (&rows)[N]) {
  std::vector<decltype(Row::key)> out;
  out.reserve(N);
  for (const auto& row : rows) out.push_back(row.key);
  return out;
}

}  // namespace ksink::testkit
