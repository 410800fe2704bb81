#!/usr/bin/env bash
# Prints DSN with its database replaced by DB:  scripts/dsn-db.sh DSN DB
# Handles URLs (postgres://user@host:port/db?params) and key=value strings
# (libpq and pgx both let a later dbname= win).
set -euo pipefail
dsn=${1:?usage: dsn-db.sh DSN DB} db=${2:?usage: dsn-db.sh DSN DB}
case "$dsn" in
  postgres://* | postgresql://*) printf '%s\n' "$dsn" | sed -E "s#^(postgres(ql)?://[^/?]*)(/[^?]*)?#\\1/$db#" ;;
  *) printf '%s dbname=%s\n' "$dsn" "$db" ;;
esac
