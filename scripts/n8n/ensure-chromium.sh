#!/usr/bin/env bash
# Installs Debian's chromium for the headless editor check (scripts/check-editor.mjs). Idempotent: does nothing
# when chromium is already there. A test tool's own browser download cannot work here (no internet), Debian's can.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "chromium is missing and this user cannot install it: run 'apt-get install -y chromium' as root." >&2
  exit 1
fi

echo "[ensure-chromium] installing Debian's chromium (apt-get update, then apt-get install -y chromium)" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update
"${as_root[@]}" apt-get install -y --no-install-recommends chromium
command -v chromium >/dev/null
chromium --version >&2
