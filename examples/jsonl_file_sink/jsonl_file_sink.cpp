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

void appendOptional(std::string& out, std::optional<std::string_view> s) {
  if (s)
    appendJsonString(out, *s);
  else
    out += "null";
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
    line_.clear();
    line_ += "{\"topic\":";
    appendJsonString(line_, r.topic());
    line_ += fmt::format(",\"partition\":{},\"offset\":{},\"timestamp\":", r.partition(), r.offset());
    line_ += r.timestamp() ? std::to_string(*r.timestamp()) : "null";
    line_ += ",\"key\":";
    appendOptional(line_, r.key());
    line_ += ",\"value\":";
    appendOptional(line_, r.value());
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
