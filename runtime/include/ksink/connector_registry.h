// ConnectorRegistry: connectors by name, sinks and sources, for the `ksink` command line
// (`connector.class=<name>`).
//
// Built-in connectors register themselves at start-up; a program that links the SDK registers its
// own before calling runCli(), a plugin from its KSINK_PLUGIN function. A sink also claims the
// shared Connect class names it serves (for the configurations it can serve), so the command line
// names no sink. A source is added through ksink::addSourceConnector (ksink/source_connector.h),
// which wraps its SourceTask for the runtime. Registration is not thread-safe: do it before
// starting workers.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/exactly_once_support.h"
#include "ksink/sink_task.h"
#include "ksink/source_task.h"
#include "ksink/topic_partition.h"

namespace ksink {

class ConnectorRegistry {
 public:
  struct SinkEntry {
    std::string name;
    TaskFactory factory;
    ConfigDef config_def;  // the sink's own keys, checked by `ksink validate` and at start
    std::string description;
    // Kafka Connect's SinkConnector.alterOffsets (KIP-875), for sinks that keep their own offsets
    // (e.g. in the destination, like TransactionalSinkTask's ksink_offsets): without it, a task's
    // open() would rewind to the stored offsets and `ksink offsets --set/--reset` would change
    // nothing. `offsets` nullopt: reset, forget every offset stored for this connector (its
    // `name`); otherwise set exactly these partitions to these next offsets, leaving the others.
    // `config` is the connector's full configuration (worker keys merged in), already validated.
    // Called only by `ksink offsets` on the CLI's thread, once the consumer group was found
    // without members (no task of the connector runs), and before the group's offsets change;
    // throwing (any exception, with the reason) aborts the command and leaves the group
    // unchanged. Must be idempotent: a failed command is simply run again.
    // Null for sinks that keep no offsets of their own (the group's are then the only ones).
    std::function<void(const Config& config, const std::optional<OffsetMap>& offsets)>
        alter_offsets = nullptr;
    // For an entry that serves another connector's configuration (e.g. the Debezium JDBC sink's
    // keys): turns the connector's properties into this sink's own before anything is checked,
    // throwing ConfigException for keys it cannot serve. Null: the properties are used as they
    // are.
    std::function<std::map<std::string, std::string>(std::map<std::string, std::string>)>
        adapt_config = nullptr;
  };

  // A source connector (what addSourceConnector() in ksink/source_connector.h adds).
  struct SourceEntry {
    std::string name;
    SourceTaskFactory factory;
    ConfigDef config_def;  // the source's own keys
    std::string description;
    // For `ksink offsets` (KIP-875's shapes), Connect's offset bytes as the data model writes
    // them. `parse_offsets`: the entries (key bytes, value bytes or nullopt for a reset) a PATCH
    // body {"offsets":[{"partition":{…},"offset":{…}|null},…]} asks for; throws ConfigException
    // naming what is wrong. `partition_of`: the partition's JSON when `key` is an entry of
    // `connector`, else nullopt.
    std::function<std::vector<std::pair<std::string, std::optional<std::string>>>(
        std::string_view connector, std::string_view body)>
        parse_offsets = nullptr;
    std::function<std::optional<std::string>(std::string_view connector, std::string_view key)>
        partition_of = nullptr;
    // What it declares about exactly-once delivery.
    SourceCapabilities capabilities;
  };
  using Entry = SinkEntry;  // the name before sources came

  static ConnectorRegistry& global();

  // Whether a connector serves a shared class name for this configuration (the connector's merged
  // properties), e.g. by the scheme of its connection.url.
  using Claim = std::function<bool(const std::map<std::string, std::string>& config)>;

  // `aliases` are further names for the same connector (e.g. a Java connector class name). A name
  // names one connector: adding a source under a sink's name (or the reverse) replaces it.
  void add(SinkEntry entry, const std::vector<std::string>& aliases = {});
  void addSource(SourceEntry entry, const std::vector<std::string>& aliases = {});
  // `name` (a class several connectors may serve, such as Confluent's JdbcSinkConnector or
  // JdbcSourceConnector) resolves to the connector `target` (a sink or a source) for the
  // configurations `claim` accepts. Claims are tried in the order added. `serves` says which
  // configurations those are, for the message when none accepts one (e.g. "PostgreSQL:
  // connection.url jdbc:postgresql://… or postgresql://…").
  void claim(std::string name, std::string target, Claim claim, std::string serves = "");
  // What the claims of class `name` serve (their `serves`, else their target), in claim order;
  // empty when no connector claims it.
  std::vector<std::string> claimsOf(std::string_view name) const;

  // The sink named `name` (a name, an alias, or a claimed class for `config`); nullptr if none.
  const SinkEntry* find(std::string_view name,
                        const std::map<std::string, std::string>& config = {}) const;
  // The source named `name` (a name, an alias, or a claimed class for `config`); nullptr if none.
  const SourceEntry* findSource(std::string_view name,
                                const std::map<std::string, std::string>& config = {}) const;
  // Every connector's name, sinks and sources, sorted.
  std::vector<std::string> names() const;
  // Every class name a configuration may give (names, aliases, claimed classes) with its type
  // (sink, source; "sink, source" for a class claimed by both kinds), sorted by name: what
  // Connect's GET /connector-plugins lists.
  std::map<std::string, std::string> classes() const;

 private:
  struct Claimed {
    std::string name;
    std::string target;
    Claim claim;
    std::string serves;
  };
  // `name` through the claims (the first whose target is of the kind in `targets` and that accepts
  // `config`), then the aliases.
  template <typename Entries>
  std::string_view resolve(std::string_view name, const std::map<std::string, std::string>& config,
                           const Entries& targets) const;

  std::map<std::string, SinkEntry, std::less<>> entries_;
  std::map<std::string, SourceEntry, std::less<>> sources_;
  std::map<std::string, std::string, std::less<>> aliases_;
  std::vector<Claimed> claims_;
};

}  // namespace ksink
