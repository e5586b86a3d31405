#include "avro_schema.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <set>
#include <stdexcept>

namespace ksink::avro {

namespace dom = simdjson::dom;
using Type = AvroNode::Type;

std::optional<std::string> AvroNode::stringProp(std::string_view key) const {
  const auto it = props.find(std::string(key));
  if (it == props.end() || it->second.size() < 2 || it->second.front() != '"') return std::nullopt;
  dom::parser parser;
  std::string_view s;
  if (parser.parse(it->second).get_string().get(s)) return std::nullopt;
  return std::string(s);
}

std::optional<int64_t> AvroNode::intProp(std::string_view key) const {
  const auto it = props.find(std::string(key));
  if (it == props.end()) return std::nullopt;
  dom::parser parser;
  int64_t v = 0;
  if (parser.parse(it->second).get_int64().get(v)) return std::nullopt;
  return v;
}

std::string_view AvroNode::simpleName() const {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? std::string_view(name) : std::string_view(name).substr(dot + 1);
}

namespace {

// Avro's type names in the order of AvroNode::Type, the primitives first.
constexpr std::string_view kTypeNames[] = {"null",   "boolean", "int",    "long",   "float",
                                           "double", "bytes",   "string", "record", "enum",
                                           "array",  "map",     "union",  "fixed"};
static_assert(std::size(kTypeNames) == static_cast<size_t>(Type::kFixed) + 1);
constexpr size_t kPrimitives = static_cast<size_t>(Type::kString) + 1;

}  // namespace

std::string_view AvroNode::typeName(Type type) {
  const auto i = static_cast<size_t>(type);
  return i < std::size(kTypeNames) ? kTypeNames[i] : "?";
}

namespace {

std::optional<Type> primitive(std::string_view name) {
  for (size_t i = 0; i < kPrimitives; ++i)
    if (kTypeNames[i] == name) return static_cast<Type>(i);
  return std::nullopt;
}

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("Avro schema: " + what);
}

std::string raw(dom::element e) {
  return simdjson::minify(e);
}

}  // namespace

class AvroSchemaParser {
 public:
  explicit AvroSchemaParser(AvroSchema& out) : out_(out) {}

  const AvroNode* parse(dom::element e, const std::string& ns) {
    if (++depth_ > 200) fail("nested more than 200 levels deep");
    const AvroNode* node = nullptr;
    switch (e.type()) {
      case dom::element_type::STRING:
        node = named(std::string(std::string_view(e.get_string())), ns);
        break;
      case dom::element_type::ARRAY: {
        AvroNode* u = make(Type::kUnion);
        for (dom::element branch : dom::array(e)) u->branches.push_back(parse(branch, ns));
        if (u->branches.empty()) fail("a union without branches");
        node = u;
        break;
      }
      case dom::element_type::OBJECT:
        node = object(dom::object(e), ns);
        break;
      default:
        fail(fmt::format("{} is not a schema", raw(e)));
    }
    --depth_;
    return node;
  }

 private:
  AvroNode* make(Type type) {
    out_.nodes_.push_back(std::make_unique<AvroNode>());
    out_.nodes_.back()->type = type;
    return out_.nodes_.back().get();
  }

  // A primitive's name, or a named type defined before (or being defined: recursion).
  const AvroNode* named(const std::string& name, const std::string& ns) {
    if (const auto p = primitive(name)) return make(*p);
    if (name.find('.') == std::string::npos && !ns.empty())
      if (auto it = names_.find(ns + "." + name); it != names_.end()) return it->second;
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    fail(fmt::format("'{}' is neither a type nor a name defined before", name));
  }

  static std::string fullName(dom::object o, const std::string& ns, std::string* own_ns) {
    std::string_view name, space;
    if (o["name"].get_string().get(name) || name.empty()) fail("a named type without a name");
    std::string full;
    if (name.find('.') != std::string_view::npos) {
      full = std::string(name);
    } else if (!o["namespace"].get_string().get(space)) {
      full = space.empty() ? std::string(name) : std::string(space) + "." + std::string(name);
    } else {
      full = ns.empty() ? std::string(name) : ns + "." + std::string(name);
    }
    const auto dot = full.rfind('.');
    *own_ns = dot == std::string::npos ? "" : full.substr(0, dot);
    return full;
  }

