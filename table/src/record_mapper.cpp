#include "ksink/record_mapper.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "ksink/conversion_interrupted.h"
#include "ksink/conversion_unavailable.h"
#include "ksink/retriable_error.h"
#include "layout_columns.h"

namespace ksink {
namespace {

using PkMode = TableSinkConfig::PkMode;

char kindCode(const Value& v) {
  return static_cast<char>('a' + static_cast<int>(v.kind()));
}

// Layout cache keys count what follows instead of separating it, so that no byte a name may
// contain can make two different shapes read alike.
void appendCount(std::string& out, size_t n) {
  char digits[20];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
  out += ':';
}

void appendCounted(std::string& out, std::string_view text) {
  appendCount(out, text.size());
  out += text;
}

// Appends what identifies the shape of `sv` to a layout cache key.
void describe(std::string& out, const SchemaAndValue& sv) {
  if (sv.schema) {
    out += fmt::format("p{}", static_cast<const void*>(sv.schema.get()));
    return;
  }
  out += 's';
  if (sv.value.kind() != Value::Kind::kObject) {
    out += kindCode(sv.value);
    return;
  }
  const auto& fields = sv.value.asObject();
  appendCount(out, fields.size());
  for (const auto& [name, v] : fields) {
    appendCounted(out, name);
    out += kindCode(v);
  }
}

}  // namespace

struct RecordMapper::MappedLayout : Layout {
  std::vector<Source> sources;  // parallel to columns
  // Keeps the schemas the cache key names by address alive.
  std::shared_ptr<const Schema> key_schema, value_schema;
};

RecordMapper::RecordMapper(TableSinkConfig table_config, const Config& config)
    : RecordMapper(std::move(table_config), Converter::create(config, true),
                   Converter::create(config, false), TransformationChain(config)) {}

RecordMapper::RecordMapper(TableSinkConfig table_config, std::unique_ptr<Converter> key_converter,
                           std::unique_ptr<Converter> value_converter, TransformationChain chain)
    : config_(std::move(table_config)),
      key_converter_(std::move(key_converter)),
      value_converter_(std::move(value_converter)),
      chain_(std::move(chain)) {}

RecordMapper::~RecordMapper() = default;

const std::string& RecordMapper::tableFor(std::string_view topic) {
  lookup_key_.assign(topic);
  auto it = table_names_.find(lookup_key_);
  if (it == table_names_.end()) {
    // A router fed by record values (route.by.field, a fine-grained TimestampRouter) makes a
    // topic per value: bounded like the layouts.
    if (table_names_.size() >= kCacheLimit) table_names_.clear();
    it = table_names_.emplace(lookup_key_, config_.tableName(topic)).first;
  }
  return it->second;
}

std::shared_ptr<const RecordMapper::MappedLayout> RecordMapper::layoutFor(
    std::string_view topic, const std::string& table, const SchemaAndValue& key,
    const SchemaAndValue& value, bool is_delete) {
  const bool uses_key = config_.pk_mode == PkMode::kRecordKey;
  auto& cache_key = lookup_key_;
  cache_key.clear();
  appendCounted(cache_key, table);
  if (config_.field_filter.topic_specific) appendCounted(cache_key, topic);
  cache_key += is_delete ? 'd' : 'w';
  if (uses_key) describe(cache_key, key);
  cache_key += '|';  // the key's description never ends where the value's could begin
  if (!is_delete) describe(cache_key, value);
  if (auto it = layouts_.find(cache_key); it != layouts_.end()) return it->second;

  auto layout = std::make_shared<MappedLayout>();
  layout->table = table;
  layout->schemaless = is_delete ? !key.schema : !value.schema;
  if (uses_key) layout->key_schema = key.schema;
  if (!is_delete) layout->value_schema = value.schema;
  LayoutColumns columns(config_, topic, *layout, layout->sources);
  columns.addKeyColumns(key, value);
  layout->key_count = layout->columns.size();
  if (!is_delete) columns.addValueColumns(value);
  if (layout->columns.empty())
    throw ConversionError("the record has no fields to write (empty struct or whitelist)");

  if (layouts_.size() >= kCacheLimit) layouts_.clear();
  layouts_.emplace(cache_key, layout);
  return layout;
}

std::optional<RecordMapper::Row> RecordMapper::map(const SinkRecord& record) {
  SchemaAndValue key, value;
  if (config_.pk_mode == PkMode::kRecordKey || !chain_.empty())
    key = key_converter_->toConnectData(record.topic(), record.key());
  if (record.value()) value = value_converter_->toConnectData(record.topic(), record.value());
  std::string_view topic = record.topic();
  int32_t partition = record.partition();
  std::optional<ConnectRecord> transformed;
  std::string_view destination = topic;
  if (!chain_.empty()) {
    transformed = chain_.apply(ConnectRecord::from(record, std::move(key), std::move(value)));
    if (!transformed) return std::nullopt;
    key = std::move(transformed->key);
    value = std::move(transformed->value);
    topic = transformed->topic;
    partition = transformed->partition.value_or(partition);
    destination = transformed->destination.empty() ? topic : transformed->destination;
  }
  const auto& table = tableFor(destination);
  if (transformed && transformed->truncate) {
    if (truncate_layouts_.size() >= kCacheLimit && !truncate_layouts_.contains(table))
      truncate_layouts_.clear();
    auto& layout = truncate_layouts_[table];
    if (!layout) layout = std::make_shared<const Layout>(Layout{table, {}, 0, false});
    Row row;
    row.record = &record;
    row.is_truncate = true;
    row.layout = layout;
    return row;
  }
  const bool is_delete = value.value.isNull();  // a Kafka tombstone, or JSON null
  if (is_delete && !config_.delete_enabled) return std::nullopt;

  Row row;
  row.record = &record;
  row.is_delete = is_delete;
  auto layout = layoutFor(topic, table, key, value, is_delete);
  row.values.reserve(layout->columns.size());
  for (const auto& source : layout->sources) {
    switch (source.kind) {
      case Source::Kind::kTopic:
        row.values.push_back(Value::string(std::string(topic)));
        break;
      case Source::Kind::kPartition:
        row.values.push_back(Value::integer(partition));
        break;
      case Source::Kind::kOffset:
        row.values.push_back(Value::integer(record.offset()));
        break;
      case Source::Kind::kWholeKey:
        row.values.push_back(key.value);
        break;
      case Source::Kind::kKeyField:
        row.values.push_back(key.value.asObject()[source.index].second);
        break;
      case Source::Kind::kWholeValue:
        row.values.push_back(std::move(value.value));
        break;
      case Source::Kind::kValueField:
        // Each value field feeds one column at most; moving it out saves a copy.
        row.values.push_back(std::move(value.value.asObject()[source.index].second));
        break;
    }
  }
  for (size_t i = 0; i < layout->key_count; ++i)
    if (row.values[i].isNull())
      throw ConversionError(
          fmt::format("primary key column '{}' is null", layout->columns[i].name));
  row.layout = std::move(layout);
  return row;
}

RecordMapper::Batch RecordMapper::map(std::span<const SinkRecord> records,
                                      SinkTaskContext& context) {
  return mapAll(records, &context, {});
}

RecordMapper::Batch RecordMapper::map(std::span<const SinkRecord> records) {
  return mapAll(records, nullptr, {});
}

RecordMapper::Batch RecordMapper::map(std::span<const SinkRecord> records, SinkTaskContext& context,
                                      Mapped mapped) {
  return mapAll(records, &context, std::move(mapped));
}

RecordMapper::Batch RecordMapper::mapAll(std::span<const SinkRecord> records,
                                         SinkTaskContext* context, Mapped mapped) {
  Batch batch;
  batch.rows = std::move(mapped.rows);
  batch.rows.reserve(records.size());
  bool truncates = std::any_of(batch.rows.begin(), batch.rows.end(),
                               [](const Row& row) { return row.is_truncate; });
  for (const auto& record : records.subspan(std::min(mapped.records, records.size()))) {
    try {
      std::optional<Row> row;
      try {
        row = map(record);
      } catch (const ConversionUnavailable&) {
        throw;  // a registry outage: the whole batch waits (worker_batch_delivery), no record skips
      } catch (const RetriableError&) {
        if (!context) throw;
        context->retryConversion(std::current_exception(), [&] { row = map(record); });
      }
      if (row) {
        truncates = truncates || row->is_truncate;
        batch.rows.push_back(std::move(*row));
      }
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const ConversionInterrupted&) {
      throw;
    } catch (const ConversionUnavailable&) {
      throw;
    } catch (...) {
      batch.failures.push_back({&record, std::current_exception()});
    }
  }
  if (truncates) dropRowsBeforeTruncates(batch.rows);
  if (config_.insert_mode != TableSinkConfig::InsertMode::kInsert) reduceByKey(batch.rows);
  return batch;
}

}  // namespace ksink
