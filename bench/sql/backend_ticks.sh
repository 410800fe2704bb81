# Sourced by bench/sql/insert_profile.sh and claim_complete_profile.sh:
# backend_ticks SERVER DB prints the CPU ticks (utime+stime from /proc, so the
# server runs on this machine) of database DB's pgbench sessions on SERVER.
backend_ticks() {
  local total=0 pid f
  for pid in $(psql -X -qAt -d "$1" -c "SELECT pid FROM pg_stat_activity WHERE datname = '$2' AND application_name = 'pgbench'"); do
    if f=$(cat "/proc/$pid/stat" 2>/dev/null); then
      f=${f##*) }
      set -- $f
      total=$((total + ${12} + ${13}))
    fi
  done
  echo $total
}
