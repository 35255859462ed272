#!/usr/bin/env bash
# Sets up and runs svc on a fresh machine: embedded SQLite under ./data, the dev login, the web app,
# all on http://127.0.0.1:8080 (HOST and PORT to change it). No external services are needed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bootstrap.sh
ensure_node
ensure_pnpm
install_dependencies
ensure_bubblewrap
log "building"
pnpm turbo run build --output-logs=errors-only
export AUTH_PROVIDER="${AUTH_PROVIDER:-dev}" DATA_DIR="${DATA_DIR:-$PWD/data}" WEB_DIST_DIR="${WEB_DIST_DIR:-$PWD/apps/web/dist}"
export ADMIN_USERS="${ADMIN_USERS:-admin}" HOST="${HOST:-127.0.0.1}" PORT="${PORT:-8080}"
# Without PUBLIC_URL the server's links (built apps, notifications) name the address it listens on (decision 0072).
log "svc on ${PUBLIC_URL:-http://$HOST:$PORT} (sign in with any user name; 'admin' is an administrator)"
exec node apps/api/dist/index.js
