# Concertina's helper for malleable and evolving applications written in POSIX sh: the application control protocol (JSON
# lines in the job's directory, see the README) as shell functions. Source it, then:
#
#   . /path/to/concertina-app.sh
#   concertina_init || exit 2          # CONCERTINA_JOB_DIR and CONCERTINA_SIZE from the environment; says hello
#   while ...; do
#     ... one step of work ...
#     concertina_read                  # the unread messages, one JSON line each, in $CONCERTINA_MESSAGES
#     while IFS= read -r m; do
#       case $(concertina_type "$m") in
#         offer) concertina_answer_offer "$(concertina_field "$m" offerId)" 0 ;;
#         shrink) id=$(concertina_field "$m" offerId); n=$(concertina_field "$m" processors)
#                 concertina_answer_shrink "$id" "$n"; ...stop using $n processors...; concertina_released "$n" "$id" ;;
#         resources) size=$(concertina_field "$m" size) ;;
#         refused) echo "update refused: $(concertina_text "$m" reason)" ;;   # after concertina_update
#         stop) break ;;
#       esac
#     done <<EOF
#   $CONCERTINA_MESSAGES
#   EOF
#     concertina_progress 0.42 "step 42"
#   done
#   concertina_done true "finished"
#
# Processors besides its own (slots, each held by a slot stub) are listed by `concertina_slots SIZE` and recruited by
# `concertina_recruit SLOT PROGRAM [ARGS...]`, which starts PROGRAM on that processor as the child of its stub.
#
# Functions and variables start with concertina_/CONCERTINA_ (internal ones with _concertina_). Decision: the
# helper keeps no state in files: its next seq is the line count of from-app.jsonl plus one (it is the file's only
# writer), and what it has read is an offset and the last seq in shell variables.

CONCERTINA_NL='
'

# concertina_init: sets up the files and sends hello {pid, size, sdk}.
concertina_init() {
  if [ -z "${CONCERTINA_JOB_DIR:-}" ] || [ ! -d "$CONCERTINA_JOB_DIR" ]; then
    printf 'concertina-app: CONCERTINA_JOB_DIR must name an existing directory (got "%s")\n' "${CONCERTINA_JOB_DIR:-}" >&2
    return 2
  fi
  _concertina_count "${CONCERTINA_SIZE:-}" CONCERTINA_SIZE || return 2
  CONCERTINA_TO_APP=$CONCERTINA_JOB_DIR/to-app.jsonl
  CONCERTINA_FROM_APP=$CONCERTINA_JOB_DIR/from-app.jsonl
  CONCERTINA_TO_APP_OFFSET=0
  CONCERTINA_LAST_SEQ=0
  CONCERTINA_MESSAGES=
  : >> "$CONCERTINA_FROM_APP" || return 2
  # A partial last line (a writer killed mid-append) is ended first, so that the next line stays whole.
  if [ -n "$(tail -c 1 "$CONCERTINA_FROM_APP")" ]; then printf '\n' >> "$CONCERTINA_FROM_APP"; fi
  concertina_send hello "\"pid\":$$,\"size\":$CONCERTINA_SIZE,\"sdk\":\"concertina-sh/1\""
}

# concertina_send TYPE [FIELDS]: appends {"v":1,"seq":N,"type":TYPE,FIELDS}; FIELDS is JSON without braces.
concertina_send() {
  _concertina_seq=$(( $(wc -l < "$CONCERTINA_FROM_APP") + 1 ))
  if [ -n "${2:-}" ]; then _concertina_rest=",$2"; else _concertina_rest=; fi
  printf '{"v":1,"seq":%s,"type":"%s"%s}\n' "$_concertina_seq" "$1" "$_concertina_rest" >> "$CONCERTINA_FROM_APP"
}

# concertina_read: puts the complete lines of to-app.jsonl not read yet in CONCERTINA_MESSAGES (one per line,
# seqs already seen skipped); leaves a line still being written for the next call.
concertina_read() {
  CONCERTINA_MESSAGES=
  _concertina_chunk=$(tail -c "+$((CONCERTINA_TO_APP_OFFSET + 1))" "$CONCERTINA_TO_APP" 2>/dev/null; printf .)
  _concertina_chunk=${_concertina_chunk%.}
  case $_concertina_chunk in
    *"$CONCERTINA_NL"*) ;;
    *) return 0 ;;
  esac
  _concertina_complete=${_concertina_chunk%"${_concertina_chunk##*"$CONCERTINA_NL"}"}
  CONCERTINA_TO_APP_OFFSET=$((CONCERTINA_TO_APP_OFFSET + $(printf '%s' "$_concertina_complete" | wc -c)))
  while IFS= read -r _concertina_line; do
    [ -n "$_concertina_line" ] || continue
    # Concertina writes "v" and "seq" first on every line.
    _concertina_seq=$(printf '%s\n' "$_concertina_line" | sed -n 's/^{"v":1,"seq":\([0-9][0-9]*\),.*/\1/p')
    if [ -z "$_concertina_seq" ]; then
      printf 'concertina-app: %s: skipped a line that is not a version 1 message\n' "$CONCERTINA_TO_APP" >&2
      continue
    fi
    [ "$_concertina_seq" -gt "$CONCERTINA_LAST_SEQ" ] || continue
    CONCERTINA_LAST_SEQ=$_concertina_seq
    CONCERTINA_MESSAGES=$CONCERTINA_MESSAGES$_concertina_line$CONCERTINA_NL
  done <<EOF
