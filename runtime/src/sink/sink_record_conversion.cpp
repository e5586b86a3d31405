#include "sink_record_conversion.h"

#include <fmt/format.h>

#include <new>

#include "fetched_records.h"
#include "ksink/config_exception.h"
#include "ksink/connect_record.h"
#include "ksink/conversion_interrupted.h"
#include "ksink/conversion_unavailable.h"
#include "ksink/detail/config_parse.h"
#include "stage_retry.h"
#include "worker_errant_record_reporter.h"

namespace ksink {
namespace {

constexpr std::string_view kSimpleHeaderConverter =
    "org.apache.kafka.connect.storage.SimpleHeaderConverter";
constexpr std::string_view kStringHeaderConverter =
    "org.apache.kafka.connect.storage.StringConverter";

// What the connector named, without the definitions' defaults: the converters it names, else the
// bytes. Throws for a header.converter that is not served.
Config named(const Config& config) {
  auto problems = SinkRecordConversion::refused(config.values(), true, [] { return false; });
  if (!problems.empty()) throw ConfigException(std::move(problems));
  return Config(config.values());
}

}  // namespace

SinkRecordConversion::SinkRecordConversion(const Config& config, WorkerBatch& batch,
                                           WorkerErrantRecordReporter* reporter, StageRetry& retry)
    : SinkRecordConversion(named(config), config, batch, reporter, retry) {}

SinkRecordConversion::SinkRecordConversion(const Config& named, const Config& config,
                                           WorkerBatch& batch, WorkerErrantRecordReporter* reporter,
                                           StageRetry& retry)
    : batch_(batch),
      reporter_(reporter),
      retry_(retry),
      key_converter_(Converter::create(named, true, kDefaultConverter)),
      value_converter_(Converter::create(named, false, kDefaultConverter)),
      chain_(config) {}

SinkRecordConversion::~SinkRecordConversion() = default;

const ConfigDef& SinkRecordConversion::configDef() {
  static const ConfigDef def = [] {
    ConfigDef d = Converter::configDef(kDefaultConverter);
    // Any value passes here: a task the runtime converts for refuses at start one it does not
    // serve (see named()), a table sink ignores the key.
    d.define("header.converter", ConfigDef::Type::kString, std::string(kSimpleHeaderConverter),
             ConfigDef::Importance::kLow,
             "Converter for record headers: Connect's SimpleHeaderConverter or StringConverter, "
             "either giving each header value as text");
    return d;
  }();
  return def;
}

std::vector<ConfigProblem> SinkRecordConversion::refused(
    const std::map<std::string, std::string>& values, bool declares_chain,
    const std::function<bool()>& converts_records) {
  const auto transforms = values.find("transforms");
  const bool undeclared = transforms != values.end() &&
                          !detail::parseList(transforms->second).empty() && !declares_chain;
  const auto header = values.find("header.converter");
  const bool unserved = header != values.end() && header->second != kSimpleHeaderConverter &&
                        header->second != kStringHeaderConverter;
  if (!undeclared && !unserved) return {};
  if (converts_records()) {
    if (!undeclared) return {};
    return {{"transforms",
             fmt::format("'{}': this sink converts records itself and does not apply single "
                         "message transforms (its configuration does not define transforms=), so "
                         "the records would be written untransformed; remove the key or use a "
                         "sink that applies them",
                         transforms->second)}};
  }
  if (!unserved) return {};
  return {{"header.converter",
           fmt::format("'{}' is not served: the runtime gives header values as text, as {} and {} "
                       "do",
                       header->second, kSimpleHeaderConverter, kStringHeaderConverter)}};
}

std::optional<ConnectRecord> SinkRecordConversion::convertOne(const SinkRecord& record,
                                                              Stage& stage) {
  stage = Stage::kKeyConverter;
  auto key = key_converter_->toConnectData(record.topic(), record.key());
  stage = Stage::kValueConverter;
  auto value = value_converter_->toConnectData(record.topic(), record.value());
  stage = Stage::kTransformation;
  auto converted = ConnectRecord::from(record, std::move(key), std::move(value));
  if (chain_.empty()) return converted;
  return chain_.apply(std::move(converted));
}

std::span<const SinkRecord> SinkRecordConversion::convert() {
  auto& batch = batch_;
  batch.put_records.reserve(batch.records.size());
  batch.connect_records.reserve(batch.records.size());
  for (; batch.converted_count < batch.records.size(); ++batch.converted_count) {
    const SinkRecord& record = batch.records[batch.converted_count];
    std::optional<ConnectRecord> converted;
    Stage stage = Stage::kKeyConverter;
    try {
      try {
        converted = convertOne(record, stage);
      } catch (const ConversionUnavailable&) {
        throw;
      } catch (const RetriableError&) {
        retry_.run(std::current_exception(), [&] { converted = convertOne(record, stage); });
      }
    } catch (const ConversionUnavailable&) {
      link();  // put() is not called, but the records kept stay consistent
      throw;
    } catch (const ConversionInterrupted&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      fail(record, e, stage);
      continue;
    }
    if (!converted) continue;  // a transform dropped it
    batch.put_records.push_back(record);
    batch.connect_records.push_back(std::move(*converted));
  }
  link();
  return batch.put_records;
}

void SinkRecordConversion::fail(const SinkRecord& record, const std::exception& error,
                                Stage stage) {
  const std::string_view name = stage == Stage::kKeyConverter     ? "KEY_CONVERTER"
                                : stage == Stage::kValueConverter ? "VALUE_CONVERTER"
                                                                  : "TRANSFORMATION";
  if (!reporter_)
    throw ToleranceExceededError(fmt::format(
        "Tolerance exceeded in error handler (errors.tolerance=none): record {} failed at stage "
        "{}: {}",
        record, name, error.what()));
  reporter_->report(record, error, name);
}

void SinkRecordConversion::link() {
  auto& batch = batch_;
  for (size_t i = 0; i < batch.put_records.size(); ++i) {
    batch.put_records[i].converted_ = &batch.connect_records[i];
    batch.connect_records[i].original = &batch.put_records[i];
  }
}

}  // namespace ksink
