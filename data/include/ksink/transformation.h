// Transformation and Predicate: Kafka Connect's single message transforms (SMTs) and their
// predicates (KIP-585), for the table sinks' record pipeline.
//
// A connector names its chain with Connect's syntax:
//   transforms=unwrap,route
//   transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState   (or a short alias)
//   transforms.unwrap.<key>=…                 the transform's own keys, see its configDef()
//   transforms.route.predicate=isOrders       optional: apply only where the predicate holds
//   transforms.route.negate=true              … or only where it does not
//   predicates=isOrders
//   predicates.isOrders.type=org.apache.kafka.connect.transforms.predicates.TopicNameMatches
//   predicates.isOrders.pattern=orders.*
// Types are looked up in TransformationRegistry (transformation_registry.h): the built-ins under
// their Java class names and short aliases, and any a program or plugin registers.
//
// A transformation's keys are checked against its configDef() at start; a key it does not define
// is refused (a misspelt key would otherwise change what lands in the table without a word).
//
// Lifecycle: created and configured once per task, then apply() runs on the task's thread for
// each record in order; no locking needed. apply() returning nullopt drops the record: it is not
// written, and its offset is committed like a written one's. apply() throwing ConversionError
// marks that record bad: it follows errors.tolerance (DLQ or task failure) like a record that
// could not be converted.
#pragma once

#include <optional>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/connect_record.h"

namespace ksink {

class Transformation {
 public:
  virtual ~Transformation() = default;
  // The transform's keys (without the `transforms.<alias>.` prefix).
  virtual const ConfigDef& configDef() const = 0;
  // `config` holds the transform's keys, validated against configDef(). Throws ConfigException
  // (key and reason) for a combination it cannot serve.
  virtual void configure(const Config& config) = 0;
  virtual std::optional<ConnectRecord> apply(ConnectRecord record) = 0;
};

class Predicate {
 public:
  virtual ~Predicate() = default;
  virtual const ConfigDef& configDef() const = 0;
  virtual void configure(const Config& config) = 0;
  virtual bool test(const ConnectRecord& record) const = 0;
};

}  // namespace ksink
