#!/usr/bin/env bash
# Stop the Connect worker (standalone or distributed) started by start.sh in <workdir>: SIGTERM
# (the worker stops its connector cleanly: a Debezium source with slot.drop.on.stop=true drops its replication slot,
# offsets are flushed), then SIGKILL after KSINK_DEBEZIUM_STOP_TIMEOUT seconds (default 30).
# Idempotent: no pid file or a dead process is success. Offsets and logs stay in <workdir>.
#
#   integration/debezium/stop.sh <workdir>
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 <workdir>" >&2; exit 2; }
wd="$1"
pidfile="$wd/pid"
[[ -f "$pidfile" ]] || exit 0
pid="$(cat "$pidfile")"

# Only signal the pid if it is still our worker: a stale pid file from a crashed run may now name
# an unrelated process.
ours() {
  local c
  c="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" || return 1
  [[ $c == *ConnectStandalone* || $c == *ConnectDistributed* ]]
}

if ours; then
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + ${KSINK_DEBEZIUM_STOP_TIMEOUT:-30}))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "debezium: pid $pid ignored SIGTERM, sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
fi
rm -f "$pidfile" "$wd/rest_url"
