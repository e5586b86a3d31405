#!/usr/bin/env bash
# Start a real schema registry (Apicurio Registry, fetched by fetch.sh) on loopback for the
# integration tests, wait until it is ready, and print the base URL of its Confluent-compatible
# API (what `schema.registry.url` takes):
#
#   integration/schema-registry/start.sh <workdir>   -> http://127.0.0.1:PORT/apis/ccompat/v7
#
# Writes into <workdir>: registry.out (the JVM's output), pid, port, url. In memory: a restart
# starts empty (a test that stops it mid-run re-registers nothing: schemas are kept by id in the
# client's cache, and the registry's ids restart at 1 — restart it only to test an outage).
# Compatibility is set to BACKWARD globally, as Confluent's default (Apicurio's is NONE).
# Env: KSINK_REGISTRY_HEAP (default "-Xms64m -Xmx384m"), KSINK_REGISTRY_START_TIMEOUT (s, 90),
# plus those of fetch.sh. A workdir with a live registry is idempotent (prints its URL); one that
# ran before is started again on the same port.
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 <workdir>" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
wd="$(cd "$1" && pwd)"
timeout_s="${KSINK_REGISTRY_START_TIMEOUT:-90}"

alive() { [[ -f "$wd/pid" ]] && kill -0 "$(cat "$wd/pid")" 2>/dev/null; }
if alive && [[ -f "$wd/url" ]]; then
  cat "$wd/url"
  exit 0
fi

dist="$("$here/fetch.sh")"
version="${KSINK_APICURIO_VERSION:-2.6.13.Final}"
if [[ -f "$wd/port" ]]; then
  port="$(cat "$wd/port")"
else
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  echo "$port" >"$wd/port"
fi
base="http://127.0.0.1:$port"

# SerialGC and a small heap: a 2-core box shared with the broker and the code under test.
# K_SINK is a variable the registry reads (a Knative events sink): never pass one on.
# shellcheck disable=SC2086
(cd "$dist" && exec env -u K_SINK HTTP_PORT="$port" setsid java ${KSINK_REGISTRY_HEAP:--Xms64m -Xmx384m} \
  -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dquarkus.http.host=127.0.0.1 \
  -Dquarkus.http.port="$port" -jar "apicurio-registry-app-$version-runner.jar" \
  </dev/null >"$wd/registry.out" 2>&1) &
echo $! >"$wd/pid"

deadline=$((SECONDS + timeout_s))
until curl -sf "$base/health/ready" >/dev/null 2>&1; do
  if ! alive; then
    echo "schema-registry: exited during start:" >&2; tail -n 40 "$wd/registry.out" >&2; exit 1
  fi
  if ((SECONDS >= deadline)); then
    echo "schema-registry: not ready after ${timeout_s}s:" >&2; tail -n 40 "$wd/registry.out" >&2
    "$here/stop.sh" "$wd" >/dev/null 2>&1 || true
    exit 1
  fi
  sleep 0.3
done
curl -sf -X PUT -H 'Content-Type: application/json' -d '{"compatibility":"BACKWARD"}' \
  "$base/apis/ccompat/v7/config" >/dev/null
echo "$base/apis/ccompat/v7" | tee "$wd/url"
