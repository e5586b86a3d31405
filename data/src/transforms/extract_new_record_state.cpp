// Debezium's ExtractNewRecordState: a change event's envelope
// {before, after, source, op, ts_ms, transaction} becomes the row state it describes.
//
//   c / r / u      → the `after` struct (+ __deleted=false in the rewrite modes)
//   d              → per delete.tombstone.handling.mode: dropped (drop), a tombstone (tombstone,
//                    the default, and delete-to-tombstone), the `before` struct + __deleted=true
//                    (rewrite, rewrite-with-tombstone)
//   tombstone      → kept only in rewrite-with-tombstone (the delete event already carries it)
//   t              → dropped: a truncate has no row state; with the ksink key
//                    truncate.handling.mode=truncate (which the Debezium JDBC sink class sets for
//                    truncate.enabled=true) it becomes a record that empties the table
//   m              → dropped: a logical-decoding message has no row state
//   not an envelope (a record without Debezium's envelope schema): passed on unchanged, as
//                    Debezium does.
// The older keys drop.tombstones + delete.handling.mode (drop | none | rewrite) are honoured when
// delete.tombstone.handling.mode is not set. Unlike Debezium, a schemaless envelope (JSON with
// schemas.enable=false) is unwrapped too, instead of being written whole.
//
// add.fields / add.headers take envelope fields (op, ts_ms, ts_us, ts_ns), source fields (name
// or source.name) and transaction fields (id, total_order, data_collection_order), each optionally
// renamed with `field:new_name`, prefixed with add.fields.prefix / add.headers.prefix.
// route.by.field names a row field whose value becomes the topic (so the destination table):
// `after`'s for a change, `before`'s for a delete (its tombstone too), as Debezium routes them; a
// routed stream's own tombstones are dropped, and truncate.handling.mode=truncate is refused with
// it (neither has a row to route by).
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "builtin_transforms.h"
#include "ksink/config_exception.h"
#include "ksink/conversion_error.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

constexpr std::string_view kDeletedField = "__deleted";
constexpr std::string_view kEnvelopeSuffix = ".Envelope";

enum class Tombstones { kDrop, kKeep };
enum class Deletes { kDrop, kTombstone, kRewrite };

// One add.fields / add.headers entry: where the value is read and the name it gets.
struct FieldReference {
  std::string parent;  // "" (the envelope itself), "source" or "transaction"
  std::string field;
  std::string new_name;

  static FieldReference parse(std::string_view entry, const std::string& prefix,
                              const std::string& key) {
    FieldReference out;
    std::string_view path = entry, renamed;
    if (auto colon = entry.find(':'); colon != std::string_view::npos) {
      path = entry.substr(0, colon);
      renamed = entry.substr(colon + 1);
      if (renamed.empty() || renamed.find(':') != std::string_view::npos)
        throw ConfigException({{key, fmt::format("'{}' is not field or field:new_name", entry)}});
    }
    if (auto dot = path.find('.'); dot != std::string_view::npos) {
      out.parent = path.substr(0, dot);
      out.field = path.substr(dot + 1);
    } else {
      out.field = path;
      if (out.field == "id" || out.field == "total_order" || out.field == "data_collection_order")
        out.parent = "transaction";
      else if (out.field != "op" && out.field != "ts_ms" && out.field != "ts_us" &&
               out.field != "ts_ns")
        out.parent = "source";
    }
    if (out.field.empty() || (path.find('.') != std::string_view::npos && out.parent.empty()))
      throw ConfigException({{key, fmt::format("'{}' names no field", entry)}});
    if (!renamed.empty())
      out.new_name = prefix + std::string(renamed);
    else
      out.new_name =
          prefix +
          (path.find('.') == std::string_view::npos ? out.field : out.parent + "_" + out.field);
    return out;
  }

