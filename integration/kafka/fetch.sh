#!/usr/bin/env bash
# Resolve a real Apache Kafka broker (plain jars from Maven Central) into a cache
# directory outside the repo and print that libs directory on stdout.
#
#   integration/kafka/fetch.sh            -> e.g. /root/.cache/ksink/kafka-4.4.0/libs
#
# Env: KSINK_CACHE (default ~/.cache/ksink), KSINK_KAFKA_VERSION (default 4.4.0).
# Idempotent: a marker file is written only after a complete copy, so an
# interrupted run is simply redone; flock serialises concurrent callers.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${KSINK_KAFKA_VERSION:-4.4.0}"
cache="${KSINK_CACHE:-$HOME/.cache/ksink}"
dest="$cache/kafka-$version"
libs="$dest/libs"
marker="$libs/.ksink-complete"

if [[ -f "$marker" ]]; then
  echo "$libs"
  exit 0
fi

mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
if [[ ! -f "$marker" ]]; then   # another caller may have finished while we waited
  tmp="$dest/libs.tmp.$$"
  rm -rf "$tmp"
  # -B: batch mode (no prompts or progress bars); mvn output goes to stderr so stdout stays just the path.
  # runtime scope = what the broker needs at run time (no test/provided jars).
  mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dkafka.version="$version" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >&2
  ls "$tmp"/kafka_2.13-"$version".jar >/dev/null   # fail loudly on an empty resolve
  touch "$tmp/.ksink-complete"
  rm -rf "$libs"
  mv "$tmp" "$libs"              # atomic publish: readers never see a half-filled dir
fi
echo "$libs"
