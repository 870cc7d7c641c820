#!/usr/bin/env bash
# The deployment of docs/deploy.md on one machine, from installed packages only (Debian's postgresql, redis-server,
# haproxy; paywatch from this repository after `npm install`): a PostgreSQL primary and a streaming replica made
# with pg_basebackup -R, Redis, N `paywatch serve` replicas behind HAProxy, a leader and a standby collector, the
# intel collector and the trust-check listener. Everything lives under one directory and stops with Ctrl-C.
#
# Usage: examples/deploy/start.sh [REPLICAS]      (default 2)
# Settings (environment): PAYWATCH_RPC_URL (the Tempo node; default paywatch's), BASE_PORT (default 18000: HAProxy
# on BASE_PORT, replicas on BASE_PORT+1…, verify on BASE_PORT+50, PostgreSQL on BASE_PORT+60/+61, Redis on
# BASE_PORT+70), DIR (default a new temporary directory).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPLICAS="${1:-2}"
BASE="${BASE_PORT:-18000}"
DIR="${DIR:-$(mktemp -d /tmp/paywatch-deploy-XXXXXX)}"
PG_BIN="${PAYWATCH_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)}"
PRIMARY_PORT=$((BASE + 60)); REPLICA_PORT=$((BASE + 61)); REDIS_PORT=$((BASE + 70)); VERIFY_PORT=$((BASE + 50))
# initdb and postgres refuse to run as root: run them as the postgres user, in directories it owns.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir -p "$DIR"; [ "$(id -u)" = 0 ] && chown postgres "$DIR"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  as_pg "$PG_BIN/pg_ctl" -D "$DIR/replica" -m fast stop >/dev/null 2>&1 || true
  as_pg "$PG_BIN/pg_ctl" -D "$DIR/primary" -m fast stop >/dev/null 2>&1 || true
  echo "stopped; files kept in $DIR"
}
trap cleanup EXIT INT TERM

echo "PostgreSQL primary on $PRIMARY_PORT, streaming replica on $REPLICA_PORT"
as_pg "$PG_BIN/initdb" -D "$DIR/primary" -U postgres --auth=trust -E UTF8 --no-instructions >/dev/null
cat >> "$DIR/primary/postgresql.conf" <<CONF
port = $PRIMARY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
wal_level = replica
max_wal_senders = 5
hot_standby = on
CONF
printf 'host replication all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 trust\n' >> "$DIR/primary/pg_hba.conf"
as_pg "$PG_BIN/pg_ctl" -D "$DIR/primary" -l "$DIR/primary.log" -w start >/dev/null
as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$DIR/replica" -R -X stream
cat >> "$DIR/replica/postgresql.conf" <<CONF
port = $REPLICA_PORT
unix_socket_directories = '$DIR/replica-socket'
hot_standby_feedback = on
CONF
mkdir -p "$DIR/replica-socket"; [ "$(id -u)" = 0 ] && chown postgres "$DIR/replica-socket"
as_pg "$PG_BIN/pg_ctl" -D "$DIR/replica" -l "$DIR/replica.log" -w start >/dev/null
"$PG_BIN/createdb" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres paywatch
DB="postgres://postgres@127.0.0.1:$PRIMARY_PORT/paywatch"
DB_READ="postgres://postgres@127.0.0.1:$REPLICA_PORT/paywatch"

echo "Redis on $REDIS_PORT"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no --logfile "$DIR/redis.log" &
pids+=($!)
export PAYWATCH_DB="$DB" PAYWATCH_REDIS_URL="redis://127.0.0.1:$REDIS_PORT" PAYWATCH_TRUST_PROXY=127.0.0.1

echo "collectors: a leader and a standby (the second waits on the lock), the intel collector"
node bin/paywatch.js collect >"$DIR/collector-1.log" 2>&1 & pids+=($!)
sleep 2
node bin/paywatch.js collect >"$DIR/collector-2.log" 2>&1 & pids+=($!)
node bin/paywatch.js intel collect >"$DIR/intel.log" 2>&1 & pids+=($!)

ports=()
for i in $(seq 1 "$REPLICAS"); do
  port=$((BASE + i)); ports+=("$port")
  node bin/paywatch.js serve --db-read "$DB_READ" --port "$port" >"$DIR/serve-$i.log" 2>&1 & pids+=($!)
done
node bin/paywatch.js verify --verify-port "$VERIFY_PORT" >"$DIR/verify.log" 2>&1 & pids+=($!)

node examples/deploy/haproxy.mjs "$BASE" "${ports[@]}" > "$DIR/haproxy.cfg"
haproxy -db -f "$DIR/haproxy.cfg" >"$DIR/haproxy.log" 2>&1 & pids+=($!)
echo "public API through HAProxy: http://127.0.0.1:$BASE/api/status   trust check: http://127.0.0.1:$VERIFY_PORT"
echo "logs and data in $DIR; Ctrl-C stops everything"
wait
