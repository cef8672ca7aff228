#!/usr/bin/env bash
# Installs what the tests need from Debian: headless Chromium for the docs browser test.
# Idempotent: does nothing when Chromium is already there. Never downloads a browser build.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Chromium is missing and this user cannot install it: run 'sudo apt-get install -y chromium'." >&2
  exit 1
fi
echo "Installing Debian's chromium for the browser tests..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
