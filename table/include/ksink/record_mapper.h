// RecordMapper: turns SinkRecords into table rows for the table sinks, following TableSinkConfig:
// the table name (table.name.format), the columns (from the record's schema, or inferred from a
// schemaless JSON object), the primary key per pk.mode (kafka = __connect_topic,
// __connect_partition, __connect_offset; record_key; record_value), fields.whitelist, and
// tombstones (a null value) → delete when delete.enabled (skipped otherwise).
//
// Columns come in a Layout shared by every row of the same table and schema, so a sink can cache
// per-layout work (prepared statements, "does the table have these columns") by pointer. Primary
// key columns come first.
//
// Bad records (conversion errors, a missing key field) come back as failures carrying the record,
// so the sink hands them to the errant record reporter or fails the task naming the record's
// coordinates; they never abort the rest of the batch here. A conversion that throws
// RetriableError (a converter whose backing service is briefly away) is retried first, when the
// batch is mapped in a task's context: see map(records, context). A ConversionUnavailable (a
// schema registry that cannot be reached) is no record's fault and propagates at once, from
// either map(): the caller's batch is delivered again later, none of it skipped.
//
// Single message transforms: the connector's `transforms=` chain (transformation_chain.h) runs on
// each record after conversion and before mapping. A transform may drop the record (no row), turn
// it into a tombstone (a delete) or route it (`topic` picks the table and feeds pk.mode=kafka's
// topic column); the row keeps the original SinkRecord, whose coordinates are what is committed.
// With a chain, the key is always converted (transforms may read it), as in Connect.
//
// Thread-safety: owns the key/value converters, the chain and caches; one per task (thread).
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ksink/converter.h"
#include "ksink/schema.h"
#include "ksink/sink_record.h"
#include "ksink/sink_task_context.h"
#include "ksink/table_sink_config.h"
#include "ksink/transformation_chain.h"
#include "ksink/value.h"

namespace ksink {

class RecordMapper {
 public:
  struct Column {
    std::string name;
    // Never null. For schemaless input: inferred from the JSON value (int64, float64, boolean,
    // string; nested objects and arrays as kMap / kArray), always optional.
    std::shared_ptr<const Schema> schema;
    bool primary_key = false;
  };

  struct Layout {
    std::string table;
    std::vector<Column> columns;  // key columns first
    size_t key_count = 0;         // how many of `columns` form the primary key
    bool schemaless = false;      // inferred from JSON without a schema
  };

  struct Row {
    const SinkRecord* record = nullptr;  // valid as long as the records passed to map()
    // Earlier records of its key whose columns it absorbed (reduceByKey), in order: a row the
    // destination rejects is reported as each of them too, since any of their values may be the
    // one at fault and none of them was written.
    std::vector<const SinkRecord*> absorbed;
    template <class F>
    void forEachRecord(F&& f) const {
      for (const SinkRecord* r : absorbed) f(*r);
      f(*record);
    }
    bool is_delete = false;  // a tombstone with delete.enabled: only key columns
    // Empty the table (ConnectRecord::truncate): the layout names the table and has no columns.
    // A batch keeps no row of that table before its truncate (they would be wiped anyway), so a
    // sink may truncate first and then write the batch's rows.
    bool is_truncate = false;
    std::shared_ptr<const Layout> layout;
    std::vector<Value> values;  // one per layout->columns entry
  };

  struct Failure {
    const SinkRecord* record = nullptr;
    std::exception_ptr error;  // a ConversionError (or whatever the converter threw)
  };

  struct Batch {
    std::vector<Row> rows;  // in record order (after reduction: the surviving rows, in order)
    std::vector<Failure> failures;
  };

  // Converters and the transformation chain are built from `config` (key.converter /
  // value.converter, transforms / predicates); throws ConfigException for a bad chain.
  RecordMapper(TableSinkConfig table_config, const Config& config);
  RecordMapper(TableSinkConfig table_config, std::unique_ptr<Converter> key_converter,
               std::unique_ptr<Converter> value_converter, TransformationChain chain = {});
  ~RecordMapper();
  RecordMapper(const RecordMapper&) = delete;
  RecordMapper& operator=(const RecordMapper&) = delete;

