// A host with no batch system (this machine, or any host over SSH), limited to a number of slots: a small queue
// kept in files under a state directory. A job is started in the background in its own session (setsid, or nohup
// where there is none: a cancel then signals its processes one by one) with a pid file; its state comes from
// `kill -0` and the exit-status file its wrapper writes. Jobs that do not fit wait in FIFO order and are started by
// the next submission or status round. Every round takes a lock (mkdir, with the holder's pid in it, taken over only
// once that holder has died), so concurrent scripts never oversubscribe the slots.
// Decision: a plain host has no other users' jobs to list, so its background load is 0.
import {
  count,
  ParseError,
  sectionText,
  type BatchSystem,
  type ClusterReport,
  type LocalJobInfo,
  type LocalJobSpec,
  type LocalState,
  type SectionOutput,
} from './batch-system.js';
import { enterWorkDir, jobScript } from './job-script.js';
import { sh, ShellFragment } from '../shell/quote.js';
import { z } from 'zod';
import { batchWord } from './options.js';

/** A plain host's options: the processors it offers, and where its queue is kept. */
export const localOptionsSchema = z.strictObject({
  slots: z.number().int().min(1).max(100_000).meta({ description: 'processors this host offers to Concertina' }),
  stateDir: batchWord.optional().meta({
    description: 'where the queue is kept; absolute or relative to the login directory (default .concertina/local)',
  }),
});
export type LocalOptions = z.infer<typeof localOptionsSchema>;

/**
 * The states the status script prints: Q queued, S starting, R running, K running but being cancelled,
 * X cancelled, E<status> ended with that exit status, L lost (the process is gone without an exit status).
 */
export function localState(raw: string): { state: LocalState; exitCode?: number; reason?: string } {
  const ended = /^E(\d+)$/.exec(raw);
  if (ended) {
    const exitCode = Number(ended[1]);
    return { state: exitCode === 0 ? 'completed' : 'failed', exitCode, reason: `exit status ${exitCode}` };
  }
  switch (raw) {
    case 'Q':
    case 'S':
      return { state: 'pending' };
    case 'R':
    case 'K':
      return { state: 'running' };
    case 'X':
      return { state: 'cancelled' };
    case 'L':
      return { state: 'failed', reason: 'the process ended without an exit status (killed, or the host restarted)' };
    default:
      return { state: 'unknown' };
  }
}

