// The Concertina end of the application control protocol on one cluster: appends messages to a job's
// to-app.jsonl and reads what its application appended to from-app.jsonl, through the cluster's CommandRunner
// (SSH to its login node, or this machine). The workstation only ever connects out; nothing connects to it.
import { randomBytes } from 'node:crypto';
import { describeErrors, fromZodError } from '../../core/model/result.js';
import type { CommandRunner } from '../shell/command-runner.js';
import { ShellFragment, sh } from '../shell/quote.js';
import {
  FROM_APP_FILE,
  PROTOCOL_VERSION,
  SLOTS_DIR,
  TO_APP_FILE,
  bodyJson,
  decodeFromApp,
  toAppMessageSchema,
  type FromAppMessage,
  type LineError,
  type ToAppBody,
} from './messages.js';
import { JsonLinesReader, type RawLine } from './reader.js';

export interface AppChannelOptions {
  /** Per remote command (default 30 s). */
  readonly timeoutMs?: number;
}

export interface PollOptions {
  /** Wait on the cluster up to this long for any of the files to grow before reading (default 0: read at once). */
  readonly waitMs?: number;
}

/** What one poll found for one job. */
export interface JobPoll {
  /**
   * `missing`: no from-app.jsonl yet (the application has not started, or the directory is gone); `unreadable`:
   * it exists but cannot be read; `replaced`: it no longer holds what was read before (shorter, or other bytes),
   * so the next poll reads it from the top as a new file.
   */
  readonly state: 'ok' | 'missing' | 'unreadable' | 'replaced';
  readonly messages: FromAppMessage[];
  readonly errors: LineError[];
  readonly duplicates: number;
}

export class AppChannel {
  private readonly readers = new Map<string, JsonLinesReader<FromAppMessage>>();
  /** The last send to each job directory, so that sends to one job are appended in order. */
  private readonly sendTails = new Map<string, Promise<unknown>>();
  private pollTail: Promise<unknown> = Promise.resolve();
  private readonly timeoutMs: number;

