#!/usr/bin/env bash
# The display's idle cost against the board's: `arbiter play` with White's clock
# running and `arbiter display` following the same match, both run at the same time in one private
# tmux server, same terminal size, for ARBITER_IDLE_SECONDS (default 60), with tty-clock as the
# same anchor benches/tui_idle.sh uses. Reads on-CPU time and wakeups summed over every thread
# (/proc/<pid>/task/*/schedstat and status) and VmRSS. Both arbiter processes are the same binary.
#
#   bash benches/display_idle.sh                      # 60 s, this tree's release build
#   ARBITER_IDLE_SECONDS=20 ARBITER_BIN=target/debug/arbiter bash benches/display_idle.sh
#
# Target: display <= play on CPU and RSS.
set -euo pipefail

SECS=${ARBITER_IDLE_SECONDS:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SOCK="arbiter-display-idle-$$"
WORK=$(mktemp -d)

cleanup() {
  tmux -L "$SOCK" kill-server 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 1; }

if [ -n "${ARBITER_BIN:-}" ]; then
  BIN=$(cd "$(dirname "$ARBITER_BIN")" && pwd)/$(basename "$ARBITER_BIN")
else
  (cd "$ROOT" && nice cargo build --release --quiet --bin arbiter)
  BIN="$ROOT/target/release/arbiter"
fi

# Summed over every thread of the process (the display has a key reader and a watcher thread).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%.0f\n", s}'; }
wakeups() { cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt_switches:/ {s += $2} END {printf "%.0f\n", s}'; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# Where the resident memory is: anonymous (heap, stacks) and file-backed (the program's pages).
split_kb() { awk '/^RssAnon:/ {a=$2} /^RssFile:/ {f=$2} /^Threads:/ {t=$2} END {printf "anon %s kB + file %s kB, %s threads", a, f, t}' "/proc/$1/status"; }
start() {
  local name=$1; shift
  if tmux -L "$SOCK" has-session 2>/dev/null; then
    tmux -L "$SOCK" new-window -d -n "$name" -P -F '#{pane_pid}' "exec $*"
  else
    tmux -L "$SOCK" new-session -d -s idle -n "$name" -x 100 -y 40 -P -F '#{pane_pid}' "exec $*"
  fi
}
text_of() { tmux -L "$SOCK" capture-pane -p -t "idle:$1" 2>/dev/null || true; }
# Poll until the pane shows `needle`, at most $3 seconds.
wait_text() {
  local start_t; start_t=$(date +%s)
  while [ $(( $(date +%s) - start_t )) -lt "$3" ]; do
    text_of "$1" | grep -q -- "$2" && return 0
    sleep 0.2
  done
  return 1
}

cat >"$WORK/declarations.arb" <<'EOF'
arbiter declare white human Garry Kasparov
arbiter declare black machine Deep Junior
arbiter declare operator Amir Ban
arbiter declare team Shay Bushinsky, Boris Alterman
EOF
"$BIN" keygen --match "$WORK/match" --no-passphrase >/dev/null
PLAY=$(start board "$BIN" play --match "$WORK/match" --declarations "$WORK/declarations.arb" \
  --rules "$ROOT/rules/kasparov-deep-junior-2003.toml")
wait_text board "Space" 20 || wait_text board "game 1" 20 || true
tmux -L "$SOCK" send-keys -t idle:board ':'
tmux -L "$SOCK" send-keys -t idle:board -l 'arbiter start'
tmux -L "$SOCK" send-keys -t idle:board Enter
wait_text board "RUNNING" 20 || { echo "the board's clock did not start" >&2; text_of board >&2; exit 1; }
DISP=$(start display "$BIN" display --match "$WORK/match")
wait_text display "running" 20 || { echo "the display did not show the game" >&2; text_of display >&2; exit 1; }
TC=""
if command -v tty-clock >/dev/null; then TC=$(start ttyclock tty-clock -s -c); fi
sleep 2

# Wakeups per thread (name: count), to see which thread wakes.
per_thread() { for t in /proc/"$1"/task/*; do printf '%s:%s ' "$(cat "$t/comm")" "$(awk '/^voluntary_ctxt_switches:/ {print $2}' "$t/status")"; done; }
declare -A n0 w0 maxr
for p in $PLAY $DISP $TC; do n0[$p]=$(cpu_ns "$p"); w0[$p]=$(wakeups "$p"); maxr[$p]=0; done
T0=$(per_thread "$DISP")
for _ in $(seq "$SECS"); do
  sleep 1
  for p in $PLAY $DISP $TC; do r=$(rss_kb "$p"); [ "$r" -gt "${maxr[$p]}" ] && maxr[$p]=$r; done
done
row() {
  local p=$1 name=$2
  printf '   %-16s cpu %8.1f ms in %s s, %5d wakeups, rss max %6d kB (%s)\n' "$name" \
    "$(awk -v d=$(( $(cpu_ns "$p") - ${n0[$p]} )) 'BEGIN { print d / 1e6 }')" "$SECS" \
    $(( $(wakeups "$p") - ${w0[$p]} )) "${maxr[$p]}" "$(split_kb "$p")"
}
echo "== display_idle: ${SECS} s with White's clock running, $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, $BIN"
[ -n "$TC" ] && row "$TC" "tty-clock -s -c"
row "$PLAY" "arbiter play"
row "$DISP" "arbiter display"
dp=$(( $(cpu_ns "$DISP") - ${n0[$DISP]} )); pp=$(( $(cpu_ns "$PLAY") - ${n0[$PLAY]} ))
echo "   display threads' wakeups (name:count) at the start: $T0"
echo "                                            at the end:   $(per_thread "$DISP")"
if [ -n "$TC" ]; then
  tp=$(( $(cpu_ns "$TC") - ${n0[$TC]} ))
  echo "   cpu vs tty-clock: display $(awk -v a="$dp" -v b="$tp" 'BEGIN { printf "%.2fx", a / b }'), play $(awk -v a="$pp" -v b="$tp" 'BEGIN { printf "%.2fx", a / b }')"
fi
echo "   cpu display/play = $(awk -v a="$dp" -v b="$pp" 'BEGIN { printf "%.2fx", a / b }') (target <= 1.0x: $([ "$dp" -le "$pp" ] && echo MET || echo MISSED))"
echo "   rss display/play = $(awk -v a="${maxr[$DISP]}" -v b="${maxr[$PLAY]}" 'BEGIN { printf "%.2fx", a / b }') (target <= 1.0x: $([ "${maxr[$DISP]}" -le "${maxr[$PLAY]}" ] && echo MET || echo MISSED))"
echo "   display screen at the end:"
text_of display | grep -v '^\s*$' | head -6 | sed 's/^/   | /'
