#!/usr/bin/env bash
# Resolve a Kafka Connect runtime and one Debezium connector (plain jars from Maven Central) into
# a cache directory outside the repo, and print two directories on stdout:
#
#   integration/debezium/fetch.sh [postgres|jdbc]
#     -> line 1: the Connect runtime's jars, for the JVM classpath
#        e.g. /root/.cache/ksink/debezium-3.5.0.Final-connect-4.1.1/dist/connect-libs
#     -> line 2: the plugin.path directory; the connector is in its own folder under it
#        e.g. /root/.cache/ksink/debezium-3.5.0.Final-connect-4.1.1/dist/plugins
#
# The connector: postgres (default) is the Debezium PostgreSQL source, for start.sh; jdbc is the
# Debezium JDBC sink with the JDBC drivers it declares (PostgreSQL's among them), for the
# benchmark's peer (bench/peer/connect-sink.sh), cached apart in debezium-jdbc-<v>-connect-<v>.
# Env: KSINK_CACHE (default ~/.cache/ksink), KSINK_CONNECT_VERSION (default 4.1.1: Debezium
# 3.5's source and its JDBC sink both fail on Connect 4.4.0, see pom.xml),
# KSINK_DEBEZIUM_VERSION (default 3.5.0.Final).
# Idempotent (integration/fetch_once.sh).
set -euo pipefail
# shellcheck source=../fetch_once.sh
source "$(dirname "${BASH_SOURCE[0]}")/../fetch_once.sh"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
connector="${1:-postgres}"
case "$connector" in
  postgres) default_connect=4.1.1 tag="" ;;
  jdbc) default_connect=4.1.1 tag="-jdbc" ;;
  *) echo "usage: $0 [postgres|jdbc]" >&2; exit 2 ;;
esac
connect_version="${KSINK_CONNECT_VERSION:-$default_connect}"
debezium_version="${KSINK_DEBEZIUM_VERSION:-3.5.0.Final}"
cache="${KSINK_CACHE:-$HOME/.cache/ksink}"
dest="$cache/debezium$tag-$debezium_version-connect-$connect_version"
dist="$dest/dist"

print() { printf "%s\n%s\n" "$dist/connect-libs" "$dist/plugins"; }
fill() {  # <tmp>: connect-libs/ and plugins/
  local tmp="$1" plugin="$1/plugins/debezium-connector-$connector"
  # -B: batch mode (no prompts or progress bars); mvn output goes to stderr so stdout stays just
  # the paths. runtime scope = what runs (no test/provided jars).
  local mvn=(mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dconnect.version="$connect_version"
       -Ddebezium.version="$debezium_version" -Ddebezium.connector="debezium-connector-$connector"
       dependency:copy-dependencies -DincludeScope=runtime)
  "${mvn[@]}" -P runtime -DoutputDirectory="$tmp/connect-libs" >&2
  # Connect loads org.apache.kafka.* (connect-api, kafka-clients) and slf4j from the worker's
  # classpath, never from a plugin; leaving them out also keeps the connector's slf4j 1.7 away.
  "${mvn[@]}" -P plugin -DexcludeGroupIds=org.apache.kafka,org.slf4j -DoutputDirectory="$plugin" >&2
  # Jars the runtime already has, same artifact and version: the plugin needs no second copy.
  for jar in "$plugin"/*.jar; do
    if [[ -f "$tmp/connect-libs/$(basename "$jar")" ]]; then rm "$jar"; fi
  done
  # Fail loudly on an empty resolve.
  ls "$tmp/connect-libs/connect-runtime-$connect_version.jar" \
     "$plugin/debezium-connector-$connector-$debezium_version.jar" >/dev/null
}
fetch_once "$dist" fill
print
