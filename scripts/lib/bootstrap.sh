# Shared by scripts/run.sh, scripts/test.sh and .ci/run: installs what a fresh machine lacks.
PNPM_VERSION=10.34.8

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

ensure_node() {
  if ! command -v node >/dev/null 2>&1; then
    log "installing Node.js (Debian package)"
    apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
  fi
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 20 ]; then echo "Node.js >= 20.19 is required (found $(node --version))" >&2; exit 1; fi
}

ensure_pnpm() {
  if [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
    log "installing pnpm $PNPM_VERSION"
    npm install -g --silent "pnpm@$PNPM_VERSION" >/dev/null
  fi
}

install_dependencies() {
  log "installing dependencies"
  pnpm install --frozen-lockfile --reporter=append-only | tail -n 3
}

# PostgreSQL for the integration tests: use TEST_DATABASE_URL when given, else the local server
# (started, or installed from Debian's packages, when it is not running).
ensure_postgres() {
  if [ -n "${TEST_DATABASE_URL:-}" ]; then return; fi
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then return; fi
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    log "installing PostgreSQL (Debian package)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  log "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  # A fresh Debian cluster wants a password over TCP; give the tests one.
  if ! psql -h 127.0.0.1 -U postgres -c 'select 1' >/dev/null 2>&1; then
    su postgres -c "psql -qc \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null
    export TEST_DATABASE_URL=postgresql://postgres:postgres@127.0.0.1:5432/postgres
  fi
}

# Debian's Chromium for the web app's browser tests (never a test tool's own browser download).
ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then return; fi
  log "installing Chromium (Debian package)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}

# bubblewrap, slirp4netns and iproute2: the worker's command sandbox (sandbox: bwrap, the default) and its
# network namespace's egress and routes, used by the worker tests and by a worker started from this checkout.
ensure_bubblewrap() {
  if [ -x /usr/bin/bwrap ] && [ -x /usr/bin/slirp4netns ] && command -v ip >/dev/null 2>&1; then return; fi
  log "installing bubblewrap, slirp4netns and iproute2 (Debian packages)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap slirp4netns iproute2 >/dev/null
}

# haproxy: the real load balancer in front of several API replicas in the multi-replica tests and in
# `pnpm bench scale` (packages/test-kit/src/load-balancer.ts starts it with a generated config).
ensure_haproxy() {
  if [ -x /usr/sbin/haproxy ]; then return; fi
  log "installing haproxy (Debian package)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
}

# wrk: the HTTP load generator of `pnpm bench http` and `pnpm bench scale`, a C program in its own process.
ensure_wrk() {
  if command -v wrk >/dev/null 2>&1; then return; fi
  log "installing wrk (Debian package)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
}

# lighttpd (with git, whose `git http-backend` it runs as CGI) and fcgiwrap: the real git smart-HTTP server
# with authentication and branch protection of the repository tests (packages/test-kit/src/git-http-server.ts).
ensure_git_server() {
  if [ -x /usr/sbin/lighttpd ] && command -v git >/dev/null 2>&1 && [ -x "$(git --exec-path 2>/dev/null)/git-http-backend" ]; then return; fi
  log "installing lighttpd, fcgiwrap and git (Debian packages)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lighttpd fcgiwrap git >/dev/null
}

# The metrics tests scrape the API with Debian's prometheus and check its output with promtool.
ensure_prometheus() {
  if command -v promtool >/dev/null 2>&1 && [ -x /usr/bin/prometheus ]; then return; fi
  log "installing prometheus (Debian package, for the metrics tests)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
}

# The git-over-SSH tests (deploy keys) run Debian's sshd on a loopback port; the package's own service is not used.
ensure_sshd() {
  if [ -x /usr/sbin/sshd ]; then return; fi
  log "installing openssh-server (Debian package, for the git-over-SSH tests)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server >/dev/null
}
