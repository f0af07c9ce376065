// Local job names carry Concertina's tag, so that after a restart the manager recognises its own jobs and counts
// every other job as background load: `cnc-<tag>-<job>-<component>-<kind><member>`, e.g. `cnc-concertina-j7-0-m3`
// (a live run's tag holds its run id: `cnc-concertina_2dk3x9q2-job_2d7-0-m3`). Tag and job id are encoded so that
// the name holds only [A-Za-z0-9_-], which every batch system accepts in a name and in an output file name (Grid
// Engine refuses `/:@\*?` and Slurm expands `%` in paths).

export type MemberKind = 'rigid' | 'malleable';

export interface LocalJobName {
  readonly tag: string;
  readonly jobId: string;
  readonly component: number;
  readonly kind: MemberKind;
  /** 0 for a rigid job; for a malleable job, member 0 runs the program and the others hold one processor each. */
  readonly member: number;
}

const PREFIX = 'cnc';

/**
 * The longest local job name submitted: PBS Professional's limit for a job name (Slurm 22.05 and Grid Engine 8.1.9
 * take 300 characters). The job's files (`<name>.exit.tmp`) then stay within a file name's 255 bytes. A run's tag
 * and a generated job id (`job-<n>`) make names of about 40 characters; only a long job id with many characters
 * outside [A-Za-z0-9] (three each) can pass it.
 */
export const MAX_LOCAL_JOB_NAME = 236;

/** Reversible: letters and digits stay, every other UTF-8 byte becomes `_XX` (lower-case hex). */
export function encodeNamePart(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9]/.test(c) ? c : `_${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** The inverse of encodeNamePart; undefined when `encoded` is not such an encoding. */
export function decodeNamePart(encoded: string): string | undefined {
  if (!/^(?:[A-Za-z0-9]|_[0-9a-f]{2})*$/.test(encoded)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length;) {
    if (encoded[i] === '_') {
      bytes.push(Number.parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(encoded.charCodeAt(i));
      i++;
    }
  }
  const buffer = Buffer.from(bytes);
  const text = buffer.toString('utf8');
  // Reject byte sequences that are not UTF-8 (they would not round-trip).
  return Buffer.from(text, 'utf8').equals(buffer) ? text : undefined;
}

export function localJobName(name: LocalJobName): string {
  return `${tagPrefix(name.tag)}${encodeNamePart(name.jobId)}-${name.component}-${name.kind === 'rigid' ? 'r' : 'm'}${name.member}`;
}

/** Every name of this tag starts with this. */
export function tagPrefix(tag: string): string {
  return `${PREFIX}-${encodeNamePart(tag)}-`;
}

/** The parts of a name made by localJobName for `tag`; undefined for any other name (another tag, a user's job). */
export function parseLocalJobName(name: string, tag: string): LocalJobName | undefined {
  const prefix = tagPrefix(tag);
  if (!name.startsWith(prefix)) return undefined;
  const match = /^([A-Za-z0-9_]*)-(0|[1-9]\d{0,5})-([rm])(0|[1-9]\d{0,6})$/.exec(name.slice(prefix.length));
  if (!match) return undefined;
  const jobId = decodeNamePart(match[1]!);
  if (jobId === undefined) return undefined;
  const kind: MemberKind = match[3] === 'r' ? 'rigid' : 'malleable';
  const member = Number(match[4]);
  if (kind === 'rigid' && member !== 0) return undefined;
  return { tag, jobId, component: Number(match[2]), kind, member };
}

/** The directory of a Concertina job on the cluster, under the manager's work root (shared with its runner). */
export function jobDirName(tag: string, jobId: string): string {
  return `${tagPrefix(tag)}${encodeNamePart(jobId)}`;
}
