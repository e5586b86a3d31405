#!/usr/bin/env bash
# Start a Kafka Connect standalone worker running one source connector (the Debezium PostgreSQL
# source, resolved by fetch.sh) against a broker, wait until the connector and its task are
# RUNNING, and print the worker's REST URL (also written to <workdir>/rest_url):
#
#   integration/debezium/start.sh <workdir> <bootstrap> [<connector.properties>] [key=value...]
#     -> http://127.0.0.1:PORT
#
# The connector's configuration is the properties file (if given) followed by the key=value
# arguments (later wins); it needs at least `name` and `connector.class`, and is written to
# <workdir>/connector.properties (mode 600: it holds the database password). Prefer the file for
# a password: arguments show in `ps`.
# The worker: JsonConverter for keys and values with schemas.enable=true, offsets in
# <workdir>/offsets.dat, the REST API on a free loopback port, plugin.path = fetch.sh's plugin
# folder. Also in <workdir>: worker.properties, log4j2.properties, connect.log (log4j2),
# connect.out (JVM stdout/stderr), pid, rest_url, name (the connector's).
# Idempotent: prints the URL if the worker is already running here. A workdir that already ran a
# worker is restarted with its REST port and offsets (so the source resumes where it was); use a
# fresh dir for a fresh one.
# Env: KSINK_CONNECT_PLUGIN (fetch.sh's connector: postgres, the default, or jdbc for the
# Debezium JDBC sink on its own runtime), KSINK_DEBEZIUM_HEAP (default "-Xms64m -Xmx384m"), KSINK_DEBEZIUM_LOG_LEVEL (root level in
# connect.log, default WARN; Debezium's own lines are always at INFO),
# KSINK_DEBEZIUM_START_TIMEOUT (s, 90), KSINK_CONNECT_PLUGIN_PATH (further plugin.path
# directories, e.g. fetch_connect_file.sh's for Connect's FileStreamSource),
# KSINK_CONNECT_OFFSETS_TOPIC (when set: a distributed worker instead, alone in its group, its
# source offsets in that topic — config and status topics beside it, replication factor 1 — and
# the connector created through the REST API), KSINK_DEBEZIUM_WATCH_PID (when set: stop the worker, as
# stop.sh does, once that process is gone, so a test killed mid-run leaves no JVM behind holding
# a replication slot), plus those of fetch.sh.
set -euo pipefail

