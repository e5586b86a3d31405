#include "errors_config.h"

#include "error_handling.h"
#include "ksink/detail/config_parse.h"
#include "worker_config.h"

namespace ksink {
namespace {

using Type = ConfigDef::Type;
using Importance = ConfigDef::Importance;

ConfigDef makeDef() {
  ConfigDef def = ErrorHandling::configDef();
  def.define("errors.deadletterqueue.topic.name", Type::kString, "", Importance::kMedium,
             "Topic that receives records that could not be written (empty: no DLQ).")
      .define("errors.deadletterqueue.topic.replication.factor", Type::kInt, "3", Importance::kLow,
              "Replication factor of the DLQ topic when ksink creates it.", ConfigDef::atLeast(-1))
      .define("errors.deadletterqueue.context.headers.enable", Type::kBoolean, "false",
              Importance::kMedium, "Add the __connect.errors.* headers to DLQ records.");
  return def;
}

}  // namespace

const ConfigDef& ErrorsConfig::configDef() {
  static const ConfigDef def = makeDef();
  return def;
}

ErrorsConfig ErrorsConfig::parse(const Config& raw) {
  ConfigDef def = configDef();
  def.include(raw.definitions());
  const Config config(raw.values(), def);
  ErrorsConfig out;
  out.handling = ErrorHandling::parse(config.values());
  out.dlq_topic = config.getString("errors.deadletterqueue.topic.name");
  out.dlq_replication_factor = config.getInt("errors.deadletterqueue.topic.replication.factor");
  out.dlq_context_headers = config.getBoolean("errors.deadletterqueue.context.headers.enable");
  out.producer_properties = WorkerConfig::producerProperties(config);
  // DLQ records must not be lost or duplicated by retries: acks=all, idempotence.
  out.producer_properties.try_emplace("acks", "all");
  out.producer_properties.try_emplace("enable.idempotence", "true");
  return out;
}

}  // namespace ksink
