#!/usr/bin/env bash
# Board UI idle cost: CPU time, wakeups and resident memory of `arbiter play` on a match with a
# real key (made here with `arbiter keygen --no-passphrase`) with White's clock running,
# against tty-clock (Debian package tty-clock, a terminal clock ticking every second), both run at
# the same time in one private tmux server, same terminal size, for ARBITER_IDLE_SECONDS (default
# 60). Reads utime+stime from /proc/<pid>/stat, on-CPU ns and wakeups of every thread from
# /proc/<pid>/task/*/, and VmRSS/VmHWM from /proc/<pid>/status.
#
#   bash benches/tui_idle.sh            # 60 s
#   ARBITER_IDLE_SECONDS=10 bash benches/tui_idle.sh
#   ARBITER_BIN=/path/to/arbiter bash benches/tui_idle.sh   # another build of the binary
#
# Target: arbiter <= tty-clock on both CPU and RSS, and at most 2 wakeups a second on average
# (the screen's second and the heartbeat included). If `arbiter play` is not built in this tree,
# tty-clock is measured alone and the arbiter row says so.
set -euo pipefail

SECS=${ARBITER_IDLE_SECONDS:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SOCK="arbiter-idle-$$"
WORK=$(mktemp -d)
HZ=$(getconf CLK_TCK)

cleanup() {
  tmux -L "$SOCK" kill-server 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! command -v tty-clock >/dev/null; then
  echo "installing tty-clock (apt-get)" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq tty-clock >/dev/null
fi
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 1; }

if [ -n "${ARBITER_BIN:-}" ]; then
  BIN=$ARBITER_BIN
else
  (cd "$ROOT" && nice cargo build --release --quiet --bin arbiter)
  BIN="$ROOT/target/release/arbiter"
fi

# ticks (utime+stime) of a pid; the command name may hold spaces, so cut after the last ')'.
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
# On-CPU time in ns (/proc/<pid>/task/*/schedstat, first field): finer than utime+stime's 10 ms
# ticks, summed over every thread (the board's folder watch sleeps in its own thread).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {print s}'; }
# Voluntary context switches (a sleep ended by an event or a timeout), summed over every thread.
wakeups() { cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt_switches:/ {s += $2} END {print s}'; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }
# Where the resident memory is: anonymous (heap, stacks) and file-backed (the program's pages).
split_kb() { awk '/^RssAnon:/ {a=$2} /^RssFile:/ {f=$2} END {printf "anon %s kB + file %s kB", a, f}' "/proc/$1/status"; }

# Start a program in its own tmux session; print its pid (the pane runs it with exec).
start() {
  local name=$1; shift
  tmux -L "$SOCK" new-session -d -s "$name" -x 100 -y 40 -P -F '#{pane_pid}' "exec $*"
}

# With -e: tty-clock draws its digits as coloured blanks, so the text alone never changes.
screen_of() { tmux -L "$SOCK" capture-pane -e -p -t "$1" 2>/dev/null || true; }
text_of() { tmux -L "$SOCK" capture-pane -p -t "$1" 2>/dev/null || true; }

# Poll (no fixed sleeps for readiness) until the pane's text changes between two captures,
# i.e. a clock is ticking on it; give up after $2 seconds.
wait_ticking() {
  local target=$1 limit=$2 start_t a b
  start_t=$(date +%s)
  a=$(screen_of "$target")
  while [ $(( $(date +%s) - start_t )) -lt "$limit" ]; do
    sleep 0.2
    b=$(screen_of "$target")
    if [ -n "$b" ] && [ "$a" != "$b" ]; then return 0; fi
    a=$b
  done
  return 1
}

# --- tty-clock -------------------------------------------------------------------------------
TC_PID=$(start ttyclock tty-clock -s -c)

# --- arbiter play ----------------------------------------------------------------------------
cat >"$WORK/declarations.arb" <<'EOF'
arbiter declare white human Garry Kasparov
arbiter declare black machine Deep Junior
arbiter declare operator Amir Ban
arbiter declare team Shay Bushinsky, Boris Alterman
EOF
AR_PID=""
AR_NOTE=""
if "$BIN" play --help >/dev/null 2>&1; then
  # Every match needs a real key: an unencrypted one (a rehearsal's), so that the start needs no
  # passphrase typed by this script.
  "$BIN" keygen --match "$WORK/match" --no-passphrase >/dev/null
  AR_PID=$(start board "$BIN" play --match "$WORK/match" --declarations "$WORK/declarations.arb" \
    --rules "$ROOT/rules/kasparov-deep-junior-2003.toml" "2>$WORK/play.err")
  # Wait for the screen, then start White's clock from the command line (Space would do too).
  for _ in $(seq 50); do
    if ! kill -0 "$AR_PID" 2>/dev/null; then break; fi
    if screen_of board | grep -q .; then break; fi
    sleep 0.1
  done
  if kill -0 "$AR_PID" 2>/dev/null; then
    tmux -L "$SOCK" send-keys -t board ':'
    tmux -L "$SOCK" send-keys -t board -l 'arbiter start'
    tmux -L "$SOCK" send-keys -t board Enter
    if ! wait_ticking board 10; then
      AR_NOTE="the Board UI's screen did not change after 'arbiter start' (clock not running?)"
    fi
  fi
  if ! kill -0 "$AR_PID" 2>/dev/null; then
    AR_NOTE="arbiter play exited: $(tr '\n' ' ' <"$WORK/play.err" 2>/dev/null)"
    AR_PID=""
  fi
else
  AR_NOTE="this build has no 'arbiter play'"
fi
wait_ticking ttyclock 10 || echo "warning: tty-clock's screen did not change" >&2

# --- measure both over the same window --------------------------------------------------------
t0_tc=$(ticks "$TC_PID"); n0_tc=$(cpu_ns "$TC_PID"); w0_tc=$(wakeups "$TC_PID")
if [ -n "$AR_PID" ]; then t0_ar=$(ticks "$AR_PID"); n0_ar=$(cpu_ns "$AR_PID"); w0_ar=$(wakeups "$AR_PID"); fi
max_tc=0; max_ar=0
for _ in $(seq "$SECS"); do
  sleep 1
  r=$(rss_kb "$TC_PID"); [ "$r" -gt "$max_tc" ] && max_tc=$r
  if [ -n "$AR_PID" ] && kill -0 "$AR_PID" 2>/dev/null; then
    r=$(rss_kb "$AR_PID"); [ "$r" -gt "$max_ar" ] && max_ar=$r
  fi
done
t1_tc=$(ticks "$TC_PID"); n1_tc=$(cpu_ns "$TC_PID"); w1_tc=$(wakeups "$TC_PID")
ms() { awk -v d="$1" 'BEGIN { printf "%.1f ms", d / 1e6 }'; }
cpu() { awk -v d="$1" -v hz="$HZ" -v s="$SECS" 'BEGIN { printf "%.3f", 100 * d / hz / s }'; }

echo "== tui_idle: ${SECS} s with a running clock, $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, CLK_TCK=$HZ"
echo "   anchor tty-clock -s -c: cpu $(ms $((n1_tc - n0_tc))) in ${SECS} s, $((w1_tc - w0_tc)) wakeups, $(cpu $((t1_tc - t0_tc)))% ($((t1_tc - t0_tc)) ticks)  rss max ${max_tc} kB  hwm $(hwm_kb "$TC_PID") kB ($(split_kb "$TC_PID"))"
if [ -n "$AR_PID" ] && kill -0 "$AR_PID" 2>/dev/null; then
  t1_ar=$(ticks "$AR_PID"); n1_ar=$(cpu_ns "$AR_PID"); w1_ar=$(wakeups "$AR_PID")
  d_ar=$((n1_ar - n0_ar)); d_tc=$((n1_tc - n0_tc))
  echo "   ours   arbiter play:     cpu $(ms $d_ar) in ${SECS} s, $((w1_ar - w0_ar)) wakeups, $(cpu $((t1_ar - t0_ar)))% ($((t1_ar - t0_ar)) ticks)  rss max ${max_ar} kB  hwm $(hwm_kb "$AR_PID") kB ($(split_kb "$AR_PID"))"
  [ -n "$AR_NOTE" ] && echo "   note: $AR_NOTE"
  ok_cpu=$([ "$d_ar" -le "$d_tc" ] && echo MET || echo MISSED)
  ok_rss=$([ "$max_ar" -le "$max_tc" ] && echo MET || echo MISSED)
  wk=$((w1_ar - w0_ar))
  ok_wk=$([ "$wk" -le $((2 * SECS)) ] && echo MET || echo MISSED)
  echo "   wakeups ours $wk, tty-clock $((w1_tc - w0_tc)) in ${SECS} s: ours $(awk -v w="$wk" -v s="$SECS" 'BEGIN { printf "%.2f", w / s }')/s (target <= 2/s: $ok_wk)"
  echo "   cpu ours/tty-clock = $(awk -v a="$d_ar" -v b="$d_tc" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2fx", a / b }') (on-CPU ns; target <= 1.0x: $ok_cpu)"
  echo "   rss ours/tty-clock = $(awk -v a="$max_ar" -v b="$max_tc" 'BEGIN { printf "%.2fx", a / b }') (target <= 1.0x: $ok_rss)"
  echo "   board screen at the end:"
  text_of board | grep -v '^\s*$' | head -8 | sed 's/^/   | /'
else
  echo "   ours   arbiter play:     not measured: ${AR_NOTE:-it exited}"
fi