  // The schema (optional) and value of this field in `envelope`; nullopt when it has none.
  std::optional<SchemaAndValue> read(const SchemaAndValue& envelope) const {
    const SchemaAndValue* host = &envelope;
    SchemaAndValue parent_part;
    if (!parent.empty()) {
      const Value* v = envelope.value.find(parent);
      const Schema::Field* f = envelope.schema ? envelope.schema->field(parent) : nullptr;
      if (envelope.schema && !f) return std::nullopt;
      parent_part.schema = f ? f->schema : nullptr;
      parent_part.value = v ? *v : Value();
      host = &parent_part;
    }
    // A field another transform put on the envelope itself is found there too, as Debezium does.
    auto lookup = [&](const SchemaAndValue& in) -> std::optional<SchemaAndValue> {
      if (in.schema) {
        const auto* f = in.schema->field(field);
        if (!f) return std::nullopt;
        const Value* v = in.value.find(field);
        auto schema = std::make_shared<Schema>(*f->schema);
        schema->optional = true;
        return SchemaAndValue{std::move(schema), v ? *v : Value()};
      }
      if (in.value.kind() != Value::Kind::kObject) return std::nullopt;
      const Value* v = in.value.find(field);
      if (!v) return std::nullopt;
      return SchemaAndValue{nullptr, *v};
    };
    if (auto found = lookup(*host)) return found;
    if (host != &envelope) return lookup(envelope);
    return std::nullopt;
  }
};

std::vector<FieldReference> parseReferences(const Config& config, const char* list_key,
                                            const char* prefix_key) {
  std::vector<FieldReference> out;
  const auto prefix = config.getString(prefix_key);
  for (const auto& entry : config.getList(list_key))
    out.push_back(FieldReference::parse(entry, prefix, list_key));
  return out;
}

class ExtractNewRecordState final : public BuiltinTransform<ExtractNewRecordState> {
 public:
  static ConfigDef definition() {
    using Type = ConfigDef::Type;
    using Importance = ConfigDef::Importance;
    ConfigDef d;
    d.define("delete.tombstone.handling.mode", Type::kString, "", Importance::kMedium,
             "drop | tombstone (the default) | rewrite | rewrite-with-tombstone | "
             "delete-to-tombstone",
             [](std::string_view v) -> std::optional<std::string> {
               if (v.empty() || v == "drop" || v == "tombstone" || v == "rewrite" ||
                   v == "rewrite-with-tombstone" || v == "delete-to-tombstone")
                 return std::nullopt;
               return fmt::format(
                   "'{}' is not one of drop, tombstone, rewrite, "
                   "rewrite-with-tombstone, delete-to-tombstone",
                   v);
             })
        .define("drop.tombstones", Type::kBoolean, "true", Importance::kLow,
                "Deprecated (with delete.handling.mode): drop tombstones")
        .define("delete.handling.mode", Type::kString, "drop", Importance::kLow,
                "Deprecated: drop | none | rewrite", ConfigDef::oneOf({"drop", "none", "rewrite"}))
        .define("route.by.field", Type::kString, "", Importance::kLow,
                "A row field whose value replaces the topic (and so picks the table)")
        .define("replace.null.with.default", Type::kBoolean, "true", Importance::kLow,
                "A null row field takes its schema's default value")
        .define("truncate.handling.mode", Type::kString, "drop", Importance::kLow,
                "ksink's: drop truncate events, or turn them into records that empty the "
                "destination table (truncate)",
                ConfigDef::oneOf({"drop", "truncate"}));
    // add.fields and add.headers: which envelope, source or transaction fields are added, and
    // where; each with the prefix of the added names.
    for (const auto& [added, where] :
         {std::pair{"fields", "to the row"}, std::pair{"headers", "as headers"}})
      d.define(fmt::format("add.{}", added), Type::kList, "", Importance::kLow,
               fmt::format("Envelope, source or transaction fields added {}", where))
          .define(fmt::format("add.{}.prefix", added), Type::kString, "__", Importance::kLow,
                  fmt::format("Prefix of the added {}' names", added));
    return d;
  }

