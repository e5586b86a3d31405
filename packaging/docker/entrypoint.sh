#!/bin/sh
# ksink's container entrypoint (Dockerfile).
#   run [args…]   (the default) validate, then run /etc/ksink/worker.properties with the connector
#                 files of /etc/ksink/connectors.d (and args); a bad file ends the container at
#                 once with its problems in the log
#   validate      validate only
#   other …       `ksink other …` (ksink version, ksink offsets …)
# Worker keys from the environment, as Confluent's images take CONNECT_*: KSINK_WORKER_<NAME>=v
# sets the key <name> lowercased, '_' read as '.' and '__' as '_'
# (KSINK_WORKER_BOOTSTRAP_SERVERS=kafka:9092 → bootstrap.servers=kafka:9092); the worker file is
# then a copy with those keys replaced, written (0600) to $TMPDIR (/tmp).
# KSINK_CONFIG_DIR (/etc/ksink) and KSINK_BIN (ksink) are for tests.
set -eu
ksink="${KSINK_BIN:-ksink}"
conf="${KSINK_CONFIG_DIR:-/etc/ksink}"
worker="$conf/worker.properties"

overrides="$(env | grep '^KSINK_WORKER_[A-Z0-9_]*=' || true)"
if [ -n "$overrides" ]; then
  umask 077
  copy="${TMPDIR:-/tmp}/ksink-worker.properties"
  cp "$worker" "$copy"
  echo "$overrides" | while IFS= read -r line; do
    name="${line%%=*}"
    value="${line#*=}"
    key="$(printf '%s' "${name#KSINK_WORKER_}" | sed 's/__/@@/g; s/_/./g; s/@@/_/g' | tr 'A-Z' 'a-z')"
    # The key's lines go (with a `key = value` spelling too), the environment's value follows.
    grep -v "^[[:space:]]*$(printf '%s' "$key" | sed 's/\./\\./g')[[:space:]]*[=:]" "$copy" >"$copy.new" || true
    mv "$copy.new" "$copy"
    printf '%s=%s\n' "$key" "$value" >>"$copy"
    echo "ksink-entrypoint: $key from $name" >&2
  done
  worker="$copy"
fi

command="${1:-run}"
[ $# -eq 0 ] || shift
case "$command" in
  run)
    "$ksink" validate "$worker" "$conf/connectors.d"
    exec "$ksink" run "$worker" "$conf/connectors.d" "$@"
    ;;
  validate) exec "$ksink" validate "$worker" "$conf/connectors.d" "$@" ;;
  *) exec "$ksink" "$command" "$@" ;;
esac
