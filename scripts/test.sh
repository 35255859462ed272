#!/usr/bin/env bash
# Runs every test of the repository on a fresh machine: installs pnpm and the dependencies, makes sure
# PostgreSQL is up, then lints, type-checks and tests every package through turbo.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bootstrap.sh
ensure_node
ensure_pnpm
install_dependencies
ensure_postgres
ensure_chromium
ensure_bubblewrap
ensure_haproxy
ensure_git_server
ensure_sshd
ensure_prometheus
rm -rf apps/*/.test-results packages/*/.test-results
status=0
log "checking formatting (prettier)"
pnpm --silent format:check || status=1
pnpm turbo run lint typecheck test --output-logs=errors-only --continue || status=$?
node tools/test-summary.mjs || status=1
exit $status