$_concertina_complete
EOF
}

# concertina_type MESSAGE: its type (resources, offer, granted, shrink, stop, refused). `granted {offerId, processors,
# accepted}`: of the `accepted` processors answered to an offer only `processors` are coming (the cluster lost some).
concertina_type() {
  printf '%s\n' "$1" | sed -n 's/^{"v":1,"seq":[0-9]*,"type":"\([A-Za-z]*\)".*/\1/p'
}

# concertina_field MESSAGE NAME: the value of a number or boolean field (offerId, processors, size, mandatory, and
# deadline: wall-clock ms since the epoch by which a shrink must be released; empty when absent).
concertina_field() {
  printf '%s\n' "$1" | sed -n "s/^.*[{,]\"$2\":\\([-0-9.a-z]*\\)[,}].*\$/\\1/p"
}

# concertina_text MESSAGE NAME: the value of a string field (reason); the escapes \" \\ \/ \n \t are undone.
concertina_text() {
  printf '%s\n' "$1" | LC_ALL=C awk -v key="\"$2\":\"" '
    {
      i = index($0, key)
      if (i == 0) exit
      rest = substr($0, i + length(key))
      out = ""
      n = length(rest)
      for (j = 1; j <= n; j++) {
        c = substr(rest, j, 1)
        if (c == "\"") break
        if (c == "\\") {
          j++
          c = substr(rest, j, 1)
          if (c == "n") c = "\n"
          else if (c == "t") c = "\t"
        }
        out = out c
      }
      print out
    }'
}

concertina_answer_offer() {
  _concertina_count "$1" offerId && _concertina_count "$2" accepted || return 2
  concertina_send offerAnswer "\"offerId\":$1,\"accepted\":$2"
}

concertina_answer_shrink() {
  _concertina_count "$1" offerId && _concertina_count "$2" accepted || return 2
  concertina_send shrinkAnswer "\"offerId\":$1,\"accepted\":$2"
}

# concertina_released PROCESSORS [OFFERID]: the application has stopped using its last PROCESSORS processors
# (after a shrink request OFFERID, or on its own without one).
concertina_released() {
  _concertina_count "$1" processors || return 2
  if [ -n "${2:-}" ]; then
    _concertina_count "$2" offerId || return 2
    concertina_send released "\"processors\":$1,\"offerId\":$2"
  else
    concertina_send released "\"processors\":$1"
  fi
}

# concertina_update PROCESSORS [ANNOUNCE_S]: an evolving application asks for a new total size (within its min..max;
# ANNOUNCE_S > 0: a grow wanted that many seconds from now). Stop using processors before asking for fewer; more
# come with a `resources` message, or a `refused` one says why not.
concertina_update() {
  _concertina_count "$1" processors || return 2
  if [ -n "${2:-}" ] && [ "$2" != 0 ]; then
    _concertina_count "$2" announceS || return 2
    concertina_send update "\"processors\":$1,\"announceS\":$2"
  else
    concertina_send update "\"processors\":$1"
  fi
}

# concertina_progress FRACTION [NOTE]: FRACTION is clamped to 0..1.
concertina_progress() {
  _concertina_fraction=$(LC_ALL=C awk -v f="$1" 'BEGIN { f += 0; if (f < 0) f = 0; if (f > 1) f = 1; printf "%.6g", f }')
  if [ $# -ge 2 ]; then
    concertina_send progress "\"fraction\":$_concertina_fraction,\"note\":$(concertina_json_string "$2")"
  else
    concertina_send progress "\"fraction\":$_concertina_fraction"
  fi
}

# concertina_done true|false [NOTE]
concertina_done() {
  case $1 in
    true | false) ;;
    *) printf 'concertina-app: concertina_done takes true or false (got "%s")\n' "$1" >&2; return 2 ;;
  esac
  if [ $# -ge 2 ]; then
    concertina_send done "\"ok\":$1,\"note\":$(concertina_json_string "$2")"
  else
    concertina_send done "\"ok\":$1"
  fi
}

# concertina_json_string TEXT: TEXT as a JSON string; newlines become \n, other control characters spaces.
concertina_json_string() {
  printf '%s' "$1" | LC_ALL=C awk '
    BEGIN { printf "\"" }
    {
      if (NR > 1) printf "\\n"
      n = length($0)
      for (i = 1; i <= n; i++) {
        c = substr($0, i, 1)
        if (c == "\\" || c == "\"") printf "\\%s", c
        else if (c < " ") printf " "
        else printf "%s", c
      }
    }
    END { printf "\"" }'
}

