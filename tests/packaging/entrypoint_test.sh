#!/usr/bin/env bash
# The container's entrypoint (packaging/docker/entrypoint.sh) with a stand-in ksink that records
# its calls: `run` validates then runs the configuration directory; a failed validation stops it
# before run; KSINK_WORKER_* keys replace the worker file's; other commands pass through.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
entrypoint="$root/packaging/docker/entrypoint.sh"
work="$(mktemp -d /tmp/ksink-entrypoint.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/etc/connectors.d" "$work/tmp"
printf 'bootstrap.servers=localhost:9092\nlisteners = http://0.0.0.0:8083\nlog.level=info\n' \
  >"$work/etc/worker.properties"
# The stand-in: one line per call (its arguments), the worker file it was given kept; exits
# $FAKE_VALIDATE_EXIT for validate.
cat >"$work/ksink" <<'STUB'
#!/bin/sh
echo "$*" >>"$FAKE_CALLS"
[ "$1" = version ] || cp "$2" "$FAKE_CALLS.worker"
[ "$1" = validate ] && exit "${FAKE_VALIDATE_EXIT:-0}"
exit 0
STUB
chmod +x "$work/ksink"
export KSINK_BIN="$work/ksink" KSINK_CONFIG_DIR="$work/etc" TMPDIR="$work/tmp" FAKE_CALLS="$work/calls"
fail() { echo "entrypoint_test: FAILED: $*" >&2; exit 1; }

# run, by default: validate, then run, on the configuration directory.
"$entrypoint"
expected="validate $work/etc/worker.properties $work/etc/connectors.d
run $work/etc/worker.properties $work/etc/connectors.d"
[[ $(cat "$work/calls") == "$expected" ]] || fail "calls: $(cat "$work/calls")"

# A failed validation: no run, its exit status.
rm "$work/calls"
set +e
FAKE_VALIDATE_EXIT=2 "$entrypoint" run
status=$?
set -e
((status == 2)) || fail "exit $status after a failed validation"
[[ $(wc -l <"$work/calls") -eq 1 ]] || fail "ran after a failed validation: $(cat "$work/calls")"

# Environment keys replace the file's (either spelling), the others stay; the copy is private.
rm "$work/calls"
KSINK_WORKER_BOOTSTRAP_SERVERS=kafka:9092 KSINK_WORKER_LISTENERS=http://0.0.0.0:9000 \
  KSINK_WORKER_CONSUMER_MAX__POLL__RECORDS=10 "$entrypoint" run
worker="$work/calls.worker"
grep -qx "bootstrap.servers=kafka:9092" "$worker" || fail "bootstrap.servers: $(cat "$worker")"
grep -qx "listeners=http://0.0.0.0:9000" "$worker" || fail "listeners: $(cat "$worker")"
grep -qx "consumer.max_poll_records=10" "$worker" || fail "'__' as '_': $(cat "$worker")"
grep -qx "log.level=info" "$worker" || fail "a key lost: $(cat "$worker")"
[[ $(grep -c "bootstrap.servers\|listeners" "$worker") -eq 2 ]] || fail "a key twice: $(cat "$worker")"
[[ $(stat -c %a "$work/tmp/ksink-worker.properties") == 600 ]] || fail "the copy is readable by others"
grep -q "^run $work/tmp/ksink-worker.properties " "$work/calls" || fail "run not on the copy"

# Anything else is a ksink command.
rm "$work/calls"
"$entrypoint" version
[[ $(cat "$work/calls") == "version" ]] || fail "version: $(cat "$work/calls")"
echo "entrypoint_test: ok"
