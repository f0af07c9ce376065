#!/usr/bin/env bash
# Installs what the test suites need from Debian (Chromium, sshd, Slurm, Grid Engine), when missing.
# Needs root (CI runs as root); elsewhere it says what to install and the suites that need it skip with a reason.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/sshd ] || missing+=(openssh-server) # test/integration/ssh.test.ts runs its own sshd on 127.0.0.1
# test/integration/batch-systems.test.ts runs a Slurm cluster and a Grid Engine cell on loopback (gcc builds
# the harness's bind shim for Grid Engine).
for p in munge slurmctld slurmd slurm-client gridengine-master gridengine-exec gridengine-client gcc libc6-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-test-deps: missing ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Packages must not start their daemons (sshd would listen on 0.0.0.0:22): the tests start their own, on loopback.
policy_added=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && policy_added=1
fi
trap '[ "$policy_added" -eq 1 ] && rm -f /usr/sbin/policy-rc.d' EXIT
# Grid Engine's packages would otherwise build (and start) the Debian default cell; the tests build their own.
printf '%s\n' 'gridengine-common shared/gridengineconfig boolean false' 'gridengine-master shared/gridengineconfig boolean false' \
  'gridengine-exec shared/gridengineconfig boolean false' 'gridengine-client shared/gridengineconfig boolean false' | debconf-set-selections
apt-get install -y -qq --no-install-recommends "${missing[@]}"