// Shell functions shared by the submit, status and cancel scripts (project text; no value is interpolated here).
// Their variables are prefixed cnc_ (shell functions share the caller's variables), except `used`, their result.
const LIBRARY = String.raw`
cnc_lock() {
  cnc_tries=0
  until mkdir "$S/lock" 2>/dev/null; do
    cnc_holder=$(cat "$S/lock/pid" 2>/dev/null)
    if [ -n "$cnc_holder" ]; then
      cnc_tries=0
      # Its script died (killed, or its connection dropped), or is this one (an earlier section that ended
      # holding it): take the lock over. A live holder is waited for, however long it takes (kill -0 works on
      # this host only, as cnc_alive).
      if [ "$cnc_holder" = "$$" ] || ! kill -0 "$cnc_holder" 2>/dev/null; then cnc_break "$cnc_holder"; continue; fi
    else
      # No pid yet (the holder writes it right after mkdir): one that died in between is given up after ~10 s.
      cnc_tries=$((cnc_tries + 1))
      if [ "$cnc_tries" -ge 100 ]; then cnc_break ''; cnc_tries=0; continue; fi
    fi
    sleep 0.1 2>/dev/null || sleep 1
  done
  # The script's own pid: it lives as long as the script, whose sections each take the lock in turn.
  printf '%s\n' "$$" > "$S/lock/pid"
}
# Removes a stale lock ($1: the holder it was found with). It is renamed first (one script wins), and put back if it
# turns out to be a lock taken meanwhile by another script.
cnc_break() {
  rm -rf "$S/lock.$$"
  mv "$S/lock" "$S/lock.$$" 2>/dev/null || return 0
  if [ "$(cat "$S/lock.$$/pid" 2>/dev/null)" != "$1" ] && mv "$S/lock.$$" "$S/lock" 2>/dev/null; then return 0; fi
  rm -rf "$S/lock.$$"
}
cnc_unlock() { [ "$(cat "$S/lock/pid" 2>/dev/null)" = "$$" ] && rm -f "$S/lock/pid" && rmdir "$S/lock" 2>/dev/null; }
cnc_alive() { [ -f "$1/pid" ] && kill -0 "$(cat "$1/pid")" 2>/dev/null; }
# The processes of a job started by cnc_start ($1: its pid): its process group under setsid; under nohup (no setsid)
# it shares the caller's group, so its descendants, listed before any is signalled (orphans lose their parent).
cnc_tree() {
  if [ -f "$2/nosetsid" ]; then
    cnc_all=$1
    cnc_new=$1
    while [ -n "$cnc_new" ]; do
      cnc_new=$(ps -A -o pid= -o ppid= 2>/dev/null | awk -v p=" $cnc_new " 'index(p, " " $2 " ") { printf "%s ", $1 }')
      cnc_all="$cnc_all $cnc_new"
    done
    printf '%s\n' "$cnc_all"
  else
    printf '%s\n' "-$1"
  fi
}
cnc_used() {
  used=0
  for cnc_j in "$S"/[0-9]*; do
    [ -d "$cnc_j" ] && [ -f "$cnc_j/started" ] && [ ! -f "$cnc_j/exit" ] || continue
    if [ ! -f "$cnc_j/pid" ] || cnc_alive "$cnc_j"; then used=$((used + $(cat "$cnc_j/slots"))); fi
  done
}
cnc_start() {
  rm -f "$1/queued"
  : > "$1/started"
  (
    cd "$(cat "$1/dir")" || exit 1
    wrapper='printf "%s\n" "$$" > "$1/pid"; /bin/sh "$1/job.sh"; printf "%s\n" "$?" > "$1/exit.tmp"; mv -f "$1/exit.tmp" "$1/exit"'
    if command -v setsid >/dev/null 2>&1; then
      exec setsid /bin/sh -c "$wrapper" cnc-job "$1" > "$(cat "$1/out")" 2> "$(cat "$1/err")" < /dev/null
    else
      : > "$1/nosetsid"
      exec nohup /bin/sh -c "$wrapper" cnc-job "$1" > "$(cat "$1/out")" 2> "$(cat "$1/err")" < /dev/null
    fi
  ) &
}
cnc_dispatch() {
  cnc_used
  [ -f "$S/queue" ] || return 0
  : > "$S/queue.new"
  cnc_blocked=
  while read -r cnc_id; do
    [ -f "$S/$cnc_id/queued" ] || continue
    cnc_n=$(cat "$S/$cnc_id/slots")
    if [ -z "$cnc_blocked" ] && [ $((used + cnc_n)) -le "$LIMIT" ]; then
      cnc_start "$S/$cnc_id"
      used=$((used + cnc_n))
    else
      cnc_blocked=1
      printf '%s\n' "$cnc_id" >> "$S/queue.new"
    fi
  done < "$S/queue"
  mv -f "$S/queue.new" "$S/queue"
}
`;

export class LocalSystem implements BatchSystem {
  readonly kind = 'local';
  readonly listing = 'the local queue';
  private readonly stateDir: string;

  constructor(private readonly options: LocalOptions) {
    if (!Number.isInteger(options.slots) || options.slots < 1)
      throw new Error(`local: slots must be a whole number of at least 1 (got ${options.slots})`);
    this.stateDir = options.stateDir ?? '.concertina/local';
  }

  private prelude(): ShellFragment {
    return new ShellFragment(
      `${
        sh`S=$(mkdir -p -- ${this.stateDir} && cd -- ${this.stateDir} && pwd -P) || exit 1
LIMIT=${this.options.slots}`.text
      }${LIBRARY}`,
    );
  }

  submitCommand(job: LocalJobSpec): ShellFragment {
    if (job.processors > this.options.slots)
      throw new Error(
        `local: job ${job.name} asks for ${job.processors} processors; the host has ${this.options.slots} slots`,
      );
    return sh`${this.prelude()}
${enterWorkDir(job)} || exit 1
dir=$(pwd -P)
cnc_lock
id=$(( $(cat "$S/seq" 2>/dev/null || echo 0) + 1 ))
printf '%s\n' "$id" > "$S/seq"
J="$S/$id"
if mkdir "$J" && printf '%s\n' "$dir" > "$J/dir" && printf '%s\n' ${job.name} > "$J/name" && printf '%s\n' ${job.processors} > "$J/slots" \
  && printf '%s\n' ${job.stdoutFile} > "$J/out" && printf '%s\n' ${job.stderrFile} > "$J/err" \
  && printf '%s' ${jobScript(job)} > "$J/job.sh" && : > "$J/queued" && printf '%s\n' "$id" >> "$S/queue"; then
  cnc_dispatch
  cnc_unlock
  printf '%s\n' "$id"
else
  cnc_unlock
  exit 1
fi`;
  }

