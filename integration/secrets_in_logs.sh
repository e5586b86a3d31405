#!/usr/bin/env bash
# No password of the integration tests in anything the run logged: the ksink processes' logs, the
# services', ctest's record of every test's output. scripts/test runs it after the integration
# tests, over the directory it gave them as TMPDIR (every test's files are there) and ctest's log.
#
#   integration/secrets_in_logs.sh <dir>… [<file>…]
# The passwords: those written in the tests' sources (each checked still there, so that a renamed
# one is noticed instead of never looked for), and the scram-only PostgreSQL server's
# (postgres_security_test's): KSINK_PG_PASSWORD, which scripts/test sets for the run, or a
# `password` file its server left.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

fixed=(
  # SASL/PLAIN user alice's, on the SASL broker security_test starts.
  "s3cret integration/sdk/security_test.cpp"
  # Basic authentication on the REST listener.
  "tls-test-password integration/sdk/status_listener_test.cpp"
)
secrets=()
for entry in "${fixed[@]}"; do
  read -r secret source <<<"$entry"
  grep -qF -- "$secret" "$root/$source" || { echo "secrets: '$secret' is no longer in $source" >&2; exit 1; }
  secrets+=("$secret")
done
[[ -z ${KSINK_PG_PASSWORD:-} ]] || secrets+=("$KSINK_PG_PASSWORD")
logs=()
for path in "$@"; do
  if [[ -d $path ]]; then
    while IFS= read -r -d '' f; do secrets+=("$(head -c 200 "$f")"); done \
      < <(find "$path" -type f -name password -print0)
    while IFS= read -r -d '' f; do logs+=("$f"); done \
      < <(find "$path" -type f \( -name '*.log' -o -name '*.out' -o -name '*.err' \) \
        ! -name '[0-9]*.log' -print0)  # not a Kafka broker's segments: records, not logs
  elif [[ -f $path ]]; then
    logs+=("$path")
  fi
done
((${#logs[@]})) || { echo "secrets: no logs found in $*" >&2; exit 1; }

found=0
for secret in "${secrets[@]}"; do
  [[ -n $secret ]] || continue
  while IFS= read -r hit; do
    echo "secrets: a test password is in $hit" >&2
    found=1
  done < <(grep -rlF -- "$secret" "${logs[@]}" || true)
done
((found == 0)) || exit 1
echo "secrets: ${#secrets[@]} passwords, none in ${#logs[@]} logs"
