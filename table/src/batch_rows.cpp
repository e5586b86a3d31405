// RecordMapper's operations on a batch's rows as a whole: a truncate wipes the rows of its table
// before it, and upserts and updates keep one row per (table, primary key) between deletes.
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
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

bool RecordMapper::sameKey(const Row& a, const Row& b) {
  if (a.layout != b.layout &&
      (a.layout->table != b.layout->table || a.layout->key_count != b.layout->key_count))
    return false;
  for (size_t k = 0; k < a.layout->key_count; ++k)
    if (!(a.values[k] == b.values[k]) ||
        (a.layout != b.layout && a.layout->columns[k].name != b.layout->columns[k].name))
      return false;
  return true;
}

void RecordMapper::reduceByKey(std::vector<Row>& rows) {
  // Keys compare as values (no text built per row). A row's key values are never changed here,
  // so the map may point at a dropped row.
  auto hash = [](const Row* row) { return keyHash(*row); };
  auto same = [](const Row* a, const Row* b) { return sameKey(*a, *b); };
  std::unordered_map<const Row*, size_t, decltype(hash), decltype(same)> current(rows.size(), hash,
                                                                                 same);
  std::vector<uint8_t> keep(rows.size(), 1);
  for (size_t i = 0; i < rows.size(); ++i) {
    Row& row = rows[i];
    if (row.layout->key_count == 0 || row.is_truncate) continue;
    auto [it, first] = current.try_emplace(&row, i);
    if (first) continue;
    Row& earlier = rows[it->second];
    if (row.is_delete || !earlier.is_delete) {
      // A delete replaces whatever came before it; a write absorbs the earlier write's columns.
      // Either stands for the earlier row's records too: moved over, so that a key written n
      // times in a batch costs n steps, not n².
      row.absorbed = std::move(earlier.absorbed);
      row.absorbed.push_back(earlier.record);
      if (!row.is_delete) absorbColumns(row, earlier);
      keep[it->second] = 0;
    }
    // else a write after a delete: both stay, in order (the row starts again from nothing).
    it->second = i;
  }
  keepOnly(rows, keep);
}

void RecordMapper::absorbColumns(Row& later, Row& earlier) {
  const Layout& mine = *later.layout;
  const Layout& theirs = *earlier.layout;
  if (&mine == &theirs) return;
  if (merged_layouts_.size() >= kCacheLimit && !merged_layouts_.contains({&theirs, &mine}))
    merged_layouts_.clear();
  auto& merged = merged_layouts_[{&theirs, &mine}];
  if (!merged.layout) {
    // The earlier row's columns in its order (so a table created from the merged row has the
    // columns the first row would have created), each from the later row where it has one,
    // then the later row's other columns.
    auto layout = std::make_shared<Layout>();
    layout->table = mine.table;
    layout->key_count = mine.key_count;
    layout->schemaless = mine.schemaless;
    auto indexIn = [](const Layout& l, const std::string& name) -> std::optional<size_t> {
      for (size_t c = 0; c < l.columns.size(); ++c)
        if (l.columns[c].name == name) return c;
      return std::nullopt;
    };
    bool lacks = false;
    for (size_t c = 0; c < theirs.columns.size(); ++c) {
      if (auto m = indexIn(mine, theirs.columns[c].name)) {
        layout->columns.push_back(mine.columns[*m]);
        merged.picks.push_back({true, *m});
      } else {
        layout->columns.push_back(theirs.columns[c]);
        merged.picks.push_back({false, c});
        lacks = true;
      }
    }
    for (size_t c = 0; c < mine.columns.size(); ++c)
      if (!indexIn(theirs, mine.columns[c].name)) {
        layout->columns.push_back(mine.columns[c]);
        merged.picks.push_back({true, c});
      }
    merged.earlier = earlier.layout;
    merged.later = later.layout;
    // A chain of writes of one key that each lack the same column merges into the earlier
    // (already merged) layout itself, not a new one per write.
    const bool as_earlier =
        layout->columns.size() == theirs.columns.size() &&
        std::equal(layout->columns.begin(), layout->columns.end(), theirs.columns.begin(),
                   [](const Column& a, const Column& b) {
                     return a.name == b.name && a.schema == b.schema &&
                            a.primary_key == b.primary_key;
                   });
    merged.layout = !lacks ? later.layout : as_earlier ? earlier.layout : std::move(layout);
  }
  if (merged.layout == later.layout) return;  // the later row has every column already
  std::vector<Value> values;
  values.reserve(merged.picks.size());
  for (const auto& [from_later, index] : merged.picks)
    values.push_back(std::move(from_later ? later.values[index] : earlier.values[index]));
  later.values = std::move(values);
  later.layout = merged.layout;
}

}  // namespace ksink