  parseSubmitted(stdout: string): string {
    const id = stdout.trim().split('\n').at(-1)?.trim() ?? '';
    if (!/^\d+$/.test(id))
      throw new ParseError(`local submit: no job id in its output ${JSON.stringify(stdout.slice(0, 200))}`);
    return id;
  }

  statusCommands(nonce: string): Record<string, ShellFragment> {
    return {
      local: sh`${this.prelude()}
cnc_lock
cnc_dispatch
cnc_used
printf '%s|slots|%s|%s\n' ${nonce} "$LIMIT" "$used"
for J in "$S"/[0-9]*; do
  [ -d "$J" ] || continue
  if [ -f "$J/queued" ]; then st=Q
  elif [ -f "$J/exit" ]; then st="E$(cat "$J/exit")"
  elif cnc_alive "$J"; then if [ -f "$J/cancelled" ]; then st=K; else st=R; fi
  # Looked at again: a job that ended since the first look has written its status before its wrapper exited.
  elif [ -f "$J/exit" ]; then st="E$(cat "$J/exit")"
  elif [ -f "$J/cancelled" ]; then st=X
  elif [ -f "$J/started" ] && [ ! -f "$J/pid" ]; then st=S
  else st=L
  fi
  printf '%s|job|%s|%s|%s|%s\n' ${nonce} "\${J##*/}" "$st" "$(cat "$J/slots")" "$(cat "$J/name")"
  # Ended jobs are forgotten a day after they ended (as Slurm forgets them after MinJobAge).
  case $st in E*|X|L) [ -n "$(find "$J" -prune -mtime +0)" ] && rm -rf "$J" ;; esac
done
cnc_unlock`,
    };
  }

  parseStatus(sections: ReadonlyMap<string, SectionOutput>, nonce: string): ClusterReport {
    return parseLocalStatus(sectionText(sections, 'local', 'local status'), nonce);
  }

  cancelCommand(ids: readonly string[]): ShellFragment {
    for (const id of ids) if (!/^\d+$/.test(id)) throw new Error(`local: job id must be a number (got "${id}")`);
    return sh`${this.prelude()}
cnc_lock
for id in ${ids}; do
  J="$S/$id"
  [ -d "$J" ] || continue
  : > "$J/cancelled"
  rm -f "$J/queued"
  if cnc_alive "$J"; then
    pid=$(cat "$J/pid")
    pids=$(cnc_tree "$pid" "$J")
    kill -TERM $pids 2>/dev/null || kill -TERM "$pid" 2>/dev/null
    ( sleep 5; kill -KILL $pids 2>/dev/null || kill -KILL "$pid" 2>/dev/null ) > /dev/null 2>&1 < /dev/null &
  fi
done
cnc_unlock`;
  }
}

/** The local status script's output: `<nonce>|slots|<limit>|<used>`, then `<nonce>|job|<id>|<state>|<slots>|<name>`. */
export function parseLocalStatus(text: string, nonce: string): ClusterReport {
  const head = `${nonce}|`;
  const jobs: LocalJobInfo[] = [];
  let slots: { total: number; used: number } | undefined;
  text.split('\n').forEach((line, index) => {
    if (!line.startsWith(head)) return;
    const fields = line.slice(head.length).split('|');
    const where = `local status line ${index + 1}`;
    if (fields[0] === 'slots') {
      slots = { total: count(fields[1], `${where}: slots`), used: count(fields[2], `${where}: used`) };
    } else if (fields[0] === 'job' && fields.length >= 5) {
      const [, id, raw, processors] = fields as [string, string, string, string];
      const { state, exitCode, reason } = localState(raw);
      jobs.push({
        id,
        name: fields.slice(4).join('|'),
        user: '',
        state,
        rawState: raw,
        processors: count(processors, `${where}: slots`),
        ...(exitCode !== undefined ? { exitCode } : {}),
        ...(reason ? { reason } : {}),
      });
    } else {
      throw new ParseError(`${where}: unexpected record ${JSON.stringify(line)}`);
    }
  });
  if (!slots) throw new ParseError('local status: no slots record');
  return { jobs, nodes: { total: slots.total, idle: Math.max(0, slots.total - slots.used), unavailable: 0 } };
}
