#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and dev checks (docs/POSTGRES-PLAN.md §10 step 4).
#
#   scripts/pg.sh start DIR   initdb DIR/data, start it on a free 127.0.0.1 port (unix socket
#                             in DIR, log in DIR/log); print the URL to stdout and write it to
#                             DIR/url:   postgres://runlens@127.0.0.1:PORT/postgres
#                             (superuser `runlens`, trust auth: no password).
#   scripts/pg.sh stop DIR    stop it (pg_ctl stop -m immediate) and remove DIR. Does nothing when
#                             DIR does not exist; safe to repeat.
#   scripts/pg.sh url DIR     print the URL of a cluster started in DIR.
#
# DIR must be empty or absent at start (it is created). Only a DIR made by `start` (it
# holds a .runlens-pg marker) is ever removed.
#
# Settings: $PG_OPTS is appended to the server's options, e.g. the test suite's
# PG_OPTS="-c fsync=off -c full_page_writes=off" (every CREATE/DROP DATABASE checkpoints;
# a throwaway cluster needs no crash safety). Benchmarks keep the defaults (fsync on).
# Binaries: $PG_BINDIR if set, else `pg_config --bindir`, else the highest
# /usr/lib/postgresql/*/bin, else PATH. initdb refuses to run as root: as root, DIR is
# handed to the `postgres` system user (Debian's postgresql package creates it) and
# initdb/pg_ctl run through `runuser -u postgres --`; DIR's parents must then be
# searchable by that user (/tmp is; /root is not).
#
# The cluster locale is C.UTF-8 when the system has it, else C, with UTF8 encoding. The
# schema does not rely on it: every text column is COLLATE "C".
#
#   url=$(scripts/pg.sh start /tmp/runlens-pg)
#   psql "$url" -c 'select version()'
#   scripts/pg.sh stop /tmp/runlens-pg
set -euo pipefail

MARKER=.runlens-pg

