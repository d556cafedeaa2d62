#!/usr/bin/env bash
# Installs everything Trawler needs on a fresh Debian machine: Debian's Chromium, its headless shell,
# Xvfb (never a browser download) and promtool, the npm packages, and the compiled build. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromium-headless-shell >/dev/null 2>&1 || need_apt+=(chromium-headless-shell)
command -v Xvfb >/dev/null 2>&1 || need_apt+=(xvfb)
[ -d /usr/share/fonts/truetype/liberation ] || need_apt+=(fonts-liberation)
# promtool (Debian's prometheus package) checks metric names and the chart's alert rules in the tests.
command -v promtool >/dev/null 2>&1 || need_apt+=(prometheus)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup: need root (or sudo) to install: ${need_apt[*]}" >&2; exit 1; fi
  echo "setup: installing Debian packages: ${need_apt[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

stamp=node_modules/.trawler-lock-stamp
lock_hash=$(sha256sum < package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  echo "setup: installing npm packages"
  # Not `npm ci`: impit lists optional native packages for platforms the registry lacks, which `npm ci`
  # refuses as "missing from lock file"; `npm install` honours the lock and skips them.
  npm install --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > "$stamp"
fi

echo "setup: building"
npx tsc -p tsconfig.json
node dist/dashboard/web/build.js