  void configure(const Config& config) override {
    if (const auto mode = config.getString("delete.tombstone.handling.mode"); !mode.empty()) {
      tombstones_ = mode == "rewrite-with-tombstone" ? Tombstones::kKeep : Tombstones::kDrop;
      // Debezium's tombstone keeps the row's schema on the null value and delete-to-tombstone
      // (3.5) drops it; a ksink record's null value has no schema, so the two are one here.
      deletes_ = mode == "drop"                                         ? Deletes::kDrop
                 : mode == "tombstone" || mode == "delete-to-tombstone" ? Deletes::kTombstone
                                                                        : Deletes::kRewrite;
    } else if (config.has("drop.tombstones") || config.has("delete.handling.mode")) {
      tombstones_ = config.getBoolean("drop.tombstones") ? Tombstones::kDrop : Tombstones::kKeep;
      const auto legacy = config.getString("delete.handling.mode");
      deletes_ = legacy == "drop"   ? Deletes::kDrop
                 : legacy == "none" ? Deletes::kTombstone
                                    : Deletes::kRewrite;
    }
    route_by_field_ = config.getString("route.by.field");
    keep_truncates_ = config.getString("truncate.handling.mode") == "truncate";
    if (keep_truncates_ && !route_by_field_.empty())
      throw ConfigException({ConfigProblem{
          "truncate.handling.mode",
          "truncate cannot be combined with route.by.field: a truncate event has no row to "
          "route by, so the table it would empty is unknown"}});
    add_fields_ = parseReferences(config, "add.fields", "add.fields.prefix");
    add_headers_ = parseReferences(config, "add.headers", "add.headers.prefix");
    replace_null_with_default_ = config.getBoolean("replace.null.with.default");
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    if (record.isTombstone()) {
      // A routed stream drops its tombstones: they carry no row to route by, and the delete
      // event before each one already deleted the row where it was routed.
      if (tombstones_ == Tombstones::kDrop || !route_by_field_.empty()) return std::nullopt;
      for (const auto& h : add_headers_)
        if (h.parent.empty() && h.field == "op")
          record.headers.push_back(
              {h.new_name, {Schema::of(Schema::Type::kString, true), Value::string("d")}});
      return record;
    }
    if (!isEnvelope(record.value)) return record;
    const SchemaAndValue envelope = std::move(record.value);
    const Value* op_value = envelope.value.find("op");
    const std::string op =
        op_value && op_value->kind() == Value::Kind::kString ? op_value->asString() : "";
    const bool is_delete = op == "d";
    if (op != "c" && op != "r" && op != "u" && !is_delete) {
      if (op == "t" && keep_truncates_) {
        record.value = {};
        record.truncate = true;
        return record;
      }
      if (op == "t" || op == "m") return std::nullopt;
      throw ConversionError(fmt::format("change event with unknown op '{}'", op));
    }
    for (const auto& h : add_headers_)
      if (auto sv = h.read(envelope)) record.headers.push_back({h.new_name, std::move(*sv)});

    if (is_delete && deletes_ == Deletes::kDrop) return std::nullopt;
    if (is_delete && deletes_ == Deletes::kTombstone) {
      // Routed by the old row, as Debezium routes it, so it deletes where the row was written.
      if (!route_by_field_.empty()) record.topic = routeTopic(part(envelope, "before"));
      record.value = {};
      return record;
    }
    SchemaAndValue row = part(envelope, is_delete ? "before" : "after");
    if (row.value.isNull())
      throw ConversionError(
          fmt::format("{} event without '{}' (a delete needs the old row, "
                      "e.g. REPLICA IDENTITY with the key columns)",
                      is_delete ? "delete" : "change", is_delete ? "before" : "after"));
    if (!isStruct(row))
      throw ConversionError(
          fmt::format("'{}' of the change event is not a struct", is_delete ? "before" : "after"));
    if (replace_null_with_default_ && row.schema) fillDefaults(row);
    if (!route_by_field_.empty()) record.topic = routeTopic(row);
    const bool rewrite = deletes_ == Deletes::kRewrite;
    if (!add_fields_.empty() || rewrite) row = extend(envelope, std::move(row), rewrite, is_delete);
    record.value = std::move(row);
    return record;
  }