  // One record: its row, or nullopt for a tombstone that is skipped (delete.enabled=false).
  // Throws ConversionError for a bad record (or what the converter threw).
  std::optional<Row> map(const SinkRecord& record);

  // Every record of a batch. In upsert and update modes the rows are then reduced by key
  // (reduceByKey), so a key written and then deleted in one batch is only deleted.
  // A record whose conversion throws RetriableError is retried through
  // context.retryConversion() (errors.retry.timeout, errors.retry.delay.max.ms) and becomes a
  // failure only when that gives up. If the task stops meanwhile, the RetriableError it throws
  // propagates (the record is not the one at fault). Blocks for the retries: on the task thread.
  Batch map(std::span<const SinkRecord> records, SinkTaskContext& context);
  // The same without retries: a RetriableError from a converter is a failure at once.
  Batch map(std::span<const SinkRecord> records);

  // Rows already mapped from the head of a batch, e.g. by a sink's fast path that gave up
  // part-way: the rows (in order) of its first `records` records; a skipped tombstone gave none.
  struct Mapped {
    size_t records = 0;
    std::vector<Row> rows;
  };
  // As map(records, context), taking the first `mapped.records` records' rows from `mapped`, so
  // no record is converted (and transformed) twice.
  Batch map(std::span<const SinkRecord> records, SinkTaskContext& context, Mapped mapped);

  // What applying the rows one by one gives, with one row per (table, primary key) between
  // deletes, in their original relative order: a write absorbs the columns of the earlier write
  // of its key that it lacks (its own values win; the row gets a merged layout), so the earlier
  // goes; a delete makes the rows of its key before it go; a write after a delete stays behind
  // it (the row starts again with only that write's columns), so a writer must keep the order of
  // rows that share a key. Rows without a key are kept as they are.
  void reduceByKey(std::vector<Row>& rows);
  // Removes the rows of a table that come before a later truncate of it (and earlier truncates).
  static void dropRowsBeforeTruncates(std::vector<Row>& rows);
  // Hash of a row's (table, primary key values): rows with the same key have the same hash.
  static size_t keyHash(const Row& row);
  // Whether two rows have the same key: table, key column names and values.
  static bool sameKey(const Row& a, const Row& b);

  const TableSinkConfig& config() const { return config_; }

 private:
  struct MappedLayout;
  Batch mapAll(std::span<const SinkRecord> records, SinkTaskContext* context, Mapped mapped);
  void absorbColumns(Row& later, Row& earlier);
  const std::string& tableFor(std::string_view topic);
  std::shared_ptr<const MappedLayout> layoutFor(std::string_view topic, const std::string& table,
                                                const SchemaAndValue& key,
                                                const SchemaAndValue& value, bool is_delete);

  TableSinkConfig config_;
  std::unique_ptr<Converter> key_converter_;
  std::unique_ptr<Converter> value_converter_;
  TransformationChain chain_;
  // Each cache below is cleared when it reaches this many entries (rows keep their layouts).
  static constexpr size_t kCacheLimit = 4096;
  // Layouts by what produced them: table, schemas by pointer (the layout keeps them alive, so a
  // pointer is never reused while cached) or the inferred field types of schemaless data.
  std::unordered_map<std::string, std::shared_ptr<const MappedLayout>> layouts_;
  std::unordered_map<std::string, std::shared_ptr<const Layout>> truncate_layouts_;  // by table
  std::unordered_map<std::string, std::string> table_names_;  // topic → table
  // reduceByKey's layouts of a write that absorbed an earlier one, by (earlier, later) layout;
  // each entry holds both, so neither address is reused while it is cached.
  struct MergedLayout {
    std::shared_ptr<const Layout> layout;  // the later layout itself when it lacks nothing
    std::shared_ptr<const Layout> earlier, later;
    std::vector<std::pair<bool, size_t>> picks;  // per column: (from the later row?, its index)
  };
  struct LayoutPairHash {
    size_t operator()(const std::pair<const Layout*, const Layout*>& p) const {
      return std::hash<const void*>{}(p.first) * 31 + std::hash<const void*>{}(p.second);
    }
  };
  std::unordered_map<std::pair<const Layout*, const Layout*>, MergedLayout, LayoutPairHash>
      merged_layouts_;
  std::string lookup_key_;  // reused to avoid allocations
};

}  // namespace ksink
