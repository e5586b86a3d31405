#include "jsonl_file_sink.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace example {
namespace {

void appendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (const unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out += static_cast<char>(c);
    }
  }
  out += '"';
}

// A converted key or value: bytes (ByteArrayConverter, the default) and strings as a JSON string
// of their text, anything else (a Struct from value.converter=json or avro, a number) as its JSON.
void appendData(std::string& out, const ksink::SchemaAndValue& data) {
  switch (data.value.kind()) {
    case ksink::Value::Kind::kNull: out += "null"; break;
    case ksink::Value::Kind::kBytes: appendJsonString(out, data.value.asBytes()); break;
    case ksink::Value::Kind::kString: appendJsonString(out, data.value.asString()); break;
    default: out += data.value.toJson();
  }
}

}  // namespace

const ksink::ConfigDef& JsonlFileSink::configDef() {
  static const ksink::ConfigDef def = [] {
    ksink::ConfigDef d;
    d.define("file", ksink::ConfigDef::Type::kString, std::nullopt,
              ksink::ConfigDef::Importance::kHigh, "The file records are appended to.",
              ksink::ConfigDef::nonEmpty());
    return d;
  }();
  return def;
}

void JsonlFileSink::start(const ksink::Config& config) {
  const auto path = config.getString("file");
  file_ = std::fopen(path.c_str(), "a");
  if (!file_)
    throw std::runtime_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
}

void JsonlFileSink::put(std::span<const ksink::SinkRecord> records) {
  for (const auto& r : records) {
    // The record as the runtime converted and transformed it: its topic may be a router's choice,
    // while partition and offset are where it was read (what the worker commits).
    const ksink::ConnectRecord& c = *r.converted();
    line_.clear();
    line_ += "{\"topic\":";
    appendJsonString(line_, c.topic);
    line_ += fmt::format(",\"partition\":{},\"offset\":{},\"timestamp\":", r.partition(), r.offset());
    line_ += c.timestamp ? std::to_string(*c.timestamp) : "null";
    line_ += ",\"key\":";
    appendData(line_, c.key);
    line_ += ",\"value\":";
    appendData(line_, c.value);
    line_ += "}\n";
    if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size())
      // A full disk may clear up: let the worker redeliver this batch later.
      throw ksink::RetriableError(fmt::format("write failed: {}", std::strerror(errno)));
  }
  // Hand the batch to the OS (one write per batch) so readers see it; flush() makes it durable.
  if (std::fflush(file_) != 0)
    throw ksink::RetriableError(fmt::format("write failed: {}", std::strerror(errno)));
}

void JsonlFileSink::flush(const ksink::OffsetMap& /*offsets*/) {
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
    throw std::runtime_error(fmt::format("flush failed: {}", std::strerror(errno)));
}

void JsonlFileSink::stop() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

}  // namespace example
