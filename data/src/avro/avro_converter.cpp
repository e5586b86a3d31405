#include "avro/avro_converter.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "avro/avro_data.h"
#include "avro/avro_writer.h"
#include "ksink/conversion_error.h"
#include "ksink/conversion_unavailable.h"
#include "ksink/detail/config_parse.h"

namespace ksink::avro {
namespace {

constexpr std::string_view kStrategyPackage = "io.confluent.kafka.serializers.subject.";

using Type = ConfigDef::Type;
using Importance = ConfigDef::Importance;

struct KeySpec {
  std::string_view key;
  Type type;
  std::string_view default_value;
  std::string_view doc;
};

// Every key the converter implements, with Confluent's defaults where ksink keeps them.
constexpr KeySpec kKeys[] = {
    {"schema.registry.url", Type::kList, "",
     "Schema registry URLs (Confluent's REST API), tried in turn; required"},
    {"basic.auth.credentials.source", Type::kString, "URL",
     "URL (user:password@ in the registry URL) or USER_INFO (basic.auth.user.info)"},
    {"basic.auth.user.info", Type::kPassword, "", "user:password for USER_INFO"},
    {"schema.registry.basic.auth.user.info", Type::kPassword, "",
     "The same as basic.auth.user.info"},
    {"schema.registry.ssl.truststore.location", Type::kString, "",
     "PEM file of the CAs an https registry is verified with; empty: the system's"},
    {"schema.registry.ssl.truststore.type", Type::kString, "PEM", "PEM (the only type read)"},
    {"schema.registry.ssl.keystore.location", Type::kString, "",
     "PEM file with the client certificate and its unencrypted key (mutual TLS)"},
    {"schema.registry.ssl.keystore.type", Type::kString, "PEM", "PEM (the only type read)"},
    {"auto.register.schemas", Type::kBoolean, "true",
     "Writing: register the record's schema under its subject (false: it must be registered)"},
    {"use.latest.version", Type::kBoolean, "false",
     "Writing: write with the subject's latest schema, fields matched by name"},
    {"key.subject.name.strategy", Type::kString, "TopicNameStrategy",
     "Subject of key schemas: TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy"},
    {"value.subject.name.strategy", Type::kString, "TopicNameStrategy",
     "Subject of value schemas: TopicNameStrategy, RecordNameStrategy or "
     "TopicRecordNameStrategy"},
    {"schemas.cache.config", Type::kInt, "1000", "Schemas kept per converter, each way"},
    {"connect.meta.data", Type::kBoolean, "true",
     "Connect's names, versions, docs and parameters in the Avro schema (true only)"},
    {"enhanced.avro.schema.support", Type::kBoolean, "false", "false only"},
    {"http.connect.timeout.ms", Type::kInt, "60000", "Connecting to the registry, per request"},
    {"http.read.timeout.ms", Type::kInt, "60000", "Waiting for the registry's answer"},
};

// Keys of Confluent's converter that ksink does not implement, with the reason.
std::optional<std::string> notImplemented(std::string_view key) {
  if (key == "schemas.enable") return "is the JSON converter's: Avro's schema is in the registry";
  if (key.starts_with("schema.registry.ssl."))
    return "is not implemented: TLS takes PEM files (truststore/keystore location and type PEM)";
  return std::nullopt;
}

std::optional<AvroConverterConfig::SubjectStrategy> strategyOf(std::string_view name) {
  using S = AvroConverterConfig::SubjectStrategy;
  if (name.starts_with(kStrategyPackage)) name.remove_prefix(kStrategyPackage.size());
  if (name == "TopicNameStrategy") return S::kTopicName;
  if (name == "RecordNameStrategy") return S::kRecordName;
  if (name == "TopicRecordNameStrategy") return S::kTopicRecordName;
  return std::nullopt;
}

// URL user info as it means: %XX decoded (a password with '@' or ':' is written %40, %3A).
std::string percentDecoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    int value = 0;
    if (text[i] == '%' && i + 2 < text.size() &&
        std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16).ptr ==
            text.data() + i + 3) {
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// "user:password" → the pair; nullopt without a colon.
std::optional<std::pair<std::string, std::string>> userInfo(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return std::make_pair(std::string(text.substr(0, colon)), std::string(text.substr(colon + 1)));
}

// Reads a configured registry failure into what the sink or source does next.
[[noreturn]] void rethrow(const RegistryError& e) {
  if (e.kind() == RegistryError::Kind::kUnavailable ||
      e.kind() == RegistryError::Kind::kMisconfigured)
    throw ConversionUnavailable(e.what());
  throw ConversionError(e.what());
}

// The converter's keys under its prefix, read with their defaults; what is wrong with them is
// collected, each problem under the full key.
class ConverterKeys {
 public:
  ConverterKeys(const std::map<std::string, std::string>& values, std::string prefix)
      : prefix_(std::move(prefix)) {
    for (auto it = values.lower_bound(prefix_);
         it != values.end() && it->first.starts_with(prefix_); ++it) {
      const std::string key = it->first.substr(prefix_.size());
      const bool known = std::any_of(std::begin(kKeys), std::end(kKeys),
                                     [&](const KeySpec& k) { return k.key == key; });
      if (known)
        own_[key] = it->second;
      else
        problems.push_back(
            {it->first, notImplemented(key).value_or(
                            "is not a key of the Avro converter ksink implements; refused")});
    }
  }

  std::string get(std::string_view key) const {
    if (auto it = own_.find(std::string(key)); it != own_.end()) return it->second;
    for (const auto& k : kKeys)
      if (k.key == key) return std::string(k.default_value);
    return std::string();
  }
  void problem(std::string_view key, std::string reason) {
    problems.push_back({prefix_ + std::string(key), std::move(reason)});
  }
  bool boolean(std::string_view key) {  // any case, as Kafka's ConfigDef reads them
    const auto v = detail::parseBoolean(get(key));
    if (!v) problem(key, fmt::format("'{}' is not true or false", get(key)));
    return v.value_or(false);
  }
  int64_t integer(std::string_view key, int64_t min) {
    const auto n = detail::parseLong(get(key));
    if (!n || *n < min) {
      problem(key, fmt::format("'{}' is not a whole number of at least {}", get(key), min));
      return min;
    }
    return *n;
  }

  std::vector<ConfigProblem> problems;

 private:
  const std::string prefix_;
  std::map<std::string, std::string> own_;
};

// The registry's URLs and its basic-auth credentials (basic.auth.credentials.source: user info
// in a URL, taken out of it and never sent as is, or basic.auth.user.info).
void readRegistryAccess(ConverterKeys& keys, AvroConverterConfig& c) {
  auto urls = detail::parseList(keys.get("schema.registry.url"));
  if (urls.empty())
    keys.problem("schema.registry.url", "the Avro converter needs a schema registry");
  const auto source = keys.get("basic.auth.credentials.source");
  std::optional<std::pair<std::string, std::string>> url_user;
  for (auto& url : urls) {
    const auto start = url.find("://");
    const auto at = url.find('@');
    if (start == std::string::npos || at == std::string::npos || at > url.find('/', start + 3))
      continue;
    auto info = userInfo(url.substr(start + 3, at - start - 3));
    if (info) info = std::make_pair(percentDecoded(info->first), percentDecoded(info->second));
    if (!info) keys.problem("schema.registry.url", "user info in a URL must be user:password");
    if (source != "URL")
      keys.problem("schema.registry.url",
                   fmt::format("holds user info, but basic.auth.credentials.source is {}", source));
    url_user = info;
    url.erase(start + 3, at - start - 2);
  }
  if (source == "URL") {
    c.registry.basic_auth = url_user;
  } else if (source == "USER_INFO") {
    auto info = keys.get("basic.auth.user.info");
    if (info.empty()) info = keys.get("schema.registry.basic.auth.user.info");
    c.registry.basic_auth = userInfo(info);
    if (!c.registry.basic_auth)
      keys.problem("basic.auth.user.info", "USER_INFO needs user:password here");
  } else {
    keys.problem("basic.auth.credentials.source",
                 fmt::format("'{}' is not implemented (URL or USER_INFO)", source));
  }
  c.registry.urls = std::move(urls);
  for (const std::string_view store : {"truststore", "keystore"}) {
    const auto type_key = fmt::format("schema.registry.ssl.{}.type", store);
    if (keys.get(type_key) != "PEM")
      keys.problem(type_key,
                   fmt::format("'{}' is not implemented: PEM files only", keys.get(type_key)));
  }
  c.registry.ca_file = keys.get("schema.registry.ssl.truststore.location");
  c.registry.client_cert = c.registry.client_key =
      keys.get("schema.registry.ssl.keystore.location");
}

}  // namespace

void AvroConverterConfig::define(ConfigDef& def, const std::string& prefix) {
  for (const auto& k : kKeys)
    def.define(prefix + std::string(k.key), k.type, std::string(k.default_value), Importance::kLow,
               "Avro converter: " + std::string(k.doc));
}

AvroConverterConfig AvroConverterConfig::parse(const std::map<std::string, std::string>& values,
                                               const std::string& prefix) {
  ConverterKeys keys(values, prefix);
  AvroConverterConfig c;
  readRegistryAccess(keys, c);
  c.auto_register = keys.boolean("auto.register.schemas");
  c.use_latest_version = keys.boolean("use.latest.version");
  for (const std::string_view key : {"key.subject.name.strategy", "value.subject.name.strategy"}) {
    const auto strategy = strategyOf(keys.get(key));
    if (!strategy)
      keys.problem(key, fmt::format("'{}' is not TopicNameStrategy, RecordNameStrategy or "
                                    "TopicRecordNameStrategy",
                                    keys.get(key)));
    (key.starts_with("key") ? c.key_strategy : c.value_strategy) =
        strategy.value_or(SubjectStrategy::kTopicName);
  }
  c.registry.cache_capacity = static_cast<size_t>(keys.integer("schemas.cache.config", 1));
  if (!keys.boolean("connect.meta.data"))
    keys.problem("connect.meta.data",
                 "false is not implemented: Connect's metadata is always written");
  if (keys.boolean("enhanced.avro.schema.support"))
    keys.problem("enhanced.avro.schema.support", "true is not implemented");
  c.registry.connect_timeout =
      std::chrono::milliseconds(keys.integer("http.connect.timeout.ms", 1));
  c.registry.read_timeout = std::chrono::milliseconds(keys.integer("http.read.timeout.ms", 1));
  if (keys.problems.empty()) {
    try {
      SchemaRegistryClient check(c.registry);  // the URLs and the TLS files as the client sees them
    } catch (const std::invalid_argument& e) {
      keys.problem("schema.registry.url", e.what());
    }
  }
  if (!keys.problems.empty()) throw ConfigException(std::move(keys.problems));
  return c;
}

AvroConverter::AvroConverter(AvroConverterConfig config, bool is_key)
    : config_(std::move(config)), is_key_(is_key), registry_(config_.registry) {}

const AvroConverter::Read& AvroConverter::readSchema(int32_t id) {
  if (auto it = read_.find(id); it != read_.end()) return it->second;
  std::shared_ptr<const std::string> text;
  try {
    text = registry_.schemaById(id);
  } catch (const RegistryError& e) {
    rethrow(e);
  }
  Read read;
  try {
    read.avro = AvroSchema::parse(*text);
  } catch (const std::invalid_argument& e) {
    throw ConversionError(
        fmt::format("Avro: schema id {} is not an Avro schema: {}", id, e.what()));
  }
  read.connect = toConnectSchema(read.avro->root());
  if (read_.size() >= config_.registry.cache_capacity) read_.clear();
  return read_.emplace(id, std::move(read)).first->second;
}

SchemaAndValue AvroConverter::toConnectData(std::string_view,
                                            std::optional<std::string_view> data) {
  if (!data) return {nullptr, Value()};
  if (data->size() < 5 || (*data)[0] != 0)
    throw ConversionError(fmt::format(
        "Avro: the {} is not in Confluent's wire format (a zero byte and a 4-byte schema id "
        "first): {}",
        is_key_ ? "key" : "value",
        data->empty() ? std::string("no bytes")
                      : fmt::format("it starts with byte {}", static_cast<uint8_t>((*data)[0]))));
  uint32_t id = 0;
  for (size_t i = 1; i < 5; ++i) id = id << 8 | static_cast<uint8_t>((*data)[i]);
  const auto& read = readSchema(static_cast<int32_t>(id));
  return {read.connect, readAvroBinary(read.avro->root(), *read.connect, data->substr(5))};
}

std::string AvroConverter::subject(std::string_view topic, std::string_view record_name) const {
  using S = AvroConverterConfig::SubjectStrategy;
  switch (is_key_ ? config_.key_strategy : config_.value_strategy) {
    case S::kTopicName:
      return fmt::format("{}-{}", topic, is_key_ ? "key" : "value");
    case S::kRecordName:
      return std::string(record_name);
    case S::kTopicRecordName:
      return fmt::format("{}-{}", topic, record_name);
  }
  return {};
}

const AvroConverter::Written& AvroConverter::writeSchema(
    std::string_view topic, const std::shared_ptr<const Schema>& schema) {
  // Most records of a task share their schema and topic: the last one answers without building
  // the map's key (a string per record).
  if (last_written_ && last_written_->connect == schema && last_topic_ == topic)
    return *last_written_;
  auto key = std::make_pair(schema.get(), std::string(topic));
  if (auto it = written_.find(key); it != written_.end()) {
    last_written_ = &it->second;
    last_topic_ = topic;
    return it->second;
  }
  const auto text = fromConnectSchema(*schema);
  auto own = AvroSchema::parse(text);
  const auto& root = own->root();
  const std::string record_name(root.name.empty() ? AvroNode::typeName(root.type) : root.name);
  const auto subject_name = subject(topic, record_name);
  Written w{schema, own, 0};
  try {
    // Confluent's order: registering comes first; use.latest.version counts only without it.
    if (config_.auto_register) {
      w.id = registry_.registerSchema(subject_name, text);
    } else if (config_.use_latest_version) {
      auto [id, latest] = registry_.latest(subject_name);
      w.id = id;
      try {
        w.avro = AvroSchema::parse(latest);
      } catch (const std::invalid_argument& e) {
        throw ConversionError(fmt::format("Avro: the latest schema of subject '{}' is not Avro: {}",
                                          subject_name, e.what()));
      }
    } else {
      const auto found = registry_.lookup(subject_name, text);
      if (!found)
        throw ConversionError(
            fmt::format("Avro: the record's schema is not registered under subject '{}' and "
                        "auto.register.schemas is false: {}",
                        subject_name, text));
      w.id = found->id;
    }
  } catch (const RegistryError& e) {
    rethrow(e);
  }
  if (written_.size() >= config_.registry.cache_capacity) written_.clear();
  last_written_ = &written_.emplace(std::move(key), std::move(w)).first->second;
  last_topic_ = topic;
  return *last_written_;
}

std::optional<std::string> AvroConverter::fromConnectData(std::string_view topic,
                                                          const SchemaAndValue& data) {
  if (data.value.isNull()) return std::nullopt;
  if (!data.schema)
    throw ConversionError("Avro: a value without a schema cannot be written as Avro");
  const auto& w = writeSchema(topic, data.schema);
  std::string out;
  out.reserve(64);
  out += '\0';
  for (int shift = 24; shift >= 0; shift -= 8)
    out += static_cast<char>((static_cast<uint32_t>(w.id) >> shift) & 0xff);
  writeAvroBinary(w.avro->root(), *data.schema, data.value, out);
  return out;
}

}  // namespace ksink::avro
