// AvroSchema: an Avro schema as its JSON declares it, parsed whole — types, full names, record
// fields with their defaults, enum symbols, and every other attribute kept as raw JSON (the
// logical type's precision and scale, Confluent's connect.name / connect.version /
// connect.parameters / connect.default / connect.type, doc). Named types referenced by name, also
// recursively, point at their one definition; the AvroSchema owns every node.
//
// avro-c (Debian's libavro) drops logical types and custom properties when it parses, which is
// why the converter reads schemas itself. Immutable once parsed: share it between threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksink::avro {

struct AvroNode {
  enum class Type {
    kNull,
    kBoolean,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kBytes,
    kString,
    kRecord,
    kEnum,
    kArray,
    kMap,
    kUnion,
    kFixed
  };
  struct Field {
    std::string name;
    const AvroNode* type = nullptr;
    std::optional<std::string> default_json;  // the field's "default", raw JSON
    std::string doc;
  };

  Type type = Type::kNull;
  std::string name;                       // records, enums, fixed: the full name (namespace.name)
  std::vector<Field> fields;              // kRecord
  std::vector<std::string> symbols;       // kEnum
  const AvroNode* items = nullptr;        // kArray
  const AvroNode* values = nullptr;       // kMap
  std::vector<const AvroNode*> branches;  // kUnion
  int64_t size = 0;                       // kFixed
  std::string logical_type;               // "decimal", "date", "timestamp-millis"…; empty: none
  std::map<std::string, std::string> props;  // every other attribute: its raw JSON

  // A property as a string / an integer (nullopt when absent or of another JSON type).
  std::optional<std::string> stringProp(std::string_view key) const;
  std::optional<int64_t> intProp(std::string_view key) const;
  // The simple name (after the last dot) of a named type.
  std::string_view simpleName() const;
  // The Avro type's own name: "int", "record", … (a union's branches are named by it).
  static std::string_view typeName(Type type);
};

class AvroSchema {
 public:
  // Throws std::invalid_argument naming what is wrong (not JSON, an unknown type or name, a record
  // without fields, a fixed without a size…).
  static std::shared_ptr<const AvroSchema> parse(std::string_view json);

  const AvroNode& root() const { return *root_; }
  const std::string& text() const { return text_; }

 private:
  friend class AvroSchemaParser;
  std::string text_;
  std::vector<std::unique_ptr<AvroNode>> nodes_;
  const AvroNode* root_ = nullptr;
};

}  // namespace ksink::avro
