# Sourced, not run: the pieces of a Kafka Connect standalone worker's setup that both
# integration/debezium/start.sh (the Debezium source, for tests) and bench/peer/connect-sink.sh
# (the Debezium JDBC sink, the benchmark's peer) write the same way. Each function either writes
# one file or prints one value; none starts anything.
# shellcheck shell=bash
# The log4j2 configuration: log4j2_file_config in integration/log4j2.sh.
# shellcheck source=../log4j2.sh
source "$(dirname "${BASH_SOURCE[0]}")/../log4j2.sh"

# A free loopback TCP port, not Connect's default 8083 (several workers may run at once). Small
# race until the worker binds it; acceptable for tests and benchmarks.
connect_free_port() {
  python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# connect_connector_properties <file> <arg>...: the connector's configuration, each <arg> a
# properties file (copied) or key=value (appended), later winning as in java.util.Properties;
# mode 600, since it may hold a database password. Checks that it names `name` and
# `connector.class`, and prints the name. $log_tag prefixes the error messages.
connect_connector_properties() {
  local props="$1" arg name
  shift
  (
    umask 077
    : >"$props.tmp"
    for arg in "$@"; do
      if [[ $arg == *=* ]]; then printf "%s\n" "$arg" >>"$props.tmp"
      elif [[ -f $arg ]]; then cat "$arg" >>"$props.tmp"; echo >>"$props.tmp"
      else echo "$log_tag: '$arg' is neither key=value nor a file" >&2; exit 2; fi
    done
    mv "$props.tmp" "$props"
  ) || return
  # The last `name=` wins, as in java.util.Properties.
  name="$(sed -n 's/^[[:space:]]*name[[:space:]]*[=:][[:space:]]*//p' "$props" | tail -n1)"
  [[ -n $name ]] || { echo "$log_tag: the connector configuration has no name=" >&2; return 2; }
  grep -q '^[[:space:]]*connector\.class[[:space:]]*[=:]' "$props" \
    || { echo "$log_tag: the connector configuration has no connector.class=" >&2; return 2; }
  printf "%s\n" "$name"
}

# connect_worker_properties <file> <bootstrap> <workdir> <port> <plugin.path>: the worker's
# configuration. JsonConverter for keys and values with schemas (a connector's own
# key.converter*/value.converter* keys override these, as Connect allows), source offsets in
# <workdir>/offsets.dat, REST on 127.0.0.1:<port> (a standalone worker always serves REST).
# The caller may append lines of its own.
connect_worker_properties() {
  cat >"$1" <<PROPS
bootstrap.servers=$2
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=true
value.converter.schemas.enable=true
offset.storage.file.filename=$3/offsets.dat
listeners=http://127.0.0.1:$4
plugin.path=$5
# Plugins are found through their META-INF/services manifests (Kafka's and Debezium's jars have
# them): no reflective scan of every jar, which costs seconds of a 2-core box at each start.
plugin.discovery=service_load
PROPS
}
