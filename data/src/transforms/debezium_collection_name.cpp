// The Debezium JDBC sink's collection.name.format, as a transform in front of the unwrap: it
// names the record's destination table and leaves its topic as it was, which the sink's
// `<topic>:<field>` filters and primary.key.mode=kafka's topic column still read. `${topic}` is the
// topic with its dots replaced by underscores and `${source.<field>}` a field of the change event's
// source block (db, schema, table…), as Debezium's DefaultCollectionNamingStrategy resolves them. A
// record that is not a change event (a tombstone) keeps its topic when the format needs its source.
#include <fmt/format.h>

#include <string>

#include "builtin_transforms.h"
#include "ksink/conversion_error.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class DebeziumCollectionName final : public BuiltinTransform<DebeziumCollectionName> {
 public:
  static ConfigDef definition() {
    return ConfigDef().define(
        "format", ConfigDef::Type::kString, "${topic}", ConfigDef::Importance::kHigh,
        "Table name: ${topic} (dots as underscores) and ${source.<field>}", ConfigDef::nonEmpty());
  }

  void configure(const Config& config) override { format_ = config.getString("format"); }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    std::string topic = record.topic;
    for (auto& c : topic)
      if (c == '.') c = '_';
    std::string out = replaceAll(format_, "${topic}", topic);
    if (out.find("${source.") != std::string::npos) {
      const Value* source = record.value.value.find("source");
      if (!source || source->kind() != Value::Kind::kObject) {  // not a change event
        record.destination = record.topic;
        return record;
      }
      for (size_t at = out.find("${source."); at != std::string::npos;
           at = out.find("${source.", at)) {
        const auto end = out.find('}', at);
        if (end == std::string::npos) break;
        const auto name = out.substr(at + 9, end - at - 9);
        const Value* v = source->find(name);
        if (!v || v->kind() != Value::Kind::kString)
          throw ConversionError(fmt::format(
              "collection.name.format names ${{source.{}}}, which this change event's source "
              "does not have as a string",
              name));
        out.replace(at, end - at + 1, v->asString());
        at += v->asString().size();
      }
    }
    record.destination = std::move(out);
    return record;
  }

 private:
  std::string format_;
};

}  // namespace

void registerDebeziumCollectionName(TransformationRegistry& registry) {
  registry.addTransformation({"io.ksink.transforms.DebeziumCollectionName"},
                             [] { return std::make_unique<DebeziumCollectionName>(); });
}

}  // namespace ksink::detail
