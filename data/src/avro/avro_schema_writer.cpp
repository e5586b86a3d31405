// fromConnectSchema (avro_writer.h): a Connect schema as Confluent's AvroData writes it in Avro.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "avro/avro_fail.h"
#include "avro/avro_writer.h"
#include "avro/confluent_names.h"
#include "connect_json_writer.h"
#include "ksink/detail/json_string.h"

namespace ksink::avro {
namespace {

using T = Schema::Type;

void appendString(std::string& out, std::string_view text) {
  detail::appendJsonString(out, text, false);
}

// The Avro primitive a Connect primitive is written as (int8 and int16 as int, their Connect type
// named beside it); empty for what is not a primitive.
std::string_view avroPrimitive(T type) {
  switch (type) {
    case T::kInt8:
    case T::kInt16:
    case T::kInt32:
      return "int";
    case T::kInt64:
      return "long";
    case T::kFloat32:
      return "float";
    case T::kFloat64:
      return "double";
    case T::kBoolean:
      return "boolean";
    case T::kString:
      return "string";
    case T::kBytes:
      return "bytes";
    default:
      return {};
  }
}

// A primitive value as Avro's JSON for a default ("null" and nullopt for what has none here).
std::optional<std::string> defaultJson(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kBoolean:
      return v.asBoolean() ? "true" : "false";
    case Value::Kind::kInt:
      return std::to_string(v.asInt());
    case Value::Kind::kDouble:
      if (!std::isfinite(v.asDouble())) return std::nullopt;
      return fmt::format("{}", v.asDouble());
    case Value::Kind::kString: {
      std::string out;
      appendString(out, v.asString());
      return out;
    }
    case Value::Kind::kBytes: {  // Avro's JSON for bytes: one code point per byte
      std::string text;
      for (const unsigned char c : v.asBytes()) {
        if (c < 0x80) {
          text += static_cast<char>(c);
        } else {
          text += static_cast<char>(0xc0 | (c >> 6));
          text += static_cast<char>(0x80 | (c & 0x3f));
        }
      }
      std::string out;
      appendString(out, text);
      return out;
    }
    default:
      return std::nullopt;
  }
}

class SchemaWriter {
 public:
  std::string write(const Schema& s) {
    std::string out;
    schema(out, s, false);
    return out;
  }

 private:
  // `bare`: the optional union is already written around it (a field's union).
  void schema(std::string& out, const Schema& s, bool bare) {
    if (s.optional && !bare && !isUnionStruct(s)) {
      out += "[\"null\",";
      schema(out, s, true);
      out += ']';
      return;
    }
    switch (s.type) {
      case T::kStruct:
        if (isUnionStruct(s)) return unionOf(out, s);
        return record(out, s);
      case T::kArray:
        out += R"({"type":"array","items":)";
        schema(out, *s.value_schema, false);
        return annotations(out, s, false);
      case T::kMap:
        if (s.key_schema->type == T::kString && !s.key_schema->optional) {
          out += R"({"type":"map","values":)";
          schema(out, *s.value_schema, false);
        } else {
          out += R"({"type":"array","items":)";
          mapEntry(out, s);
        }
        return annotations(out, s, false);
      default:
        return primitive(out, s);
    }
  }

  // The record of a map's entries: Confluent's MapEntry; a map of other key and value schemas
  // gets MapEntry2, 3… (marked connect.internal.type MapEntry), as Avro names one type once.
  void mapEntry(std::string& out, const Schema& s) {
    for (size_t i = 0; i < map_entries_.size(); ++i)
      if (sameSchema(*map_entries_[i].first, *s.key_schema) &&
          sameSchema(*map_entries_[i].second, *s.value_schema))
        return appendString(out, entryName(i));
    map_entries_.emplace_back(s.key_schema, s.value_schema);
    out += R"({"type":"record",)";
    name(out, entryName(map_entries_.size() - 1));
    out += R"(,"fields":[{"name":"key","type":)";
    schema(out, *s.key_schema, false);
    out += R"(},{"name":"value","type":)";
    schema(out, *s.value_schema, false);
    out += "}]";
    if (map_entries_.size() > 1) out += R"(,"connect.internal.type":"MapEntry")";
    out += '}';
  }
  static std::string entryName(size_t i) {
    return i ? fmt::format("{}{}", kMapEntryName, i + 1) : std::string(kMapEntryName);
  }
  // Whether `full` is first met here (write the type) or was written before for the same schema
  // (refer to it by name). Two different schemas of one name cannot both be written: Avro names
  // one type once, and writing the second as the first would drop what differs.
  bool define(const std::string& full, const Schema& s) {
    const auto [it, first] = defined_.emplace(full, &s);
    if (first) return true;
    if (!sameSchema(*it->second, s, false))
      fail(fmt::format("two different schemas are both named {}: Avro names a type once", full));
    return false;
  }

  // `with_optional`: whether the two must agree on being optional too (a field's union is written
  // around a named type, so a named type is the same whether optional or not).
  static bool sameSchema(const Schema& a, const Schema& b, bool with_optional = true) {
    if (a.type != b.type || (with_optional && a.optional != b.optional) || a.name != b.name ||
        a.version != b.version || a.parameters != b.parameters ||
        a.fields.size() != b.fields.size() || bool(a.key_schema) != bool(b.key_schema) ||
        bool(a.value_schema) != bool(b.value_schema))
      return false;
    for (size_t i = 0; i < a.fields.size(); ++i)
      if (a.fields[i].name != b.fields[i].name ||
          !sameSchema(*a.fields[i].schema, *b.fields[i].schema))
        return false;
    return (!a.key_schema || sameSchema(*a.key_schema, *b.key_schema)) &&
           (!a.value_schema || sameSchema(*a.value_schema, *b.value_schema));
  }

