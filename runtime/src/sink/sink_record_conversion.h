// SinkRecordConversion: Kafka Connect's WorkerSinkTask.convertAndTransformRecord, for a task that
// does not convert records itself (SinkTask::convertsRecords() false): each record of the batch
// through `key.converter`, `value.converter`, its headers and the connector's `transforms=` chain,
// before put(). put() gets the records that came through, each with its converted() set.
//
// A record that cannot be converted or transformed never reaches the task: a RetriableError is
// retried for errors.retry.timeout (StageRetry); then, or for any other failure, the record goes
// to the errant record reporter, which skips it (logged, to the dead-letter queue) under
// errors.tolerance=all and fails the task under none, naming the record. A record a transform
// drops is not put(); like a skipped one, its offset is delivered with the batch (Connect's).
// A converter's service that is away (ConversionUnavailable: a schema registry) holds the whole
// batch back: convert() throws, keeps what it converted, and goes on from the record that waited
// at the next call (WorkerBatchDelivery retries it as it retries put()).
//
// Headers: each value as an optional string (what header.converter's SimpleHeaderConverter gives
// for text; the runtime does not infer other types from header text).
//
// Where the configuration names no converter, records arrive as ByteArrayConverter gives them
// (optional bytes): a task reading key()/value() bytes is never failed by a format it does not
// parse. Name `value.converter` (json, avro, …) to get Structs.
//
// Thread-safety: the task's thread only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/config_exception.h"
#include "ksink/converter.h"
#include "ksink/sink_record.h"
#include "ksink/transformation_chain.h"

namespace ksink {

class StageRetry;
struct WorkerBatch;
class WorkerErrantRecordReporter;

class SinkRecordConversion {
 public:
  static constexpr std::string_view kDefaultConverter = Converter::kBytesClass;

  // Converts the records of `batch`, reporting those that fail to `reporter` (null: the task
  // tolerates none). Throws ConfigException for converters or a chain that `config` cannot build,
  // and for a header.converter other than the two that give header values as text.
  SinkRecordConversion(const Config& config, WorkerBatch& batch,
                       WorkerErrantRecordReporter* reporter, StageRetry& retry);
  ~SinkRecordConversion();

  // Converts the batch's records not converted yet; the records put() gets, valid until the batch
  // changes. Throws ConversionUnavailable (see above), ConversionInterrupted (the task stops
  // while a conversion waits to be retried) and what the reporter throws under
  // errors.tolerance=none.
  std::span<const SinkRecord> convert();

  // The converter keys of a sink the runtime converts for, with its default (the bytes), and
  // header.converter (the chain's keys are TransformationChain::configDef()). A task converting
  // records itself includes Converter::configDef() in its definitions, so that Converter::create
  // reads Converter's default, JSON, where the configuration names none.
  static const ConfigDef& configDef();
  // What the runtime's conversion refuses of a sink's configuration `values`: for a task
  // converting records itself (`converts_records()`, asked only when it matters), a transforms=
  // chain that it does not declare (`declares_chain`: its definitions have transforms=), since the
  // records would be written untransformed; for the others, a header.converter other than the two
  // that give header values as text. Empty when nothing is refused. The one rule `ksink run` and
  // `validate` check before any task starts and the task checks again at its start.
  static std::vector<ConfigProblem> refused(const std::map<std::string, std::string>& values,
                                            bool declares_chain,
                                            const std::function<bool()>& converts_records);

 private:
  // `named`: the converters' keys as the connector named them.
  SinkRecordConversion(const Config& named, const Config& config, WorkerBatch& batch,
                       WorkerErrantRecordReporter* reporter, StageRetry& retry);

  enum class Stage { kKeyConverter, kValueConverter, kTransformation };
  std::optional<ConnectRecord> convertOne(const SinkRecord& record, Stage& stage);
  void fail(const SinkRecord& record, const std::exception& error, Stage stage);
  // Points each record put() gets at its converted form and back.
  void link();

  WorkerBatch& batch_;
  WorkerErrantRecordReporter* const reporter_;
  StageRetry& retry_;
  std::unique_ptr<Converter> key_converter_;
  std::unique_ptr<Converter> value_converter_;
  TransformationChain chain_;
};

}  // namespace ksink
