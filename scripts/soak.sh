#!/bin/bash
# Soak: xfer-tidy over a large code base, sampling every 2 s the resident
# memory of the run and of its largest worker process (with
# --timeout-per-file each unit runs in a worker), then a summary: units, wall
# time, findings, units stopped by the time limit or by a crash, units with
# compiler errors grouped by their first error, peak memory and its trend
# (the first quarter of the run against the last).
#
#   scripts/soak.sh <checkout> <file list> <output prefix> [xfer-tidy options] -- <flags>
#
# The file list names sources relative to <checkout>, one per line.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")/.." && pwd)
TOOL=${XFER_TIDY:-$HERE/build/tool/xfer-tidy}
CHECKOUT=$1; LIST=$(realpath "$2"); OUT=$(realpath -m "$3"); shift 3
mapfile -t FILES < "$LIST"
cd "$CHECKOUT"
START=$(date +%s.%N)
/usr/bin/time -v "$TOOL" --no-cache --format=json --output="$OUT.json" \
  "${FILES[@]}" "$@" > "$OUT.stdout" 2> "$OUT.stderr" &
TIMER=$!
sleep 0.5
PID=$(pgrep -P "$TIMER" | head -1 || true)
: > "$OUT.rss"
while kill -0 "$TIMER" 2> /dev/null; do
  RSS=$(awk '/VmRSS/{print $2}' "/proc/$PID/status" 2> /dev/null || true)
  WORKER=0
  for CHILD in $(pgrep -P "$PID" || true); do
    CHILD_RSS=$(awk '/VmRSS/{print $2}' "/proc/$CHILD/status" 2> /dev/null || true)
    [ -n "$CHILD_RSS" ] && [ "$CHILD_RSS" -gt "$WORKER" ] && WORKER=$CHILD_RSS
  done
  [ -n "$RSS" ] && echo "$(date +%s) $RSS $WORKER" >> "$OUT.rss"
  sleep 2
done
STATUS=0; wait "$TIMER" || STATUS=$?
END=$(date +%s.%N)
python3 - "$OUT" "${#FILES[@]}" "$STATUS" "$(echo "$END - $START" | bc)" <<'PY'
import collections, json, re, sys
out, units, status, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
findings = json.load(open(out + '.json'))['findings']
checks = collections.Counter(f['check'] for f in findings if f['check'].startswith('xfer-'))
err = open(out + '.stderr').read()
failed = re.findall(r'error: (\S+): compiler errors; findings may be incomplete'
                    r' \(first: (?:\S+:)?[0-9]+:[0-9]+: (.*)\)', err)
timed_out = re.findall(r'error: (\S+): not analysed: it took longer than', err)
crashed = re.findall(r'error: (\S+): not analysed: the analysis crashed', err)
reasons = collections.Counter()
for _, message in failed:
    missing = re.match(r"'(.*)' file not found", message)
    reasons['missing header: ' + missing.group(1) if missing else message[:80]] += 1
rows = [[int(x) for x in line.split()[1:]] for line in open(out + '.rss')]
samples = [row[0] for row in rows] or [0]
workers = [row[1] for row in rows if len(row) > 1 and row[1]]
quarter = max(1, len(samples) // 4)
peak = [l.split(':', 1)[1].strip() for l in err.splitlines() if 'Maximum resident' in l]
print(f'units {units}, exit status {status}, wall {seconds / 60:.1f} min '
      f'({seconds / units:.2f} s per unit)')
print(f'xfer findings {sum(checks.values())}: {dict(checks)}')
print(f'units stopped by --timeout-per-file {len(timed_out)}, crashed {len(crashed)}'
      + ''.join(f'\n  {unit}' for unit in timed_out + crashed))
print(f'units with compiler errors {len(failed)}; first errors, most common:')
for reason, count in reasons.most_common(10):
    print(f'  {count:5d}  {reason}')
print(f'peak RSS {int(peak[0]) / 1024 if peak else 0:.0f} MiB; sampled maximum in the '
      f'first quarter {max(samples[:quarter]) / 1024:.0f} MiB, in the last quarter '
      f'{max(samples[-quarter:]) / 1024:.0f} MiB ({len(samples)} samples)')
if workers:
    quarter = max(1, len(workers) // 4)
    print(f'largest worker sampled: {max(workers) / 1024:.0f} MiB; in the first quarter '
          f'{max(workers[:quarter]) / 1024:.0f} MiB, in the last quarter '
          f'{max(workers[-quarter:]) / 1024:.0f} MiB')
PY
