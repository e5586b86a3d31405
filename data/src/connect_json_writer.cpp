#include "connect_json_writer.h"

#include <fmt/format.h>

#include <cmath>

#include "base64.h"
#include "ksink/conversion_error.h"
#include "ksink/detail/json_string.h"
#include "transforms/java_float.h"
#include "transforms/transform_support.h"

namespace ksink {
namespace {

void appendString(std::string& out, std::string_view s,
                  JsonSpelling spelling = JsonSpelling::kConnect) {
  detail::appendJsonString(out, s, spelling == JsonSpelling::kConnect);
}

void appendInteger(std::string& out, int64_t v) {
  const fmt::format_int text(v);
  out.append(text.data(), text.size());
}

void appendFloating(std::string& out, double d, bool float32,
                    JsonSpelling spelling = JsonSpelling::kConnect) {
  if (spelling == JsonSpelling::kPlain) {
    fmt::format_to(std::back_inserter(out), "{}", d);
    return;
  }
  if (std::isnan(d) || std::isinf(d)) {  // Jackson quotes what JSON cannot hold as a number
    out += '"';
    out += detail::javaFloatToString(d, float32);
    out += '"';
    return;
  }
  detail::appendJavaFloat(out, d, float32);
}

[[noreturn]] void refuse(const Schema& schema, const Value& value) {
  throw ConversionError(fmt::format("cannot write a value of kind {} as {}",
                                    detail::kindName(value), Schema::typeName(schema.type)));
}

// The schema's own keys up to, not including, "field" (a struct field appends it).
void appendSchemaBody(std::string& out, const Schema& schema) {
  out += "{\"type\":";
  appendString(out, Schema::typeName(schema.type));
  switch (schema.type) {
    case Schema::Type::kArray:
      if (!schema.value_schema) throw ConversionError("an array schema without its items' schema");
      out += ",\"items\":";
      appendConnectSchemaJson(out, *schema.value_schema);
      break;
    case Schema::Type::kMap:
      if (!schema.key_schema || !schema.value_schema)
        throw ConversionError("a map schema without its keys' or values' schema");
      out += ",\"keys\":";
      appendConnectSchemaJson(out, *schema.key_schema);
      out += ",\"values\":";
      appendConnectSchemaJson(out, *schema.value_schema);
      break;
    case Schema::Type::kStruct: {
      out += ",\"fields\":[";
      bool first = true;
      for (const auto& field : schema.fields) {
        if (!first) out += ',';
        first = false;
        appendSchemaBody(out, *field.schema);
        out += ",\"field\":";
        appendString(out, field.name);
        out += '}';
      }
      out += ']';
      break;
    }
    default:
      break;
  }
  out += ",\"optional\":";
  out += schema.optional ? "true" : "false";
  if (!schema.name.empty()) {
    out += ",\"name\":";
    appendString(out, schema.name);
  }
  if (schema.version) fmt::format_to(std::back_inserter(out), ",\"version\":{}", *schema.version);
  if (!schema.doc.empty()) {
    out += ",\"doc\":";
    appendString(out, schema.doc);
  }
  if (!schema.parameters.empty()) {
    out += ",\"parameters\":";
    appendParametersJson(out, schema.parameters);
  }
  if (schema.default_value) {
    out += ",\"default\":";
    appendConnectJson(out, &schema, *schema.default_value);
  }
}

}  // namespace

void appendSchemalessJson(std::string& out, const Value& value, JsonSpelling spelling) {
  switch (value.kind()) {
    case Value::Kind::kNull:
      out += "null";
      return;
    case Value::Kind::kBoolean:
      out += value.asBoolean() ? "true" : "false";
      return;
    case Value::Kind::kInt:
      appendInteger(out, value.asInt());
      return;
    case Value::Kind::kDouble:
      appendFloating(out, value.asDouble(), false, spelling);
      return;
    case Value::Kind::kString:
      appendString(out, value.asString(), spelling);
      return;
    case Value::Kind::kBytes:
      appendString(out, base64Encode(value.asBytes()), spelling);
      return;
    case Value::Kind::kArray: {
      out += '[';
      bool first = true;
      for (const auto& item : value.asArray()) {
        if (!first) out += ',';
        first = false;
        appendSchemalessJson(out, item, spelling);
      }
      out += ']';
      return;
    }
    case Value::Kind::kObject:
      appendSchemalessJson(out, value.asObject(), spelling);
      return;
  }
}

void appendSchemalessJson(std::string& out, const Value::Object& object, JsonSpelling spelling) {
  out += '{';
  bool first = true;
  for (const auto& [name, item] : object) {
    if (!first) out += ',';
    first = false;
    appendString(out, name, spelling);
    out += ':';
    appendSchemalessJson(out, item, spelling);
  }
  out += '}';
}

void appendParametersJson(std::string& out, const SchemaParameters& parameters) {
  out += '{';
  bool first = true;
  for (const auto& [key, value] : parameters) {
    if (!first) out += ',';
    first = false;
    appendString(out, key);
    out += ':';
    appendString(out, value);
  }
  out += '}';
}

void appendConnectSchemaJson(std::string& out, const Schema& schema) {
  appendSchemaBody(out, schema);
  out += '}';
}

void appendConnectJson(std::string& out, const Schema* schema, const Value& value) {
  if (!schema) {
    appendSchemalessJson(out, value, JsonSpelling::kConnect);
    return;
  }
  if (value.isNull()) {
    if (schema->default_value) {
      appendConnectJson(out, schema, *schema->default_value);
    } else if (schema->optional) {
      out += "null";
    } else {
      throw ConversionError(fmt::format("a null for a required {} without a default value",
                                        Schema::typeName(schema->type)));
    }
    return;
  }
  switch (schema->type) {
    case Schema::Type::kInt8:
    case Schema::Type::kInt16:
    case Schema::Type::kInt32:
    case Schema::Type::kInt64:
      if (value.kind() != Value::Kind::kInt) refuse(*schema, value);
      appendInteger(out, value.asInt());
      return;
    case Schema::Type::kFloat32:
    case Schema::Type::kFloat64:
      if (value.kind() == Value::Kind::kDouble)
        appendFloating(out, value.asDouble(), schema->type == Schema::Type::kFloat32);
      else if (value.kind() == Value::Kind::kInt)
        appendFloating(out, static_cast<double>(value.asInt()),
                       schema->type == Schema::Type::kFloat32);
      else
        refuse(*schema, value);
      return;
    case Schema::Type::kBoolean:
      if (value.kind() != Value::Kind::kBoolean) refuse(*schema, value);
      out += value.asBoolean() ? "true" : "false";
      return;
    case Schema::Type::kString:
      if (value.kind() != Value::Kind::kString) refuse(*schema, value);
      appendString(out, value.asString());
      return;
    case Schema::Type::kBytes:
      if (value.kind() != Value::Kind::kBytes) refuse(*schema, value);
      appendString(out, base64Encode(value.asBytes()));
      return;
    case Schema::Type::kArray: {
      if (value.kind() != Value::Kind::kArray) refuse(*schema, value);
      out += '[';
      bool first = true;
      for (const auto& item : value.asArray()) {
        if (!first) out += ',';
        first = false;
        appendConnectJson(out, schema->value_schema.get(), item);
      }
      out += ']';
      return;
    }
    case Schema::Type::kMap: {
      const bool object_mode =
          !schema->key_schema || schema->key_schema->type == Schema::Type::kString;
      if (object_mode) {
        if (value.kind() != Value::Kind::kObject) refuse(*schema, value);
        out += '{';
        bool first = true;
        for (const auto& [key, item] : value.asObject()) {
          if (!first) out += ',';
          first = false;
          appendString(out, key);
          out += ':';
          appendConnectJson(out, schema->value_schema.get(), item);
        }
        out += '}';
        return;
      }
      // Non-string keys: an array of [key, value] pairs, as the reader takes them.
      if (value.kind() != Value::Kind::kArray) refuse(*schema, value);
      out += '[';
      bool first = true;
      for (const auto& entry : value.asArray()) {
        if (entry.kind() != Value::Kind::kArray || entry.asArray().size() != 2)
          throw ConversionError("a map entry must be a [key, value] pair");
        if (!first) out += ',';
        first = false;
        out += '[';
        appendConnectJson(out, schema->key_schema.get(), entry.asArray()[0]);
        out += ',';
        appendConnectJson(out, schema->value_schema.get(), entry.asArray()[1]);
        out += ']';
      }
      out += ']';
      return;
    }
    case Schema::Type::kStruct: {
      if (value.kind() != Value::Kind::kObject) refuse(*schema, value);
      out += '{';
      bool first = true;
      for (const auto& field : schema->fields) {
        if (!first) out += ',';
        first = false;
        appendString(out, field.name);
        out += ':';
        const Value* item = value.find(field.name);
        appendConnectJson(out, field.schema.get(), item ? *item : Value());
      }
      out += '}';
      return;
    }
  }
}

}  // namespace ksink
