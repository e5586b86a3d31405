#!/usr/bin/env bash
# The Debian packages as an operator meets them, on this machine (as root; CI's is thrown away,
# and everything installed here is purged at the end, whatever happens): scripts/package builds
# them; apt installs them with their dependencies; the files, the user, the conffiles, the units
# (systemd-analyze verify and security) are checked; the installed ksink runs a connector from
# /etc/ksink against the test broker as the ksink user; an upgrade keeps a changed
# worker.properties; remove keeps configuration and state; purge removes everything install made.
#
#   tests/packaging/package_test.sh          # needs KSINK_TEST_BOOTSTRAP (a broker), root, kcat
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
[[ $(id -u) -eq 0 ]] || { echo "package_test: needs root (it installs packages)" >&2; exit 1; }
: "${KSINK_TEST_BOOTSTRAP:?a broker, as scripts/test exports it}"
export DEBIAN_FRONTEND=noninteractive

fail() { echo "package_test: FAILED: $*" >&2; exit 1; }
check() { "$@" >/dev/null 2>&1 || fail "$*"; }  # a condition that must hold
purge() { apt-get purge -y -qq ksink-dev ksink >/dev/null 2>&1 || dpkg --purge ksink-dev ksink >/dev/null 2>&1 || true; }
work="$(mktemp -d /tmp/ksink-package-test.XXXXXX)"
ksink_pid=""
cleanup() {
  [[ -z $ksink_pid ]] || kill "$ksink_pid" 2>/dev/null || true
  purge
  rm -rf "$work"
}
trap cleanup EXIT
if dpkg-query -W ksink >/dev/null 2>&1 || getent passwd ksink >/dev/null; then
  fail "ksink is installed here already (or its user exists): this test installs and purges it"
fi

# --- build and install --------------------------------------------------------------------------
scripts/package
version="$("${KSINK_BUILD_DIR:-build}/app/ksink/ksink" version | awk '{print $2}')"
arch="$(dpkg --print-architecture)"
apt-get install -y -qq "./dist/ksink_${version}_${arch}.deb" "./dist/ksink-dev_${version}_${arch}.deb" >/dev/null