  static bool isUnionStruct(const Schema& s) {
    return s.type == T::kStruct && s.name == kUnionName;
  }

  void primitive(std::string& out, const Schema& s) {
    const auto logical = s.connectLogical();
    if (s.type == T::kBytes && logical != Schema::Logical::kDecimal &&
        s.parameters.contains(std::string(kFixedSizeParameter))) {
      const auto full = s.name.empty() ? std::string("fixed") : s.name;
      if (!define(full, s)) return appendString(out, full);
      out += R"({"type":"fixed",)";
      name(out, full);
      out += R"(,"size":)";
      out += s.parameters.at(std::string(kFixedSizeParameter));
      return annotations(out, s, true);
    }
    const bool bare = s.name.empty() && !s.version && s.doc.empty() && s.parameters.empty() &&
                      s.type != T::kInt8 && s.type != T::kInt16;
    if (!bare) out += R"({"type":)";
    const auto primitive = avroPrimitive(s.type);
    if (primitive.empty()) fail(fmt::format("{} is not a primitive", s));
    out += fmt::format(R"("{}")", primitive);
    if (s.type == T::kInt8 || s.type == T::kInt16)
      out += fmt::format(R"(,"connect.type":"{}")", s.type == T::kInt8 ? "int8" : "int16");
    if (bare) return;
    switch (logical) {
      case Schema::Logical::kDecimal: {
        const auto precision = s.parameters.find(std::string(kPrecisionParameter));
        out +=
            fmt::format(R"(,"scale":{},"precision":{},"logicalType":"decimal")", s.decimalScale(),
                        precision == s.parameters.end() ? "64" : precision->second);
        break;
      }
      case Schema::Logical::kDate:
        out += R"(,"logicalType":"date")";
        break;
      case Schema::Logical::kTime:
        out += R"(,"logicalType":"time-millis")";
        break;
      case Schema::Logical::kTimestamp:
        out += R"(,"logicalType":"timestamp-millis")";
        break;
      default:
        break;
    }
    annotations(out, s, false);
  }

  void record(std::string& out, const Schema& s) {
    std::string full = s.name;
    if (full.empty())
      full = default_count_++ ? fmt::format("{}{}", kDefaultName, default_count_)
                              : std::string(kDefaultName);
    if (!define(full, s)) return appendString(out, full);
    out += R"({"type":"record",)";
    name(out, full);
    out += R"(,"fields":[)";
    for (size_t i = 0; i < s.fields.size(); ++i) {
      const auto& f = *s.fields[i].schema;
      if (i) out += ',';
      out += R"({"name":)";
      appendString(out, s.fields[i].name);
      out += R"(,"type":)";
      const auto default_json = f.default_value ? defaultJson(*f.default_value) : std::nullopt;
      if (f.optional && !isUnionStruct(f)) {
        // Avro takes a union's default from its first branch: null first unless the default is
        // a value.
        const bool null_first = !default_json || *default_json == "null";
        out += null_first ? "[\"null\"," : "[";
        schema(out, f, true);
        out += null_first ? "]" : ",\"null\"]";
        out += R"(,"default":)";
        out += default_json.value_or("null");
      } else {
        schema(out, f, false);
        if (f.optional) {  // an optional Union: its null first, and null the default
          out += R"(,"default":null)";
        } else if (default_json && *default_json != "null") {
          out += R"(,"default":)";
          out += *default_json;
        }
      }
      out += '}';
    }
    out += ']';
    annotations(out, s, true);
  }

  void unionOf(std::string& out, const Schema& s) {
    out += '[';
    bool first = true;
    if (s.optional) {
      out += "\"null\"";
      first = false;
    }
    for (const auto& f : s.fields) {
      if (!first) out += ',';
      first = false;
      schema(out, *f.schema, true);
    }
    out += ']';
  }

  // "name" (a full name, or a simple one outside any namespace).
  static void name(std::string& out, const std::string& full) {
    out += R"("name":)";
    appendString(out, full);
    if (full.find('.') == std::string::npos) out += R"(,"namespace":"")";
  }

  // Confluent's connect.* properties, then the closing brace. `named`: the Avro type carries the
  // name itself (record, enum, fixed), still repeated as connect.name as Confluent does.
  static void annotations(std::string& out, const Schema& s, bool named) {
    (void)named;
    if (!s.doc.empty()) {
      out += R"(,"connect.doc":)";
      appendString(out, s.doc);
    }
    if (s.version) out += fmt::format(R"(,"connect.version":{})", *s.version);
    if (!s.parameters.empty()) {
      out += R"(,"connect.parameters":)";
      appendParametersJson(out, s.parameters);
    }
    if (!s.name.empty()) {
      out += R"(,"connect.name":)";
      appendString(out, s.name);
    }
    out += '}';
  }

  std::map<std::string, const Schema*> defined_;  // named types written, by full name
  std::vector<std::pair<std::shared_ptr<const Schema>, std::shared_ptr<const Schema>>> map_entries_;
  int default_count_ = 0;
};

}  // namespace

std::string fromConnectSchema(const Schema& schema) {
  return SchemaWriter().write(schema);
}

}  // namespace ksink::avro