  constructor(
    readonly runner: CommandRunner,
    options: AppChannelOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Creates the job directory with its two (empty) message files and the stubs' slots directory. */
  async create(jobDir: string): Promise<void> {
    const dir = checkJobDir(jobDir);
    const script = sh`mkdir -p ${`${dir}/${SLOTS_DIR}`} && : >> ${`${dir}/${TO_APP_FILE}`} && : >> ${`${dir}/${FROM_APP_FILE}`}`;
    const result = await this.runner.run(script.text, { timeoutMs: this.timeoutMs });
    if (result.code !== 0)
      throw new Error(`${this.runner.target}: cannot create job directory ${dir}: ${oneLine(result.stderr)}`);
  }

  /**
   * Starts reading a job's from-app.jsonl from the top, skipping seqs up to `lastSeq` (what an earlier run of
   * Concertina already handled). Without it, a job's first poll reads from the top and skips nothing.
   */
  resume(jobDir: string, lastSeq: number): void {
    const dir = checkJobDir(jobDir);
    this.readers.set(dir, new JsonLinesReader(this.fileName(dir), decodeFromApp, lastSeq));
  }

  /** The highest seq of the job's from-app.jsonl handled so far (to keep across a restart). */
  lastSeq(jobDir: string): number {
    return this.readers.get(checkJobDir(jobDir))?.lastSeq ?? 0;
  }

  /** Stops tracking a job (it ended). */
  forget(jobDir: string): void {
    const dir = checkJobDir(jobDir);
    this.readers.delete(dir);
    this.sendTails.delete(dir);
  }

  /**
   * Appends one message to the job's to-app.jsonl; resolves with the seq it got. Sends to one job keep their order
   * (the queue is extended before the first await; async, so that a bad argument rejects like a failed send).
   */
  async send(jobDir: string, body: ToAppBody): Promise<number> {
    const dir = checkJobDir(jobDir);
    const checked = toAppMessageSchema.safeParse({ v: PROTOCOL_VERSION, seq: 1, ...body });
    if (!checked.success)
      throw new Error(
        `invalid ${body.type} message: ${describeErrors(fromZodError(checked.error)).replaceAll('\n', '; ')}`,
      );
    const previous = this.sendTails.get(dir) ?? Promise.resolve();
    const sent = previous.catch(() => undefined).then(() => this.append(dir, body));
    this.sendTails.set(dir, sent);
    return sent;
  }

  private async append(dir: string, body: ToAppBody): Promise<number> {
    const file = `${dir}/${TO_APP_FILE}`;
    // Decision: the seq is computed on the cluster from the file's line count (Concertina numbers its lines 1, 2,
    // 3...), so a restarted console never reuses one and keeps no counter of its own; sends to one job are serial.
    const script = sh`d=${dir}
f=${file}
[ -d "$d" ] || { printf 'job directory %s does not exist\\n' "$d" >&2; exit 3; }
[ -f "$f" ] || : > "$f" || exit 3
# A partial last line (a writer killed mid-append) is ended first, so that this line stays whole.
if [ -n "$(tail -c 1 "$f")" ]; then printf '\\n' >> "$f" || exit 3; fi
seq=$(( $(wc -l < "$f") + 1 ))
printf '{"v":${new ShellFragment(String(PROTOCOL_VERSION))},"seq":%s,%s\\n' "$seq" ${bodyJson(body)} >> "$f" || exit 3
printf '%s\\n' "$seq"`;
    const result = await this.runner.run(script.text, { timeoutMs: this.timeoutMs });
    const seq = Number(result.stdout.trim());
    if (result.code !== 0 || !Number.isInteger(seq) || seq < 1) {
      throw new Error(
        `${this.runner.target}: cannot append ${body.type} to ${file}: ${oneLine(result.stderr) || `exit code ${result.code}`}`,
      );
    }
    return seq;
  }

  /**
   * Reads what the applications of `jobDirs` appended since the last poll, in one remote script (one round trip
   * over SSH) for all of them. Polls of one channel run one after the other.
   */
  async poll(jobDirs: readonly string[], options: PollOptions = {}): Promise<Map<string, JobPoll>> {
    const dirs = [...new Set(jobDirs.map(checkJobDir))];
    const polled = this.pollTail.catch(() => undefined).then(() => this.pollNow(dirs, options.waitMs ?? 0));
    this.pollTail = polled;
    return polled;
  }

  private async pollNow(dirs: readonly string[], waitMs: number): Promise<Map<string, JobPoll>> {
    const out = new Map<string, JobPoll>();
    if (dirs.length === 0) return out;
    const readers = dirs.map((dir) => this.readerOf(dir));
    const token = `CONCERTINA-POLL-${randomBytes(12).toString('hex')}`;
    // Decision: a waiting poll checks the files' sizes every 20 ms on the cluster and reads as soon as one holds
    // more than was read: an answer then arrives with the poll under way, not one round trip after it.
    const checks = readers.map(
      (reader, index) =>
        sh`[ "$(wc -c 2>/dev/null < ${`${dirs[index]!}/${FROM_APP_FILE}`} || echo 0)" -gt ${reader.offset} ] && break`
          .text,
    );
    const wait =
      waitMs > 0
        ? sh`cnc_i=0
while [ "$cnc_i" -lt ${Math.ceil(waitMs / 20)} ]; do
${new ShellFragment(checks.join('\n'))}
  sleep 0.02 2>/dev/null || break
  cnc_i=$((cnc_i + 1))
done
`.text
        : '';
    // Decision: past the start, the read begins one byte early, at the newline that ended the last line read: if
    // that byte is gone or is no newline, the file was replaced (this costs no extra command per job).
    const perJob = readers.map(
      (reader, index) => sh`f=${`${dirs[index]!}/${FROM_APP_FILE}`}
if [ ! -e "$f" ]; then printf '%s %s missing\\n' "$t" ${index}
elif [ ! -r "$f" ]; then printf '%s %s unreadable\\n' "$t" ${index}
else printf '%s %s ok\\n' "$t" ${index}; tail -c ${`+${Math.max(1, reader.offset)}`} "$f"
fi
printf '\\n%s-end\\n' "$t"`,
    );
    // Decision: the new bytes are sent as they are, each line prefixed by its length in bytes (awk in the C
    // locale), so offsets stay exact whatever the lines hold (multi-byte or even invalid UTF-8).
    const script = sh`${new ShellFragment(wait)}t=${token}
{
${new ShellFragment(perJob.map((f) => f.text).join('\n'))}
} | LC_ALL=C awk '{ print length($0) " " $0 }'`;
    const result = await this.runner.run(script.text, { timeoutMs: this.timeoutMs });
    if (result.code !== 0)
      throw new Error(
        `${this.runner.target}: poll of ${dirs.length} job(s) failed: ${oneLine(result.stderr) || `exit code ${result.code}`}`,
      );
    const sections = parsePollOutput(result.stdout, token, dirs.length, this.runner.target);
    readers.forEach((reader, index) => {
      const section = sections[index]!;
      const lines = section.state === 'ok' ? newCompleteLines(section.records, reader.offset) : [];
      if (lines === undefined) {
        // Read again from the top at the next poll.
        reader.restart();
        out.set(dirs[index]!, { state: 'replaced', messages: [], errors: [], duplicates: 0 });
        return;
      }
      out.set(dirs[index]!, { state: section.state, ...reader.consume(lines) });
    });
    return out;
  }

  private readerOf(dir: string): JsonLinesReader<FromAppMessage> {
    let reader = this.readers.get(dir);
    if (!reader) {
      reader = new JsonLinesReader(this.fileName(dir), decodeFromApp);
      this.readers.set(dir, reader);
    }
    return reader;
  }

  /** How errors name the file: `target:path`. */
  private fileName(dir: string): string {
    return `${this.runner.target}:${dir}/${FROM_APP_FILE}`;
  }
}

interface PollSection {
  readonly state: 'ok' | 'missing' | 'unreadable';
  /** What `tail` printed and the newline printed after it, as records (lines without their newline). */
  readonly records: RawLine[];
}

/** Splits the poll script's output into one section per job. */
export function parsePollOutput(stdout: string, token: string, jobs: number, target = 'poll'): PollSection[] {
  const sections: (PollSection | undefined)[] = new Array(jobs);
  let current: { index: number; state: PollSection['state']; records: RawLine[] } | undefined;
  const header = new RegExp(`^${token} (\\d+) (ok|missing|unreadable)$`);
  const records = stdout.split('\n');
  // The output ends with a newline: the empty string after it is no record.
  if (records.at(-1) === '') records.pop();
  for (const record of records) {
    const match = /^(\d+) /.exec(record);
    if (!match) throw new Error(`${target}: unexpected poll output line ${JSON.stringify(record.slice(0, 80))}`);
    const text = record.slice(match[0].length);
    if (text === `${token}-end`) {
      if (!current) throw new Error(`${target}: poll output has an end marker without a job`);
      sections[current.index] = { state: current.state, records: current.records };
      current = undefined;
      continue;
    }
    const head = header.exec(text);
    if (head && !current) {
      const index = Number(head[1]);
      if (index >= jobs) throw new Error(`${target}: poll output names job ${index} of ${jobs}`);
      current = { index, state: head[2] as PollSection['state'], records: [] };
      continue;
    }
    if (!current) throw new Error(`${target}: unexpected poll output line ${JSON.stringify(text.slice(0, 80))}`);
    current.records.push({ text, bytes: Number(match[1]) + 1 });
  }
  const cut = sections.findIndex((s) => s === undefined);
  if (cut >= 0) throw new Error(`${target}: poll output was cut short (job ${cut} of ${jobs} missing)`);
  return sections as PollSection[];
}

/**
 * The complete lines after `offset` in a section read from `max(1, offset)` (1-based, so one byte early past the
 * start); undefined when the file was replaced. The last record is the part after the file's last newline (empty
 * when it ended with one), which the writer is still appending: it is left for the next read.
 */
export function newCompleteLines(records: readonly RawLine[], offset: number): RawLine[] | undefined {
  if (offset === 0) return records.slice(0, -1);
  // The byte before the offset must still be there and be a newline: an empty first record, and then the tail.
  if (records.length < 2 || records[0]!.text !== '' || records[0]!.bytes !== 1) return undefined;
  return records.slice(1, -1);
}

function checkJobDir(jobDir: string): string {
  // Decision: job directories are absolute paths; values are quoted, so `~` would not expand anyway.
  if (!jobDir.startsWith('/'))
    throw new Error(`job directory must be an absolute path (got ${JSON.stringify(jobDir)})`);
  return jobDir.length > 1 ? jobDir.replace(/\/+$/, '') : jobDir;
}

function oneLine(text: string): string {
  return text.trim().split('\n').join(' / ');
}