[[ $(ksink version) == "ksink $version" ]] || fail "ksink version says '$(ksink version)', not $version"
[[ $(dpkg-query -W -f='${Version}' ksink) == "$version" ]] || fail "package version"
[[ $(pkg-config --modversion ksink) == "$version" ]] || fail "pkg-config ksink"
check test -f /usr/lib/*/cmake/ksink/ksinkConfig.cmake -o -f /usr/lib/cmake/ksink/ksinkConfig.cmake
check test -f /usr/include/ksink/ksink.h
check test -f /usr/share/doc/ksink/README.md
check test -d /usr/share/doc/ksink/examples/postgres
check test -d /etc/ksink/connectors.d
# The user: a system account without a shell or home of its own, owning the state directory.
IFS=: read -r _ _ uid _ _ home shell < <(getent passwd ksink) || fail "no ksink user"
((uid < 1000)) || fail "ksink is no system user (uid $uid)"
[[ $shell == /usr/sbin/nologin && $home == /var/lib/ksink ]] || fail "ksink's shell/home: $shell $home"
[[ $(stat -c '%U:%G %a' /var/lib/ksink) == "ksink:ksink 750" ]] || fail "/var/lib/ksink: $(stat -c '%U:%G %a' /var/lib/ksink)"
[[ $(stat -c '%a' /etc/default/ksink) == 600 ]] || fail "/etc/default/ksink is readable by others"
conffiles="$(dpkg-query -W -f='${Conffiles}' ksink)"
grep -q "/etc/ksink/worker.properties" <<<"$conffiles" || fail "worker.properties is no conffile"
# The shipped worker file is valid as it is, and the units are.
check ksink validate /etc/ksink/worker.properties /etc/ksink/connectors.d
systemd-analyze verify /lib/systemd/system/ksink.service
ln -s /lib/systemd/system/ksink@.service "$work/ksink@test.service"
systemd-analyze verify "$work/ksink@test.service"
for unit in /lib/systemd/system/ksink.service "$work/ksink@test.service"; do
  exposure="$(systemd-analyze security --offline=yes "$unit" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')"
  echo "package_test: systemd-analyze security $(basename "$unit"): $exposure"
  awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 2.0) }' || fail "exposure $exposure above 2.0"
done

# --- the installed ksink runs a connector from /etc/ksink, as the ksink user ---------------------
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
topic="ksink-package-test-$$"
sed -i -e "s|^bootstrap.servers=.*|bootstrap.servers=$KSINK_TEST_BOOTSTRAP|" \
  -e "s|^listeners=.*|listeners=http://127.0.0.1:$port|" \
  -e "s|^offset.flush.interval.ms=.*|offset.flush.interval.ms=500|" /etc/ksink/worker.properties
printf 'line one\nline two\n' >/var/lib/ksink/input.txt
chown ksink: /var/lib/ksink/input.txt
printf 'name=package-test\nconnector.class=FileStreamSource\nfile=/var/lib/ksink/input.txt\ntopic=%s\n' \
  "$topic" >/etc/ksink/connectors.d/package-test.properties
setpriv --reuid=ksink --regid=ksink --init-groups ksink run /etc/ksink/worker.properties /etc/ksink/connectors.d \
  >"$work/ksink.log" 2>&1 &
ksink_pid=$!
records=0
for _ in $(seq 1 60); do
  records="$(kcat -b "$KSINK_TEST_BOOTSTRAP" -C -t "$topic" -e -q 2>/dev/null | wc -l)" || records=0
  ((records >= 2)) && [[ -s /var/lib/ksink/connect.offsets ]] && break
  sleep 0.5
done
((records == 2)) || { cat "$work/ksink.log"; fail "$records records in $topic, not 2"; }
check test -s /var/lib/ksink/connect.offsets  # the offsets file, written by the ksink user
curl -fsS "http://127.0.0.1:$port/connectors/package-test/status" | grep -q '"state":"RUNNING"' ||
  fail "the connector is not RUNNING"
kill -TERM "$ksink_pid"
wait "$ksink_pid" || { cat "$work/ksink.log"; fail "ksink did not stop gracefully"; }
ksink_pid=""
echo "package_test: the installed ksink ran package-test ($records records into $topic)"

# --- upgrade: the changed conffile is kept, without a question ------------------------------------
KSINK_PACKAGE_VERSION_SUFFIX=upgrade KSINK_PACKAGE_LINTIAN=0 scripts/package >/dev/null
dpkg -i "dist/ksink_${version}+upgrade_${arch}.deb" "dist/ksink-dev_${version}+upgrade_${arch}.deb" \
  </dev/null >/dev/null
[[ $(dpkg-query -W -f='${Version}' ksink) == "$version+upgrade" ]] || fail "not upgraded"
grep -q "^bootstrap.servers=$KSINK_TEST_BOOTSTRAP\$" /etc/ksink/worker.properties ||
  fail "the upgrade lost the changed worker.properties"
check test -f /etc/ksink/connectors.d/package-test.properties
check test -s /var/lib/ksink/connect.offsets
rm -f dist/*+upgrade_*.deb

# --- remove keeps configuration, state and user; purge removes what install made -------------------
apt-get remove -y -qq ksink-dev ksink >/dev/null
check test ! -e /usr/bin/ksink
check test -f /etc/ksink/worker.properties
check test -s /var/lib/ksink/connect.offsets
check getent passwd ksink
purge
for path in /etc/ksink /etc/default/ksink /var/lib/ksink /lib/systemd/system/ksink.service \
  /usr/include/ksink /usr/share/doc/ksink; do
  [[ ! -e $path ]] || fail "$path is still there after purge"
done
! getent passwd ksink >/dev/null || fail "the ksink user is still there after purge"
! getent group ksink >/dev/null || fail "the ksink group is still there after purge"
! dpkg -s ksink >/dev/null 2>&1 || fail "dpkg still knows ksink after purge"
echo "package_test: ok (ksink $version: install, run, upgrade, remove, purge)"