 private:
  static bool isEnvelope(const SchemaAndValue& value) {
    if (value.schema)
      return value.schema->type == Schema::Type::kStruct &&
             value.schema->name.ends_with(kEnvelopeSuffix) && value.schema->field("op");
    // Schemaless: an object with op and after/before, as Debezium writes it.
    return value.value.kind() == Value::Kind::kObject && value.value.find("op") &&
           (value.value.find("after") || value.value.find("before"));
  }

  static SchemaAndValue part(const SchemaAndValue& envelope, std::string_view name) {
    SchemaAndValue out;
    if (envelope.schema)
      if (const auto* f = envelope.schema->field(name)) out.schema = f->schema;
    if (const Value* v = envelope.value.find(name)) out.value = *v;
    return out;
  }

  static void fillDefaults(SchemaAndValue& row) {
    auto& fields = row.value.asObject();
    for (size_t i = 0; i < fields.size() && i < row.schema->fields.size(); ++i)
      if (fields[i].second.isNull() && row.schema->fields[i].schema->default_value)
        fields[i].second = *row.schema->fields[i].schema->default_value;
  }

  std::string routeTopic(const SchemaAndValue& row) const {
    const Value* v = row.value.isNull() ? nullptr : row.value.find(route_by_field_);
    if (!v || v->kind() != Value::Kind::kString || v->asString().empty())
      throw ConversionError(fmt::format(
          "route.by.field '{}' is not a non-empty string field of the row", route_by_field_));
    return v->asString();
  }

  // The row with __deleted (in the rewrite modes) and then the added fields appended, in
  // Debezium's order.
  SchemaAndValue extend(const SchemaAndValue& envelope, SchemaAndValue row, bool rewrite,
                        bool is_delete) {
    std::vector<std::optional<SchemaAndValue>> added;
    added.reserve(add_fields_.size());
    for (const auto& f : add_fields_) added.push_back(f.read(envelope));
    auto& values = row.value.asObject();
    if (rewrite) values.emplace_back(kDeletedField, Value::string(is_delete ? "true" : "false"));
    for (size_t i = 0; i < add_fields_.size(); ++i)
      if (added[i]) values.emplace_back(add_fields_[i].new_name, std::move(added[i]->value));
    if (!row.schema) return row;
    // The same row schema gets the same extended schema, as long as the added fields resolve the
    // same way (they do for one envelope schema; keyed by the row schema object).
    auto& cache = is_delete ? deleted_schemas_ : row_schemas_;
    row.schema = cache.get(row.schema, [&](const Schema& source) {
      auto fields = source.fields;
      if (rewrite)
        fields.push_back({std::string(kDeletedField), Schema::of(Schema::Type::kString, true)});
      for (size_t i = 0; i < add_fields_.size(); ++i)
        if (added[i])
          fields.push_back(
              {add_fields_[i].new_name,
               added[i]->schema ? added[i]->schema : Schema::of(Schema::Type::kString, true)});
      return withFields(source, std::move(fields));
    });
    return row;
  }

  Tombstones tombstones_ = Tombstones::kDrop;
  Deletes deletes_ = Deletes::kTombstone;
  std::string route_by_field_;
  std::vector<FieldReference> add_fields_;
  std::vector<FieldReference> add_headers_;
  bool replace_null_with_default_ = true;
  bool keep_truncates_ = false;
  SchemaCache row_schemas_, deleted_schemas_;
};

}  // namespace

void registerExtractNewRecordState(TransformationRegistry& registry) {
  registry.addTransformation(
      {"io.debezium.transforms.ExtractNewRecordState", "ExtractNewRecordState"},
      [] { return std::make_unique<ExtractNewRecordState>(); });
}

}  // namespace ksink::detail
