#!/bin/sh
# The program each size-1 local job of a malleable job runs: KOALA's "empty stub" (paper V-A). It announces its
# slot in the job directory, slots/<id> = {"slot","host","pid"}, and holds the processor until the batch system
# cancels the local job or the job's to-app.jsonl says stop. The application recruits it: the stub becomes the
# parent of an application process on this processor, so that the local job's process stays the stub and a cancel
# reaches both.
#
#   slot-stub.sh [JOB_DIR [SLOT_ID]]     defaults: $CONCERTINA_JOB_DIR, $CONCERTINA_SLOT
#
# Recruitment, through files beside the slot's (written aside and renamed by the SDK, so never seen half-written):
#   slots/<id>.run   a request: a sh script whose first line is "# concertina-run TOKEN" (TOKEN: letters, digits,
#                    _ -), every other word single-quoted by the SDK. The stub renames it <id>.running and runs it
#                    as its child, with CONCERTINA_JOB_DIR and CONCERTINA_SLOT exported. One process at a time.
#   slots/<id>.stop  holds TOKEN: the stub sends that process SIGTERM; asked again, SIGKILL.
#   slots/<id>.exit  written when the process ends: {"run":"TOKEN","status":N} (N > 128: killed by signal N - 128).
#                    The stub then holds the slot again and can be recruited again.
# A SIGTERM to the stub (a cancel) is forwarded to the recruited process.
#
# CONCERTINA_STUB_POLL_S: seconds between looks at to-app.jsonl (default 5). Requests are looked for every 0.2 s
# (every second where `sleep` takes no fractions).
set -u
dir=${1:-${CONCERTINA_JOB_DIR:-}}
slot=${2:-${CONCERTINA_SLOT:-}}
interval=${CONCERTINA_STUB_POLL_S:-5}

if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  printf 'slot-stub: the job directory must exist (got "%s")\n' "$dir" >&2
  exit 2
fi
# Decision: slot ids are names the runner chose (letters, digits, _ -), so they are safe as file names and in JSON;
# no dot, so that <id>.run and the like are never another slot's id.
case $slot in
  '' | *[!A-Za-z0-9_-]*)
    printf 'slot-stub: the slot id must be letters, digits, "_" or "-" (got "%s")\n' "$slot" >&2
    exit 2
    ;;
esac
case $interval in
  '' | *[!0-9.]* | *.*.*) interval=5 ;;
esac

host=$( (hostname || uname -n) 2>/dev/null | tr -cd 'A-Za-z0-9._-')
file=$dir/slots/$slot
child=
token=
signalled=
CONCERTINA_JOB_DIR=$dir
CONCERTINA_SLOT=$slot
export CONCERTINA_JOB_DIR CONCERTINA_SLOT

# The recruited process has ended: its status is recorded for the SDK, and the slot is free again.
reap() {
  wait "$child" 2>/dev/null
  status=$?
  # The request goes first: once the status is there, the slot is free.
  rm -f "$file.running"
  printf '{"run":"%s","status":%s}\n' "$token" "$status" > "$file.exit.tmp" && mv -f "$file.exit.tmp" "$file.exit"
  child=
  token=
  signalled=
}

# A request: taken (renamed, so that the SDK can tell it from one still waiting) and started in the background.
recruit() {
  mv -f "$file.run" "$file.running" 2>/dev/null || return 0
  first=
  IFS= read -r first < "$file.running" || :
  token=${first#\# concertina-run }
  case $first:$token in
    "# concertina-run "*:?* ) ;;
    *) token=bad ;;
  esac
  case $token in
    *[!A-Za-z0-9_-]*) token=bad ;;
  esac
  if [ "$token" = bad ]; then
    printf 'slot-stub: %s.run is not a recruitment request (first line "%s"); ignored\n' "$file" "$first" >&2
    printf '{"run":"","status":126}\n' > "$file.exit.tmp" && mv -f "$file.exit.tmp" "$file.exit"
    rm -f "$file.running"
    token=
    return 0
  fi
  /bin/sh "$file.running" < /dev/null &
  child=$!
}

# A stop request for the running process (a request for another one is stale and dropped).
stop_child() {
  want=
  IFS= read -r want < "$file.stop" || :
  rm -f "$file.stop"
  [ -n "$child" ] && [ "$want" = "$token" ] || return 0
  if [ -z "$signalled" ]; then
    signalled=1
    kill -TERM "$child" 2>/dev/null
  else
    kill -KILL "$child" 2>/dev/null
  fi
}

release() {
  trap '' TERM INT HUP
  # The slot goes first, so that no one recruits it while it is being let go.
  rm -f "$file" "$file.run" "$file.stop"
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  rm -f "$file.running" "$file.exit" "$file.exit.tmp"
}
trap 'release; exit 0' TERM INT HUP

mkdir -p "$dir/slots" || exit 2
# Written aside and renamed, so that a reader never sees half a line.
printf '{"slot":"%s","host":"%s","pid":%s}\n' "$slot" "$host" "$$" > "$file.tmp.$$" && mv -f "$file.tmp.$$" "$file" || exit 2

tick=0.2
sleep "$tick" 2>/dev/null || tick=1
# Looks at to-app.jsonl every `every` ticks.
every=$(awk -v i="$interval" -v t="$tick" 'BEGIN { n = int(i / t + 0.5); print (n < 1 ? 1 : n) }')
countdown=0

while [ -d "$dir" ]; do
  # Builtins only on a tick (test, kill, read): no process is started but the sleep. The slots directory is opened
  # first: an NFS client then looks again for names it had found missing (it would trust that for 30 s or more).
  : 2>/dev/null < "$dir/slots"
  if [ -n "$child" ]; then
    if ! kill -0 "$child" 2>/dev/null; then
      reap
    elif [ -f "$file.stop" ]; then
      stop_child
    fi
  elif [ -f "$file.run" ]; then
    recruit
  elif [ -f "$file.stop" ]; then
    rm -f "$file.stop"
  fi
  if [ "$countdown" -le 0 ]; then
    # Concertina writes "type" right after "v" and "seq"; strings it writes never hold an unescaped quote.
    grep -q '"type":"stop"' "$dir/to-app.jsonl" 2>/dev/null && break
    countdown=$every
  fi
  countdown=$((countdown - 1))
  # In the background, so that a cancel (SIGTERM) is handled at once rather than after the sleep.
  sleep "$tick" &
  # dash reports a recruited process killed by a signal when a wait reaps it; its status is recorded instead.
  wait "$!" 2>/dev/null
done
release
exit 0
