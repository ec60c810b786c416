#!/usr/bin/env bash
# Start a stack of our own (`rememberstack up` on a scratch data dir and its own ports), run the
# Node and Go quickstarts against it, then stop it. Needs `make install install-clients`.
#   clients/run-examples.sh [base-port]          (default 56051: clear of a developer's 50051)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
port="${1:-56051}"
data="$(mktemp -d)"
log="$data/up.log"
REMEMBERSTACK_DATA_DIR="$data" "$root/.venv/bin/rememberstack" up --base-port "$port" >"$log" 2>&1 &
stack=$!
stop() {
  kill -TERM "$stack" 2>/dev/null || true
  for _ in $(seq 60); do kill -0 "$stack" 2>/dev/null || break; sleep 1; done
  kill -KILL "$stack" 2>/dev/null || true
  rm -rf "$data"
}
trap stop EXIT

for _ in $(seq 180); do
  up=0
  for offset in 0 1 2 3; do
    (exec 3<>"/dev/tcp/127.0.0.1/$((port + offset))") 2>/dev/null && up=$((up + 1))
  done
  [ "$up" -eq 4 ] && break
  kill -0 "$stack" 2>/dev/null || { cat "$log"; echo "rememberstack up exited"; exit 1; }
  sleep 1
done
[ "$up" -eq 4 ] || { tail -50 "$log"; echo "the stack did not come up in 180 s"; exit 1; }

export REMEMBERSTACK_HOST=127.0.0.1 REMEMBERSTACK_BASE_PORT="$port"
echo "== Node quickstart"
(cd "$root/clients/node" && npm run --silent build && node dist/examples/quickstart.js)
echo "== Go quickstart"
"$root/clients/go/run-example.sh"
