#!/bin/sh
# Recompute the chain head of an arbiter-kit game log (format v1) with jq and sha256sum only,
# without trusting the kit. Usage: docs/chain-head.sh DIR/game-<n>/log.jsonl
# Prints the lowercase hex of E_{N-1} = SHA-256(0x00 || last line), which must equal the
# `chain` line of the checkpoint covering all N entries. Exits 1 at the first broken link.
set -eu
log="$1"
prev=0000000000000000000000000000000000000000000000000000000000000000
seq=0
while IFS= read -r line; do
  fields=$(printf '%s' "$line" | jq -r '"\(.seq) \(.prev)"')
  if [ "$fields" != "$seq $prev" ]; then
    echo "chain broken at line $seq: found '$fields', expected '$seq $prev'" >&2
    exit 1
  fi
  prev=$({ printf '\000'; printf '%s' "$line"; } | sha256sum | cut -d' ' -f1)
  seq=$((seq + 1))
done < "$log"
if [ -n "$line" ]; then
  echo "line $seq has no newline (torn tail)" >&2
  exit 1
fi
echo "$prev"
