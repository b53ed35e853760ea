#!/bin/sh
# setup.sh — install the Debian packages profan needs to build and test.
# Idempotent: does nothing when every package is already installed.
# Must run as root (or with sudo available) on a fresh Debian machine.
set -eu

# groff-base: groff, which renders the manual page (man profan; test_docs)
# libpq-dev: the history server client (profan push, --history); postgresql:
# the throwaway server the tests start (tests/e2e/pgserver.py)
PKGS="build-essential cmake pkg-config libsqlite3-dev sqlite3 libcsv-dev check \
zlib1g-dev python3 groff-base libpq-dev postgresql"
[ "${PROFAN_SETUP_EXTRA:-}" ] && PKGS="$PKGS $PROFAN_SETUP_EXTRA"

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
    || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086  # $missing is a list of package names
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
