#!/usr/bin/env bash
# Installs what the tests need from Debian: headless Chromium for the docs browser test, PostgreSQL 15's
# server programs for the PostgreSQL store's tests (each test starts a throwaway server of its own with them;
# nothing is started here), faketime, which runs the date-sensitive suites years ahead (.ci/time-travel.sh),
# and zsh, in which the sandbox README's walkthrough is run as well as in bash (sandbox/walkthrough.test.ts).
# Idempotent: does nothing when all are already there. Never downloads a browser build.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/lib/postgresql/15/bin/pg_ctl ] || missing+=(postgresql)
command -v faketime >/dev/null || missing+=(faketime)
command -v zsh >/dev/null || missing+=(zsh)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "Missing ${missing[*]} and this user cannot install it: run 'sudo apt-get install -y ${missing[*]}'." >&2
  exit 1
fi
echo "Installing Debian's ${missing[*]} for the tests..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
