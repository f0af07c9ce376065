#!/bin/sh
# The program each size-1 local job of a malleable job runs: KOALA's "empty stub" (paper V-A). It announces its
# slot in the job directory, slots/<id> = {"slot","host","pid"}, where the application recruits it, and holds the
# processor until the batch system cancels the local job or the job's to-app.jsonl says stop.
#
#   slot-stub.sh [JOB_DIR [SLOT_ID]]     defaults: $CONCERTINA_JOB_DIR, $CONCERTINA_SLOT
#
# CONCERTINA_STUB_POLL_S: seconds between looks at to-app.jsonl (default 5).
set -u
dir=${1:-${CONCERTINA_JOB_DIR:-}}
slot=${2:-${CONCERTINA_SLOT:-}}
interval=${CONCERTINA_STUB_POLL_S:-5}

if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  printf 'slot-stub: the job directory must exist (got "%s")\n' "$dir" >&2
  exit 2
fi
# Decision: slot ids are names the runner chose (letters, digits, . _ -), so they are safe as file names and in JSON.
case $slot in
  '' | .* | *[!A-Za-z0-9._-]*)
    printf 'slot-stub: the slot id must be letters, digits, ".", "_" or "-", not starting with "." (got "%s")\n' "$slot" >&2
    exit 2
    ;;
esac
case $interval in
  '' | *[!0-9.]*) interval=5 ;;
esac

host=$( (hostname || uname -n) 2>/dev/null | tr -cd 'A-Za-z0-9._-')
file=$dir/slots/$slot
sleeper=

release() {
  [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
  rm -f "$file"
}
trap 'release; exit 0' TERM INT HUP

mkdir -p "$dir/slots" || exit 2
# Written aside and renamed, so that a reader never sees half a line.
printf '{"slot":"%s","host":"%s","pid":%s}\n' "$slot" "$host" "$$" > "$file.tmp.$$" && mv -f "$file.tmp.$$" "$file" || exit 2

while [ -d "$dir" ]; do
  # Concertina writes "type" right after "v" and "seq"; strings it writes never hold an unescaped quote.
  grep -q '"type":"stop"' "$dir/to-app.jsonl" 2>/dev/null && break
  # In the background, so that a cancel (SIGTERM) is handled at once rather than after the sleep.
  sleep "$interval" &
  sleeper=$!
  wait "$sleeper"
  sleeper=
done
release
exit 0
