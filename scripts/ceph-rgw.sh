#!/usr/bin/env bash
# Install Debian's Ceph RADOS Gateway, monitor and OSD for the S3 tests (tests/support/ceph-rgw.ts starts
# them, on 127.0.0.1, in a temporary folder, for each test file that needs them). Safe to run again: it
# installs only what is missing. Set TAPSHOT_SKIP_CEPH=1 to skip it (the S3 tests then skip Ceph too).
set -euo pipefail

if [ "${TAPSHOT_SKIP_CEPH:-}" = "1" ]; then
  echo "TAPSHOT_SKIP_CEPH=1: not installing Ceph; the S3 tests run only against the replica."
  exit 0
fi

have_ceph() {
  for bin in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool; do
    command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/bin/$bin" ] || return 1
  done
}

if have_ceph; then
  echo "Ceph RGW ready: $(ceph --version 2>/dev/null | head -1)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "The S3 tests need Debian's Ceph packages (radosgw, ceph-mon, ceph-osd), which are not installed." >&2
  echo "Install them as root: sudo apt-get update && sudo apt-get install -y --no-install-recommends radosgw ceph-mon ceph-osd" >&2
  echo "(or run: sudo bash scripts/ceph-rgw.sh), or set TAPSHOT_SKIP_CEPH=1 to test only against the S3 replica." >&2
  exit 1
fi
echo "Installing Debian's radosgw, ceph-mon and ceph-osd for the S3 tests..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends radosgw ceph-mon ceph-osd >/dev/null
# The packages' systemd units are not used: the tests start their own daemons, with their own config.
have_ceph || { echo "apt-get finished, but the Ceph binaries are still not on PATH." >&2; exit 1; }
echo "Ceph RGW ready: $(ceph --version 2>/dev/null | head -1)"