# concertina_slots [SIZE]: the ids of the slots an application of SIZE processors (default $CONCERTINA_SIZE) holds
# besides itself, one per line: the first SIZE - 1 slot files in member order (m1, m2, ...). The last are the most
# recently granted, and the ones to stop using first on a shrink.
concertina_slots() {
  _concertina_size=${1:-${CONCERTINA_SIZE:-1}}
  _concertina_count "$_concertina_size" SIZE || return 2
  [ "$_concertina_size" -gt 1 ] || return 0
  for _concertina_file in "$CONCERTINA_JOB_DIR"/slots/*; do
    _concertina_id=${_concertina_file##*/}
    # Slot ids have no dot: <id>.run, <id>.exit and temporary files are not slots.
    case $_concertina_id in
      '' | *[!A-Za-z0-9_-]*) continue ;;
    esac
    _concertina_line=
    { IFS= read -r _concertina_line < "$_concertina_file"; } 2>/dev/null || :
    case $_concertina_line in
      "{\"slot\":\"$_concertina_id\","*) ;;
      *) continue ;;
    esac
    case $_concertina_id in
      m | m*[!0-9]*) printf '999999999 %s\n' "$_concertina_id" ;;
      m*) printf '%s %s\n' "${_concertina_id#m}" "$_concertina_id" ;;
      *) printf '999999999 %s\n' "$_concertina_id" ;;
    esac
  done | sort -k1,1n -k2,2 | head -n "$((_concertina_size - 1))" | cut -d ' ' -f 2
}

# concertina_quote TEXT: sets CONCERTINA_QUOTED to TEXT as one single-quoted sh word (each ' as '\''); kept in a
# variable, not printed, so that trailing newlines stay.
concertina_quote() {
  _concertina_rest=$1
  CONCERTINA_QUOTED=
  while :; do
    case $_concertina_rest in
      *\'*)
        CONCERTINA_QUOTED="$CONCERTINA_QUOTED${_concertina_rest%%\'*}'\\''"
        _concertina_rest=${_concertina_rest#*\'}
        ;;
      *) break ;;
    esac
  done
  CONCERTINA_QUOTED="'$CONCERTINA_QUOTED$_concertina_rest'"
}

# concertina_recruit SLOT PROGRAM [ARGS...]: starts PROGRAM on SLOT's processor as the child of its stub (which
# exports CONCERTINA_JOB_DIR and CONCERTINA_SLOT to it). Every word is quoted here, so nothing in them is ever
# expanded. Sets CONCERTINA_RUN to the request's token; one process per slot at a time (returns 1 while busy).
concertina_recruit() {
  if [ $# -lt 2 ]; then
    printf 'concertina-app: usage: concertina_recruit SLOT PROGRAM [ARGS...]\n' >&2
    return 2
  fi
  case $1 in
    '' | *[!A-Za-z0-9_-]*)
      printf 'concertina-app: concertina_recruit: not a slot id: "%s"\n' "$1" >&2
      return 2
      ;;
  esac
  _concertina_base=$CONCERTINA_JOB_DIR/slots/$1
  if [ ! -f "$_concertina_base" ]; then
    printf 'concertina-app: concertina_recruit: no slot %s\n' "$1" >&2
    return 2
  fi
  if [ -f "$_concertina_base.run" ] || [ -f "$_concertina_base.running" ]; then
    printf 'concertina-app: concertina_recruit: slot %s already runs a recruited process\n' "$1" >&2
    return 1
  fi
  shift
  _concertina_runs=$((${_concertina_runs:-0} + 1))
  CONCERTINA_RUN=sh$$-$_concertina_runs-$(date +%s)
  _concertina_script="# concertina-run $CONCERTINA_RUN${CONCERTINA_NL}exec"
  for _concertina_word in "$@"; do
    concertina_quote "$_concertina_word"
    _concertina_script="$_concertina_script $CONCERTINA_QUOTED"
  done
  rm -f "$_concertina_base.exit"
  # Written aside and renamed: the stub never reads half a request.
  printf '%s\n' "$_concertina_script" > "$_concertina_base.run.tmp.$$" && mv -f "$_concertina_base.run.tmp.$$" "$_concertina_base.run"
}

# concertina_recruit_status SLOT: prints the exit status of the process last recruited on SLOT once it has ended
# (over 128: killed by signal status - 128); returns 1, printing nothing, while it runs.
concertina_recruit_status() {
  _concertina_line=
  { IFS= read -r _concertina_line < "$CONCERTINA_JOB_DIR/slots/$1.exit"; } 2>/dev/null || :
  _concertina_status=$(printf '%s\n' "$_concertina_line" | sed -n 's/^{"run":"[A-Za-z0-9_-]*","status":\([0-9][0-9]*\)}$/\1/p')
  [ -n "$_concertina_status" ] || return 1
  printf '%s\n' "$_concertina_status"
}

_concertina_count() {
  case $1 in
    '' | *[!0-9]* | 0?*)
      printf 'concertina-app: %s must be a whole number (got "%s")\n' "$2" "$1" >&2
      return 1
      ;;
  esac
}
