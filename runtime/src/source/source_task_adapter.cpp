#include "source_task_adapter.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "error_handling.h"
#include "ksink/connect_json.h"
#include "ksink/conversion_unavailable.h"
#include "ksink/detail/json_string.h"
#include "ksink/simple_header_converter.h"

namespace ksink {
namespace {

// Connect's OffsetUtils.validateFormat: a partition or offset is a map of primitives.
void requirePrimitives(const std::optional<SourceMap>& map, const char* what) {
  if (!map) return;
  for (const auto& [key, value] : *map)
    if (value.kind() == Value::Kind::kArray || value.kind() == Value::Kind::kObject)
      throw std::runtime_error(fmt::format(
          "the task returned a record whose source {} holds {} under '{}': source partitions "
          "and offsets may only hold primitive values (Kafka Connect's rule)",
          what, value.kind() == Value::Kind::kArray ? "an array" : "a map", key));
}

// A partition's form up to key order and number types: entries sorted by key, numbers as doubles.
Value normalized(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kInt:
      return Value::floating(static_cast<double>(value.asInt()));
    case Value::Kind::kArray: {
      Value::Array out;
      for (const auto& v : value.asArray()) out.push_back(normalized(v));
      return Value::array(std::move(out));
    }
    case Value::Kind::kObject: {
      Value::Object out;
      for (const auto& [k, v] : value.asObject()) out.emplace_back(k, normalized(v));
      std::sort(out.begin(), out.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      return Value::object(std::move(out));
    }
    default:
      return value;
  }
}

// A record the task must not have returned, whatever errors.tolerance says (Connect checks these
// outside its tolerance handling).
struct InvalidRecord : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Connect's checkAndConvertTimestamp: -1 is no timestamp, any other negative one fails the task.
std::optional<int64_t> checkedTimestamp(std::optional<int64_t> timestamp) {
  if (!timestamp || *timestamp >= 0) return timestamp;
  if (*timestamp != -1) throw InvalidRecord(fmt::format("invalid record timestamp {}", *timestamp));
  return std::nullopt;
}

constexpr size_t kMaxCheckedKeys = 100000;

std::string describe(const SourceRecord& record) {
  std::string out = fmt::format("topic {}", record.topic());
  if (record.sourcePartition())
    out += ", source partition " + Value::object(*record.sourcePartition()).toJson();
  if (record.sourceOffset())
    out += ", source offset " + Value::object(*record.sourceOffset()).toJson();
  return out;
}

}  // namespace

SourceTaskAdapter::SourceTaskAdapter(std::unique_ptr<SourceTask> task) : task_(std::move(task)) {}

SourceTaskAdapter::~SourceTaskAdapter() = default;

std::unique_ptr<Converter> SourceTaskAdapter::offsetConverter() {
  return Converter::create(
      Config({{"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
              {"value.converter.schemas.enable", "false"}}),
      false);
}

std::string SourceTaskAdapter::offsetKey(std::string_view connector,
                                         const std::optional<SourceMap>& partition) {
  std::string out = "[";
  detail::appendJsonString(out, connector);
  out += ',';
  out += partition ? toConnectJson(*partition) : "null";
  out += ']';
  return out;
}

std::optional<std::string> SourceTaskAdapter::offsetValue(const std::optional<SourceMap>& offset) {
  if (!offset) return std::nullopt;
  return toConnectJson(*offset);
}

void SourceTaskAdapter::start(const Config& config, const detail::OffsetEntryReader& offsets) {
  config_ = config;
  connector_ = config.get("name").value_or("");
  entries_ = &offsets;
  key_converter_ = Converter::create(config, true);
  value_converter_ = Converter::create(config, false);
  converters_may_wait_ = key_converter_->reachesService() || value_converter_->reachesService();
  offset_converter_ = offsetConverter();
  reader_converter_ = offsetConverter();
  chain_ = TransformationChain(config);
  errors_ = ErrorHandling::parse(config.values());
  if (config.get("exactly.once.source.support").value_or("disabled") == "enabled" &&
      config.get("transaction.boundary").value_or("poll") == "connector")
    transactions_ = std::make_unique<WorkerTransactionContext>();
  for (const auto& key : offsets.keys()) {
    try {
      const auto parsed = offset_converter_->toConnectData("", key).value;
      if (parsed.kind() == Value::Kind::kArray && parsed.asArray().size() == 2 &&
          parsed.asArray()[0] == Value::string(connector_))
        stored_partitions_.emplace(normalized(parsed.asArray()[1]).toJson(), key);
    } catch (const std::exception&) {
      // not an entry of Connect's shape
    }
  }
  task_->initialize(*this);
  task_->start(config);
}

bool SourceTaskAdapter::partitionKeyMismatch(const std::string& key) {
  if (stored_partitions_.empty() || checked_keys_.size() >= kMaxCheckedKeys) return false;
  if (!checked_keys_.insert(key).second || entries_->get(key)) return false;
  const auto parsed = offset_converter_->toConnectData("", key).value;
  const auto it = stored_partitions_.find(normalized(parsed.asArray()[1]).toJson());
  if (it == stored_partitions_.end() || it->second == key) return false;
  spdlog::warn(
      "source connector {}: the task emits partition {}, which has no stored offset, while {} — "
      "the same partition up to key order or number types — has one. The task builds its "
      "partition differently from the one stored (in start() and poll(), or than an earlier "
      "version): it will not resume from that offset",
      connector_, key, it->second);
  return true;
}

std::vector<detail::PolledRecord> SourceTaskAdapter::poll() {
  auto records = unconverted_.empty() ? task_->poll() : std::exchange(unconverted_, {});
  std::vector<detail::PolledRecord> out;
  out.reserve(records.size());
  for (size_t at = 0; at < records.size(); ++at) {
    auto& record = records[at];
    detail::PolledRecord polled;
    if (last_key_ && record.sourcePartition() == last_partition_) {
      polled.offset_key = last_key_;
    } else {
      requirePrimitives(record.sourcePartition(), "partition");
      polled.offset_key =
          std::make_shared<const std::string>(offsetKey(connector_, record.sourcePartition()));
      last_partition_ = record.sourcePartition();
      last_key_ = polled.offset_key;
      // Checked when the partition changes, not per record (each key at most once anyway).
      polled.partition_key_mismatch = partitionKeyMismatch(*polled.offset_key);
    }
    requirePrimitives(record.sourceOffset(), "offset");
    polled.offset_value = offsetValue(record.sourceOffset());
    polled.id = next_id_++;
    if (transactions_) polled.transaction = transactions_->takeFor(record);
    // A task that keeps SourceTask's commitRecord() needs no record back: its data is moved into
    // the conversion instead of kept (known after the first call; until then records are kept).
    const bool keep = task_->commit_record_overridden_.load(std::memory_order_relaxed);
    try {
      polled.record = convert(record, keep || converters_may_wait_);
    } catch (const ConversionUnavailable& e) {
      // This record and the rest wait for the service; the ones before it go on.
      --next_id_;
      if (transactions_) transactions_->restore(record, polled.transaction);
      unconverted_.assign(std::make_move_iterator(records.begin() + static_cast<ptrdiff_t>(at)),
                          std::make_move_iterator(records.end()));
      if (out.empty()) throw;
      spdlog::warn("source connector {}: {} records wait for their converter: {}", connector_,
                   unconverted_.size(), e.what());
      return out;
    } catch (const InvalidRecord& e) {
      throw std::runtime_error(
          fmt::format("the task returned an invalid record ({}): {}", describe(record), e.what()));
    } catch (const std::exception& e) {
      if (!errors_.tolerate_all)
        throw std::runtime_error(fmt::format(
            "Tolerance exceeded in error handler: a record ({}) failed its transforms or "
            "conversion: {}",
            describe(record), e.what()));
      polled.skipped = true;
      if (errors_.log_errors)
        spdlog::error("source record skipped (errors.tolerance=all): {}{}", e.what(),
                      errors_.log_include_messages ? " — " + describe(record) : "");
    }
    if (keep) {
      std::lock_guard lock(records_mutex_);
      if (records_.empty()) records_base_ = polled.id;
      records_.resize(polled.id - records_base_);  // ids of records not kept, in between
      records_.emplace_back(std::move(record));
    }
    out.push_back(std::move(polled));
  }
  return out;
}

detail::TransactionRequest SourceTaskAdapter::takeTransactionRequest() {
  return transactions_ ? transactions_->takeBatch() : detail::TransactionRequest::kNone;
}

std::optional<detail::ProducerRecordBytes> SourceTaskAdapter::convert(SourceRecord& record,
                                                                      bool keep) {
  if (chain_.empty()) {
    // No transform: converted straight from the record, which keeps its topic for a failure's
    // report until both conversions succeeded.
    auto out = bytesOf(record.topic_, record.kafkaPartition(), record.timestamp(), record.headers_,
                       record.key_, record.value_);
    out.topic = keep ? record.topic_ : std::move(record.topic_);
    return out;
  }
  ConnectRecord connect;
  connect.topic = record.topic_;  // copied: a failure's report names it
  connect.partition = record.kafkaPartition();
  connect.timestamp = record.timestamp();
  if (keep) {
    connect.key = record.key_;
    connect.value = record.value_;
    connect.headers = record.headers_;
  } else {
    connect.key = std::move(record.key_);
    connect.value = std::move(record.value_);
    connect.headers = std::move(record.headers_);
  }
  auto transformed = chain_.apply(std::move(connect));
  if (!transformed) return std::nullopt;
  auto out = bytesOf(transformed->topic, transformed->partition, transformed->timestamp,
                     transformed->headers, transformed->key, transformed->value);
  out.topic = std::move(transformed->topic);
  return out;
}

detail::ProducerRecordBytes SourceTaskAdapter::bytesOf(const std::string& topic,
                                                       std::optional<int32_t> partition,
                                                       std::optional<int64_t> timestamp,
                                                       const std::vector<ConnectHeader>& headers,
                                                       const SchemaAndValue& key,
                                                       const SchemaAndValue& value) {
  detail::ProducerRecordBytes out;
  out.timestamp = checkedTimestamp(timestamp);
  out.partition = partition;
  for (const auto& h : headers)
    out.headers.emplace_back(h.key, SimpleHeaderConverter::fromConnectHeader(h.value));
  out.key = key_converter_->fromConnectData(topic, key);
  out.value = value_converter_->fromConnectData(topic, value);
  return out;
}

void SourceTaskAdapter::commitRecord(uint64_t id, const std::optional<RecordMetadata>& metadata) {
  std::optional<SourceRecord> record;
  {
    std::lock_guard lock(records_mutex_);
    if (id < records_base_ || id - records_base_ >= records_.size()) return;
    record = std::move(records_[id - records_base_]);
    records_[id - records_base_].reset();
    while (!records_.empty() && !records_.front()) {
      records_.pop_front();
      ++records_base_;
    }
  }
  if (record) task_->commitRecord(*record, metadata);
  // (records not kept belong to a task whose commitRecord() does nothing)
}

std::optional<SourceMap> SourceTaskAdapter::offset(const SourceMap& partition) const {
  std::lock_guard lock(reader_mutex_);
  const auto stored = entries_->get(offsetKey(connector_, partition));
  if (!stored) return std::nullopt;
  try {
    auto value = reader_converter_->toConnectData("", *stored).value;
    if (value.kind() == Value::Kind::kObject) return std::move(value.asObject());
    spdlog::error("the stored offset of partition {} is not a map: {}",
                  Value::object(partition).toJson(), *stored);
  } catch (const std::exception& e) {
    spdlog::error("the stored offset of partition {} cannot be read: {}",
                  Value::object(partition).toJson(), e.what());
  }
  return std::nullopt;
}

std::vector<std::pair<SourceMap, SourceMap>> SourceTaskAdapter::offsets(
    const std::vector<SourceMap>& partitions) const {
  std::vector<std::pair<SourceMap, SourceMap>> out;
  for (const auto& partition : partitions)
    if (auto found = offset(partition)) out.emplace_back(partition, std::move(*found));
  return out;
}

detail::SourceDriverFactory sourceDriverFactory(SourceTaskFactory factory) {
  return [factory = std::move(factory)]() -> std::unique_ptr<detail::SourceTaskDriver> {
    auto task = factory();
    if (!task) return nullptr;
    return std::make_unique<SourceTaskAdapter>(std::move(task));
  };
}

}  // namespace ksink