usage() {
  echo "usage: $0 <workdir> <bootstrap> [<connector.properties>] [key=value...]" >&2
  exit 2
}
[[ $# -ge 2 ]] || usage
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=worker_config.sh
source "$here/worker_config.sh"
log_tag=debezium
mkdir -p "$1"
wd="$(cd "$1" && pwd)"
bootstrap="$2"
shift 2
timeout_s="${KSINK_DEBEZIUM_START_TIMEOUT:-90}"

alive() { [[ -f "$wd/pid" ]] && kill -0 "$(cat "$wd/pid")" 2>/dev/null; }
if alive && [[ -f "$wd/rest_url" ]]; then   # idempotent: already running here
  cat "$wd/rest_url"
  exit 0
fi

# The connector's configuration: file first, then key=value arguments.
props="$wd/connector.properties"
name="$(connect_connector_properties "$props" "$@")"
echo "$name" >"$wd/name"

{ read -r libs; read -r plugins; } < <("$here/fetch.sh" "${KSINK_CONNECT_PLUGIN:-postgres}")
[[ -d $libs && -d $plugins ]] || { echo "debezium: fetch.sh printed no directories" >&2; exit 1; }

if [[ ! -f "$wd/worker.properties" ]]; then
  port="$(connect_free_port)"
  connect_worker_properties "$wd/worker.properties" "$bootstrap" "$wd" "$port" \
    "$plugins${KSINK_CONNECT_PLUGIN_PATH:+,$KSINK_CONNECT_PLUGIN_PATH}"
  cat >>"$wd/worker.properties" <<'PROPS'
# Tests stop and restart workers: save source offsets every second, not every minute.
offset.flush.interval.ms=1000
PROPS
  if [[ -n ${KSINK_CONNECT_OFFSETS_TOPIC:-} ]]; then
    topic="$KSINK_CONNECT_OFFSETS_TOPIC"
    sed -i '/^offset.storage.file.filename=/d' "$wd/worker.properties"
    cat >>"$wd/worker.properties" <<PROPS
group.id=$topic-group
offset.storage.topic=$topic
offset.storage.replication.factor=1
config.storage.topic=$topic-configs
config.storage.replication.factor=1
status.storage.topic=$topic-status
status.storage.replication.factor=1
PROPS
  fi
else
  port="$(sed -n 's#^listeners=http://127.0.0.1:\([0-9]*\)$#\1#p' "$wd/worker.properties")"
  # The broker may have moved (a test restarting its services): follow the one given now.
  sed -i "s#^bootstrap.servers=.*#bootstrap.servers=$bootstrap#" "$wd/worker.properties"
fi
url="http://127.0.0.1:$port"

# Quiet by default, but Debezium's INFO lines tell how far a start got (snapshot, streaming),
# and the worker's lifecycle lines show in a failed start.
log4j2_file_config "$wd/log4j2.properties" "$wd/connect.log" "${KSINK_DEBEZIUM_LOG_LEVEL:-WARN}" \
  io.debezium=INFO org.apache.kafka.connect.cli=INFO org.apache.kafka.connect.runtime.Worker=INFO

# JVM sized for a 2-core / shared CI box: small heap, SerialGC (no parallel GC threads competing
# with the code under test), C1 only (a test worker lives for seconds: start-up beats peak speed).
# setsid: own session, so ^C or a test runner killing its process group does not take the worker
# down mid-test; stop.sh is the way to end it. The child writes its own pid (setsid may fork).
rm -f "$wd/pid" "$wd/rest_url"
if grep -q '^group.id=' "$wd/worker.properties"; then
  main_class=org.apache.kafka.connect.cli.ConnectDistributed connector_arg=()
else
  main_class=org.apache.kafka.connect.cli.ConnectStandalone connector_arg=("$props")
fi
# SC2016: $$/$0/$@ belong to the inner bash; SC2086: KSINK_DEBEZIUM_HEAP is a flag list.
# shellcheck disable=SC2016,SC2086
setsid bash -c 'echo $$ >"$0"; exec "$@"' "$wd/pid" \
  java ${KSINK_DEBEZIUM_HEAP:--Xms64m -Xmx384m} -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -XX:MaxDirectMemorySize=128m -Djava.awt.headless=true \
  -Dlog4j2.configurationFile="$wd/log4j2.properties" \
  -cp "$libs/*" "$main_class" "$wd/worker.properties" "${connector_arg[@]}" \
  </dev/null >"$wd/connect.out" 2>&1 &

fail() {
  echo "debezium: $1; tail of $wd/connect.log and connect.out:" >&2
  tail -n 60 "$wd/connect.log" "$wd/connect.out" >&2 2>/dev/null || true
  "$here/stop.sh" "$wd" >&2 || true
  exit 1
}

# GET /connectors/<name>/status; prints RUNNING when the connector and every task (at least one)
# are, FAILED (with the trace) when any failed, else what it is waiting for.
status() {
  python3 - "$url" "$name" <<'PY'
import json, sys, urllib.error, urllib.parse, urllib.request
url, name = sys.argv[1], sys.argv[2]
try:
    with urllib.request.urlopen(f"{url}/connectors/{urllib.parse.quote(name, safe='')}/status",
                                timeout=5) as r:
        s = json.load(r)
except (OSError, ValueError) as e:  # not listening yet, or the connector not created yet
    print(f"no status yet ({e})")
    sys.exit(0)
states = [s["connector"]] + s.get("tasks", [])
failed = [x for x in states if x.get("state") == "FAILED"]
if failed:
    print("FAILED:", *(x.get("trace", "(no trace)") for x in failed), sep="\n")
elif s.get("tasks") and all(x.get("state") == "RUNNING" for x in states):
    print("RUNNING")
else:
    print("waiting:", json.dumps(s))
PY
}

# A distributed worker takes its connectors through REST: PUT the configuration once it listens.
put_config() {
  python3 - "$url" "$name" "$props" <<'PY'
import json, sys, urllib.parse, urllib.request
url, name, path = sys.argv[1], sys.argv[2], sys.argv[3]
config = {}
for line in open(path):
    line = line.strip()
    if line and not line.startswith("#") and "=" in line:
        k, v = line.split("=", 1)
        config[k.strip()] = v.strip()
req = urllib.request.Request(f"{url}/connectors/{urllib.parse.quote(name, safe='')}/config",
                             data=json.dumps(config).encode(), method="PUT",
                             headers={"Content-Type": "application/json"})
try:
    urllib.request.urlopen(req, timeout=10).read()
except OSError:
    sys.exit(1)
PY
}

deadline=$((SECONDS + timeout_s))
if [[ $main_class == *Distributed ]]; then
  until put_config; do
    [[ -f "$wd/pid" ]] && ! alive && fail "worker process exited during start"
    ((SECONDS < deadline)) || fail "the worker's REST API did not take connector $name"
    sleep 0.5
  done
fi
while true; do
  st="$(status)"
  [[ $st == RUNNING ]] && break
  [[ $st == FAILED* ]] && fail "connector $name failed: $st"
  [[ -f "$wd/pid" ]] && ! alive && fail "worker process exited during start"
  ((SECONDS < deadline)) || fail "connector $name not RUNNING after ${timeout_s}s (last: $st)"
  sleep 0.5
done

if [[ -n ${KSINK_DEBEZIUM_WATCH_PID:-} ]]; then
  # Own session and no inherited stdout, so it neither dies with the caller's process group nor
  # keeps the caller's pipe open; it ends by itself when the worker does.
  # SC2016: the variables belong to the inner bash.
  # shellcheck disable=SC2016
  setsid bash -c 'while kill -0 "$0" 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done
    if kill -0 "$1" 2>/dev/null; then "$2/stop.sh" "$3"; fi' \
    "$KSINK_DEBEZIUM_WATCH_PID" "$(cat "$wd/pid")" "$here" "$wd" \
    </dev/null >>"$wd/watch.log" 2>&1 &
fi

echo "$url" >"$wd/rest_url"
echo "$url"
