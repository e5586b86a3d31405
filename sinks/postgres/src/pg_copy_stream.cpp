#include "pg_copy_stream.h"

#include <fmt/format.h>

#include <stdexcept>

#include "pg_sql.h"
#include "pg_types.h"

namespace ksink::postgres {
namespace {

// Big enough that the per-write cost vanishes, small enough that the server starts early.
constexpr size_t kSendAt = 256 * 1024;

// A schema whose encoding follows the column's type and the value's kind only (ColumnEncoder
// reads nothing else of it), as those inferred for schemaless JSON are.
bool plain(const Schema& schema) {
  return schema.name.empty() && schema.parameters.empty() && !schema.key_schema &&
         !schema.value_schema && schema.fields.empty();
}

}  // namespace

std::vector<ColumnEncoder> PgCopyStream::encoders(const PgTable& table,
                                                  const RecordMapper::Layout& layout,
                                                  size_t columns, bool timestamps_via_zone) {
  std::vector<ColumnEncoder> out;
  out.reserve(columns);
  for (size_t i = 0; i < columns; ++i) {
    const auto* target = table.column(layout.columns[i].name);
    if (!target)
      throw std::logic_error(
          fmt::format("table {} has no column {}", table.id.display(), layout.columns[i].name));
    const uint32_t type =
        PgTypes::convertedViaZone(target->type_oid, *layout.columns[i].schema, timestamps_via_zone)
            ? PgTypes::kTimestamptz
            : target->type_oid;
    out.emplace_back(type, target->element_oid, layout.columns[i].schema);
  }
  return out;
}

PgCopyStream::PgCopyStream(const PgTable& table, const RecordMapper::Layout& layout, size_t columns,
                           bool timestamps_via_zone)
    : layout_(&layout), encoders_(encoders(table, layout, columns, timestamps_via_zone)) {
  for (size_t i = 0; i < columns; ++i) columns_.push_back(layout.columns[i].name);
}

bool PgCopyStream::add(const RecordMapper::Row& row) {
  const size_t before = out_.size();
  out_.beginRow(static_cast<int16_t>(encoders_.size()));
  for (size_t i = 0; i < encoders_.size(); ++i) {
    if (!encoders_[i].binary(out_, row.values[i])) {
      out_.truncate(before);
      return false;
    }
  }
  return true;
}

bool PgCopyStream::accepts(const RecordMapper::Layout& other) const {
  if (&other == layout_) return true;
  if (other.table != layout_->table || other.key_count != layout_->key_count ||
      other.columns.size() != layout_->columns.size())
    return false;
  for (size_t i = 0; i < other.columns.size(); ++i) {
    const auto& a = layout_->columns[i];
    const auto& b = other.columns[i];
    if (a.name != b.name || a.primary_key != b.primary_key) return false;
    if (a.schema != b.schema && !(plain(*a.schema) && plain(*b.schema))) return false;
  }
  return true;
}

void PgCopyStream::begin(PgConnection& connection, std::string_view target,
                         std::string_view then) {
  target_ = target;
  auto sql = PgSql::copyFrom(target, columns_, /*binary=*/true);
  if (!then.empty()) sql = fmt::format("{}; {}", sql, then);
  connection.beginCopy(sql);
}

void PgCopyStream::flush(PgConnection& connection) {
  if (out_.size() < kSendAt) return;
  connection.putCopyData(out_.buffer());
  out_.clearBuffer();
}

int64_t PgCopyStream::finish(PgConnection& connection) {
  out_.finish();
  connection.putCopyData(out_.buffer());
  out_.clearBuffer();
  return connection.endCopy();
}

void PgCopyStream::finishLater(PgConnection& connection) {
  out_.finish();
  connection.putCopyData(out_.buffer());
  out_.clearBuffer();
  connection.endCopyLater();
}

std::string PgCopyStream::data() {
  out_.finish();
  return std::string(out_.buffer());
}

}  // namespace ksink::postgres