  void define(const std::string& full, const AvroNode* node) {
    if (!names_.emplace(full, node).second) fail(fmt::format("'{}' is defined twice", full));
  }

  const AvroNode* object(dom::object o, const std::string& ns) {
    dom::element type_element;
    if (o["type"].get(type_element)) fail(fmt::format("{} has no type", simdjson::minify(o)));
    if (type_element.type() != dom::element_type::STRING) return parse(type_element, ns);
    const std::string type(std::string_view(type_element.get_string()));
    static const std::set<std::string_view> kReserved{
        "type",  "name",   "namespace", "fields",      "symbols",
        "items", "values", "size",      "logicalType", "aliases"};
    AvroNode* node = nullptr;
    std::string own_ns = ns;
    if (type == "record" || type == "error") {
      node = make(Type::kRecord);
      node->name = fullName(o, ns, &own_ns);
      define(node->name, node);
      dom::array fields;
      if (o["fields"].get_array().get(fields)) fail(node->name + " has no fields");
      std::set<std::string> seen;
      for (dom::element f : fields) {
        dom::object field;
        std::string_view field_name;
        dom::element field_type;
        if (f.get_object().get(field) || field["name"].get_string().get(field_name) ||
            field["type"].get(field_type))
          fail(fmt::format("a field of {} without a name or a type", node->name));
        if (!seen.emplace(field_name).second)
          fail(fmt::format("{} has two fields named {}", node->name, field_name));
        AvroNode::Field out{std::string(field_name), parse(field_type, own_ns), std::nullopt, ""};
        dom::element default_value;
        if (!field["default"].get(default_value)) out.default_json = raw(default_value);
        std::string_view doc;
        if (!field["doc"].get_string().get(doc)) out.doc = std::string(doc);
        node->fields.push_back(std::move(out));
      }
    } else if (type == "enum") {
      node = make(Type::kEnum);
      node->name = fullName(o, ns, &own_ns);
      define(node->name, node);
      dom::array symbols;
      if (o["symbols"].get_array().get(symbols)) fail(node->name + " has no symbols");
      for (dom::element s : symbols) {
        std::string_view symbol;
        if (s.get_string().get(symbol)) fail(node->name + " has a symbol that is not a string");
        node->symbols.emplace_back(symbol);
      }
      if (node->symbols.empty()) fail(node->name + " has no symbols");
    } else if (type == "fixed") {
      node = make(Type::kFixed);
      node->name = fullName(o, ns, &own_ns);
      define(node->name, node);
      if (o["size"].get_int64().get(node->size) || node->size < 0)
        fail(node->name + " has no size");
    } else if (type == "array") {
      node = make(Type::kArray);
      dom::element items;
      if (o["items"].get(items)) fail("an array without items");
      node->items = parse(items, ns);
    } else if (type == "map") {
      node = make(Type::kMap);
      dom::element values;
      if (o["values"].get(values)) fail("a map without values");
      node->values = parse(values, ns);
    } else if (const auto p = primitive(type)) {
      node = make(*p);
    } else {
      // {"type": "SomeRecord"}: a reference to a named type; its attributes stay its own.
      return named(type, ns);
    }
    std::string_view logical;
    if (!o["logicalType"].get_string().get(logical)) node->logical_type = std::string(logical);
    for (auto [key, value] : o)
      if (!kReserved.contains(key)) node->props.emplace(std::string(key), raw(value));
    return node;
  }

  AvroSchema& out_;
  std::map<std::string, const AvroNode*> names_;
  int depth_ = 0;
};

std::shared_ptr<const AvroSchema> AvroSchema::parse(std::string_view json) {
  auto schema = std::make_shared<AvroSchema>();
  schema->text_ = std::string(json);
  dom::parser parser;
  dom::element root;
  if (const auto error = parser.parse(schema->text_).get(root))
    fail(fmt::format("not JSON ({})", simdjson::error_message(error)));
  AvroSchemaParser p(*schema);
  schema->root_ = p.parse(root, "");
  return schema;
}

}  // namespace ksink::avro
