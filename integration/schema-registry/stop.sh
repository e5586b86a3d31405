#!/usr/bin/env bash
# Stop the registry start.sh started in <workdir>: SIGTERM, then SIGKILL after 20 s. Idempotent:
# no pid file or a dead process is success. `--purge` also deletes <workdir>.
#
#   integration/schema-registry/stop.sh <workdir> [--purge]
set -euo pipefail

[[ $# -ge 1 ]] || { echo "usage: $0 <workdir> [--purge]" >&2; exit 2; }
wd="$1"
if [[ -f "$wd/pid" ]]; then
  pid="$(cat "$wd/pid")"
  # Only our registry: a stale pid file may name an unrelated process now.
  if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q apicurio-registry-app; then
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 20))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$wd/pid" "$wd/url"
fi
[[ ${2:-} != --purge ]] || rm -rf "$wd"
