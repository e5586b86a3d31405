#!/usr/bin/env bash
# Resolve a real Apache Kafka broker (plain jars from Maven Central) into a cache
# directory outside the repo and print that libs directory on stdout.
#
#   integration/kafka/fetch.sh            -> e.g. /root/.cache/ksink/kafka-4.4.0/libs
#
# Env: KSINK_CACHE (default ~/.cache/ksink), KSINK_KAFKA_VERSION (default 4.4.0).
# Idempotent (integration/fetch_once.sh).
set -euo pipefail
# shellcheck source=../fetch_once.sh
source "$(dirname "${BASH_SOURCE[0]}")/../fetch_once.sh"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${KSINK_KAFKA_VERSION:-4.4.0}"
cache="${KSINK_CACHE:-$HOME/.cache/ksink}"
dest="$cache/kafka-$version"
libs="$dest/libs"

fill() {  # <tmp>
  # -B: batch mode (no prompts or progress bars); mvn output goes to stderr so stdout stays just
  # the path. runtime scope = what the broker needs at run time (no test/provided jars).
  mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dkafka.version="$version" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$1" >&2
  ls "$1"/kafka_2.13-"$version".jar >/dev/null   # fail loudly on an empty resolve
}
fetch_once "$libs" fill
echo "$libs"