say() { printf '[pg.sh] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

usage() {
    cat >&2 <<'EOF'
usage: scripts/pg.sh start DIR   start a throwaway PostgreSQL cluster in DIR, print its URL
       scripts/pg.sh stop DIR    stop it and remove DIR (no-op when DIR is absent)
       scripts/pg.sh url DIR     print the URL of the cluster in DIR
EOF
    exit 2
}

# The directory holding initdb and pg_ctl.
find_bindir() {
    local dir
    if [ -n "${PG_BINDIR:-}" ]; then
        [ -x "$PG_BINDIR/initdb" ] || die "PG_BINDIR=$PG_BINDIR has no executable initdb"
        printf '%s\n' "$PG_BINDIR"
        return
    fi
    if command -v pg_config >/dev/null 2>&1; then
        dir="$(pg_config --bindir 2>/dev/null || true)"
        # Debian's pg_config (libpq-dev) may name a server version that is not installed.
        if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
            printf '%s\n' "$dir"
            return
        fi
    fi
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
        printf '%s\n' "$dir"
        return
    fi
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return
    fi
    die "PostgreSQL server binaries (initdb, pg_ctl) not found; install them with
    apt-get install postgresql   (or run scripts/install-tools.sh, or set PG_BINDIR)"
}

# Runs a command as the cluster's owner: the postgres user when we are root, else us.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        # From DIR: the caller's working directory may be unreadable for postgres.
        (cd "$DIR" && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

# A TCP port nobody listens on right now (a race remains; start retries on a clash).
free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
        return
    fi
    local port i
    for i in $(seq 1 50); do
        port=$(( 20000 + RANDOM % 40000 ))
        # Nothing answers: the port is free.
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            printf '%s\n' "$port"
            return
        fi
    done
    die "found no free TCP port"
}

# Resolves DIR to an absolute path without requiring it to exist.
absolute() {
    case "$1" in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s/%s\n' "$(pwd)" "$1" ;;
    esac
}

is_running() {
    [ -f "$DIR/data/postmaster.pid" ] && as_owner "$BINDIR/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1
}

# The server in DIR answers on its socket (pg_ctl status alone trusts a pid that may be
# a zombie).
accepts_connections() {
    local port
    port="$(sed -n 's#^postgres://[^@]*@127\.0\.0\.1:\([0-9]*\)/.*#\1#p' "$DIR/url")"
    [ -n "$port" ] || return 1
    [ -x "$BINDIR/pg_isready" ] || return 0
    "$BINDIR/pg_isready" -q -h "$DIR" -p "$port" -U runlens -d postgres
}

cmd_start() {
    if [ -e "$DIR/$MARKER" ]; then
        if is_running && [ -f "$DIR/url" ] && accepts_connections; then
            say "already running in $DIR"
            cat "$DIR/url"
            return
        fi
        die "$DIR holds a stopped or half-started cluster; run: scripts/pg.sh stop $DIR"
    fi
    if [ -e "$DIR" ]; then
        [ -d "$DIR" ] || die "$DIR exists and is not a directory"
        [ -z "$(ls -A "$DIR")" ] || die "$DIR is not empty (and not a cluster made by pg.sh)"
    fi
    case "$DIR" in
        *[[:space:]]* | *\'* | *\"*) die "DIR must not contain spaces or quotes: $DIR" ;;
    esac
    # The unix socket DIR/.s.PGSQL.NNNNN must fit in sun_path (107 bytes).
    [ "${#DIR}" -le 90 ] || die "DIR path is too long for a unix socket (max 90 chars): $DIR"

    mkdir -p "$DIR"
    : >"$DIR/$MARKER"
    if [ "$(id -u)" -eq 0 ]; then
        id -u postgres >/dev/null 2>&1 \
            || die "running as root, but there is no 'postgres' user to run initdb as
    (apt-get install postgresql creates it; or run this script as a non-root user)"
        chown postgres: "$DIR"
        runuser -u postgres -- test -w "$DIR" \
            || die "user postgres cannot write $DIR (a parent directory is not searchable?); use a DIR under /tmp"
    fi

    local locale=C
    local locales
    locales="$(locale -a 2>/dev/null || true)"
    if grep -qix 'c\.utf-\?8' <<<"$locales"; then locale=C.UTF-8; fi

    say "initdb ($("$BINDIR/initdb" --version), locale $locale) in $DIR/data"
    if ! as_owner "$BINDIR/initdb" -D "$DIR/data" --auth=trust -U runlens \
        --locale="$locale" -E UTF8 --no-sync >"$DIR/initdb.log" 2>&1; then
        cat "$DIR/initdb.log" >&2
        die "initdb failed (output above; DIR left in place: scripts/pg.sh stop $DIR removes it)"
    fi

    local port attempt
    for attempt in 1 2 3 4 5; do
        port="$(free_port)"
        if as_owner "$BINDIR/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -t 60 \
            -o "-p $port -k $DIR -c listen_addresses=127.0.0.1 -c fsync=on ${PG_OPTS:-}" \
            start >/dev/null; then
            local url="postgres://runlens@127.0.0.1:$port/postgres"
            printf '%s\n' "$url" >"$DIR/url"
            say "started on port $port (log: $DIR/log)"
            printf '%s\n' "$url"
            return
        fi
        if grep -q 'already in use' "$DIR/log" 2>/dev/null && [ "$attempt" -lt 5 ]; then
            say "port $port was taken meanwhile; trying another"
            continue
        fi
        break
    done
    tail -n 30 "$DIR/log" >&2 2>/dev/null || true
    die "pg_ctl start failed (log above, in $DIR/log; scripts/pg.sh stop $DIR cleans up)"
}

cmd_stop() {
    if [ ! -e "$DIR" ]; then
        say "nothing to stop: $DIR does not exist"
        return
    fi
    [ -e "$DIR/$MARKER" ] || die "$DIR was not made by scripts/pg.sh start (no $MARKER); not touching it"
    if [ -f "$DIR/data/postmaster.pid" ]; then
        # Immediate: the cluster and its data are thrown away next, so nothing needs a
        # clean shutdown, and a fast one can wait on many sessions of a killed test run.
        if ! as_owner "$BINDIR/pg_ctl" -D "$DIR/data" -m immediate -w -t 60 stop >/dev/null 2>&1; then
            # A stale pid file (the server died) is fine; a live server that would not stop
            # is not.
            if is_running; then
                die "pg_ctl stop failed and the server in $DIR is still running"
            fi
        fi
        say "stopped the cluster in $DIR"
    fi
    rm -rf -- "$DIR"
}

cmd_url() {
    [ -f "$DIR/url" ] || die "no cluster started in $DIR"
    cat "$DIR/url"
}

[ $# -eq 2 ] || usage
[ -n "$2" ] || usage
DIR="$(absolute "$2")"
DIR="${DIR%/}"
case "$1" in
    start) BINDIR="$(find_bindir)"; cmd_start ;;
    stop)
        if [ -e "$DIR" ]; then BINDIR="$(find_bindir)"; fi
        cmd_stop
        ;;
    url) cmd_url ;;
    *) usage ;;
esac
