#!/usr/bin/env bash
# The commands users run against `arbiter verify` and `openssl dgst -sha256` on a large
# match folder, interleaved round by round, counting only the rounds in which nothing else used
# the CPU: the machine's busy time is read from /proc/stat before and after each round, and a
# round is dropped when more than ARBITER_FOREIGN_CPU seconds (default 0.08) of it were not the
# round's own commands (their user + system time from GNU time). Prints each command's median,
# min and max wall time, its CPU time, peak RSS and the ratio of its median wall time to verify's.
#
#   bash benches/quiet_rounds.sh MATCH_DIR [ROUNDS]      # game 1 of MATCH_DIR, 7 rounds
#   ARBITER_BIN=/path/to/arbiter bash benches/quiet_rounds.sh target/bench-tmp/memory-1000000
#
# MATCH_DIR is only read; the outputs go to a temporary folder. The `play` open is measured by
# `cargo bench --bench memory` (its child process); target: every command within 2x of verify.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
M=${1:?usage: quiet_rounds.sh MATCH_DIR [ROUNDS]}
R=${2:-7}
B=${ARBITER_BIN:-$ROOT/target/release/arbiter}
FOREIGN=${ARBITER_FOREIGN_CPU:-0.08}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "quiet_rounds: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
[ -x "$B" ] || { echo "quiet_rounds: no binary at $B (cargo build --release)" >&2; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
hz=$(getconf CLK_TCK)
cmds=(
  "openssl|openssl dgst -sha256 $M/game-1/log.jsonl"
  "verify|$B verify --match $M --game 1"
  "status|$B status --match $M --game 1"
  "pgn|$B pgn --match $M --game 1 --out $OUT/g.pgn"
  "report|$B report --match $M --game 1 --out $OUT/r.html"
  "report_md|$B report --markdown --match $M --game 1 --out $OUT/r.md"
)
kept=0
tries=0
while [ "$kept" -lt "$R" ] && [ "$tries" -lt $((R * 6)) ]; do
  tries=$((tries + 1))
  : >"$OUT/round"
  b0=$(busy)
  for c in "${cmds[@]}"; do
    rm -f "$OUT"/g.pgn "$OUT"/r.html "$OUT"/r.md
    $TIME -f "%e %U %S %M ${c%%|*}" -a -o "$OUT/round" bash -c "${c#*|}" >/dev/null
  done
  b1=$(busy)
  if python3 - "$b0" "$b1" "$hz" "$FOREIGN" "$OUT/round" <<'PY'
import sys
b0, b1, hz, limit, f = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
own = sum(float(l.split()[1]) + float(l.split()[2]) for l in open(f) if len(l.split()) == 5)
foreign = (b1 - b0) / hz - own
sys.exit(0 if foreign < limit else 1)
PY
  then
    cat "$OUT/round" >>"$OUT/all"
    kept=$((kept + 1))
  else
    echo "   round dropped: another process used the CPU" >&2
  fi
done
echo "== quiet rounds: $kept kept of $tries ($(date -u +%F' '%H:%M) UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$kept" -gt 0 ] || exit 1
python3 - "$OUT/all" <<'PY'
import sys, collections, statistics as st
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    p = l.split()
    if len(p) == 5:
        d[p[4]].append((float(p[0]), float(p[1]) + float(p[2]), int(p[3])))
v = st.median(x[0] for x in d["verify"])
for n, xs in d.items():
    w = [x[0] for x in xs]
    print(f"{n:10s} wall median {st.median(w):.3f} s (min {min(w):.3f}, max {max(w):.3f})  "
          f"CPU {st.median(x[1] for x in xs):.2f} s  peak RSS {max(x[2] for x in xs) / 1024:.0f} MB  "
          f"x verify {st.median(w) / v:.2f}")
PY
