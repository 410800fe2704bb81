#!/usr/bin/env bash
# Private throwaway PostgreSQL 15 cluster for tests (no Docker, no system service).
#
#   scripts/pg.sh start | stop | status | dsn
#   scripts/pg.sh run -- CMD [ARGS...]
#
# Settings (environment):
#   AWA_PG_DIR   cluster directory           (default: $PWD/.pg)
#   AWA_PG_PORT  TCP port on 127.0.0.1       (default: 54329)
#   AWA_PG_BIN   PostgreSQL binaries         (default: /usr/lib/postgresql/15/bin)
#   AWA_PG_OPTS  extra server options on start, e.g. "-c fsync=on" (default: none)
#   AWA_PG_STOCK 1: the stock cluster instead (below)
#
# Stock cluster (AWA_PG_STOCK=1): a second cluster that keeps PostgreSQL's
# defaults for the settings that size the lock table (max_connections 100,
# max_locks_per_transaction 64), for tests that must hold on a stock server
# (fsync stays off). It has its own directory and port, so it runs beside the
# main one, and `run` exports its DSN as AWA_STOCK_DSN (nothing else):
#   AWA_STOCK_PG_DIR  cluster directory      (default: ${AWA_PG_DIR:-$PWD/.pg}/stock)
#   AWA_STOCK_PORT    TCP port on 127.0.0.1  (default: 54330)
#
# PostgreSQL refuses to run as root, so when invoked as root the cluster is
# owned by and run as the `postgres` OS user.
set -euo pipefail

PG_BIN=${AWA_PG_BIN:-/usr/lib/postgresql/15/bin}
STOCK=0
case "${AWA_PG_STOCK:-}" in
  ""|0) ;;
  1) STOCK=1 ;;
  *) echo "pg.sh: AWA_PG_STOCK must be 1 or 0, got '$AWA_PG_STOCK'" >&2; exit 2 ;;
esac
if [ $STOCK = 1 ]; then
  PORT=${AWA_STOCK_PORT:-54330}
  DIR=${AWA_STOCK_PG_DIR:-${AWA_PG_DIR:-$PWD/.pg}/stock}
else
  PORT=${AWA_PG_PORT:-54329}
  DIR=${AWA_PG_DIR:-$PWD/.pg}
fi

die() { echo "pg.sh: $*" >&2; exit 1; }

[ -x "$PG_BIN/pg_ctl" ] || die "no PostgreSQL binaries in $PG_BIN (apt-get install postgresql-15, or set AWA_PG_BIN)"

if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' OS user"
  # cd / : the postgres user may not be allowed into the caller's directory.
  as_pg() { (cd / && runuser -u postgres -- "$@"); }
else
  as_pg() { "$@"; }
fi

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
# As root, the postgres user must be able to reach $DIR (a clone under /root is
# not traversable), and the unix socket path must stay under the ~107-byte
# limit. Otherwise fall back to a per-checkout directory under /tmp.
if [ "$(id -u)" = 0 ]; then
  chown postgres: "$DIR"
  if ! as_pg test -w "$DIR" || [ ${#DIR} -gt 80 ]; then
    DIR=${TMPDIR:-/tmp}/awa-pg-$(printf %s "$DIR" | md5sum | cut -c1-12)
    mkdir -p "$DIR" && chown postgres: "$DIR" && chmod 700 "$DIR"
  fi
elif [ ${#DIR} -gt 80 ]; then
  DIR=${TMPDIR:-/tmp}/awa-pg-$(id -u)-$(printf %s "$DIR" | md5sum | cut -c1-12)
  mkdir -p "$DIR"
fi
DATA=$DIR/data
LOG=$DIR/postgres.log

dsn() { echo "postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"; }

running() { [ -f "$DATA/PG_VERSION" ] && as_pg "$PG_BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

start() {
  if running; then return 0; fi
  if [ ! -f "$DATA/PG_VERSION" ]; then
    # C locale + UTF8: deterministic collation, no dependency on installed locales.
    as_pg "$PG_BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    echo "include 'awa.conf'" >>"$DATA/postgresql.conf"
  fi
  # Rewritten on every start so AWA_PG_PORT / AWA_PG_DIR changes take effect.
  # Durability is irrelevant for a throwaway cluster: fsync etc. off for speed.
  # The main cluster raises max_connections (parallel test binaries); the
  # stock one leaves it and max_locks_per_transaction at their defaults.
  local conns="max_connections = 200"
  [ $STOCK = 0 ] || conns="# stock cluster: max_connections and max_locks_per_transaction left at their defaults"
  as_pg tee "$DATA/awa.conf" >/dev/null <<EOF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
$conns
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
  as_pg "$PG_BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 ${AWA_PG_OPTS:+-o "$AWA_PG_OPTS"} start >/dev/null \
    || { tail -n 30 "$LOG" >&2 || true; die "could not start PostgreSQL on port $PORT (see $LOG; port taken? set $([ $STOCK = 1 ] && echo AWA_STOCK_PORT || echo AWA_PG_PORT))"; }
}

stop() {
  if running; then as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null; fi
}

case "${1:-}" in
  start) start; echo "PostgreSQL running: $(dsn)" ;;
  stop) stop ;;
  status)
    if running; then echo "running: $(dsn) (data: $DATA)"; else echo "stopped (data: $DATA)"; exit 3; fi ;;
  dsn) dsn ;;
  run)
    shift
    [ "${1:-}" = "--" ] && shift
    [ $# -gt 0 ] || die "usage: pg.sh run -- CMD [ARGS...]"
    was_running=0
    running && was_running=1
    start
    # Stop what we started, even if the command is interrupted.
    [ $was_running = 1 ] || trap stop EXIT
    if [ $STOCK = 1 ]; then
      # Only the stock DSN: the command may start the main cluster itself
      # (pg.sh run nested inside), which must not inherit stock mode.
      export AWA_STOCK_DSN
      AWA_STOCK_DSN=$(dsn)
      unset AWA_PG_STOCK
    else
      export AWA_TEST_DSN DATABASE_URL PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres
      AWA_TEST_DSN=$(dsn) DATABASE_URL=$(dsn)
    fi
    rc=0
    "$@" || rc=$?
    exit $rc
    ;;
  *) echo "usage: $0 start|stop|status|dsn|run -- CMD..." >&2; exit 2 ;;
esac
