#!/usr/bin/env bash
# Set up a fresh machine: npm packages, then Debian's chromium and chromium-driver for the Appium rig.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "Debian's chromium and chromium-driver are missing. As root, run:" >&2
    echo "  apt-get update && apt-get install -y chromium chromium-driver" >&2
    exit 1
  fi
  echo "Installing Debian's chromium and chromium-driver for the Appium rig..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi
