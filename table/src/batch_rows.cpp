// RecordMapper's operations on a batch's rows as a whole: a truncate wipes the rows of its table
// before it, and upserts keep only the last row per (table, primary key).
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ksink/record_mapper.h"

namespace ksink {
namespace {

// A hash of a key value consistent with Value's operator==.
size_t mixHash(size_t h, size_t x) {
  return h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

size_t hashOf(const Value& v) {
  const auto kind = static_cast<size_t>(v.kind());
  switch (v.kind()) {
    case Value::Kind::kNull:
      return kind;
    case Value::Kind::kBoolean:
      return mixHash(kind, v.asBoolean() ? 1 : 0);
    case Value::Kind::kInt:
      return mixHash(kind, std::hash<int64_t>{}(v.asInt()));
    case Value::Kind::kDouble:
      return mixHash(kind, std::hash<double>{}(v.asDouble()));
    case Value::Kind::kString:
      return mixHash(kind, std::hash<std::string>{}(v.asString()));
    case Value::Kind::kBytes:
      return mixHash(kind, std::hash<std::string>{}(v.asBytes()));
    case Value::Kind::kArray:
    case Value::Kind::kObject:
      return kind;  // rare as keys: equal ones collide, operator== tells them apart
  }
  return kind;
}

// Removes the rows whose `keep` entry is 0, keeping the others' order.
void keepOnly(std::vector<RecordMapper::Row>& rows, const std::vector<uint8_t>& keep) {
  size_t out = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (keep[i]) {
      if (out != i) rows[out] = std::move(rows[i]);
      ++out;
    }
  rows.resize(out);
}

}  // namespace

void RecordMapper::dropRowsBeforeTruncates(std::vector<Row>& rows) {
  // From the end: a row of a table truncated later in the batch would be wiped anyway, and of
  // several truncates of a table only the last matters.
  std::unordered_set<std::string> truncated_later;
  std::vector<uint8_t> keep(rows.size(), 1);
  for (size_t i = rows.size(); i-- > 0;) {
    const auto& table = rows[i].layout->table;
    if (truncated_later.contains(table))
      keep[i] = 0;
    else if (rows[i].is_truncate)
      truncated_later.insert(table);
  }
  keepOnly(rows, keep);
}

size_t RecordMapper::keyHash(const Row& row) {
  size_t h = std::hash<std::string>{}(row.layout->table);
  for (size_t k = 0; k < row.layout->key_count; ++k) h = mixHash(h, hashOf(row.values[k]));
  return h;
}

void RecordMapper::reduceToLastPerKey(std::vector<Row>& rows) {
  // Keys compare as values (no text built per row): the table, then each key column's value.
  auto hash = [](const Row* row) { return keyHash(*row); };
  auto same = [](const Row* a, const Row* b) {
    if (a->layout != b->layout &&
        (a->layout->table != b->layout->table || a->layout->key_count != b->layout->key_count))
      return false;
    for (size_t k = 0; k < a->layout->key_count; ++k)
      if (!(a->values[k] == b->values[k])) return false;
    return true;
  };
  std::unordered_set<const Row*, decltype(hash), decltype(same)> seen(rows.size(), hash, same);
  std::vector<uint8_t> keep(rows.size(), 1);
  for (size_t i = rows.size(); i-- > 0;) {
    if (rows[i].layout->key_count == 0) continue;
    if (!seen.insert(&rows[i]).second) keep[i] = 0;
  }
  keepOnly(rows, keep);
}

}  // namespace ksink
