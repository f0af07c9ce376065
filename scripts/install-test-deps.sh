#!/usr/bin/env bash
# Installs what the test suites need from Debian (today: Chromium for the end-to-end tests), when missing.
# Needs root (CI runs as root); elsewhere it says what to install and the suites that need it skip with a reason.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-test-deps: missing ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
