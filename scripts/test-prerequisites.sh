#!/usr/bin/env bash
# What `npm test` needs from the machine besides npm: Debian's Chromium (the browser tests; never
# a test tool's own download), Debian's PostgreSQL (its initdb and pg_ctl start a throwaway
# cluster for the PostgreSQL + S3 project) and Info-ZIP's unzip (the archive tests open "Download
# all" ZIPs with it). Run as root on a machine with apt, it installs what is missing; otherwise a
# missing one stops the run with one line naming the command that brings it, so that every test
# runs and none is skipped (ADR 0070).
set -euo pipefail

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=()
[ -x "$chromium" ] || missing+=(chromium)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "npm test needs ${missing[*]}: run \`sudo apt-get install -y --no-install-recommends ${missing[*]}\`, then npm test again" >&2
  exit 1
fi

echo "Installing ${missing[*]} for the tests (apt-get)" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The package starts a cluster of its own on port 5432: the tests start their own and never use it.
if command -v pg_ctlcluster >/dev/null 2>&1; then service postgresql stop >/dev/null 2>&1 || true; fi
