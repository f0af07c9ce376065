// What `concertina store check` verifies, and what the host checks before it resumes a stored run: the file is a
// sound SQLite database, events are numbered 0..N-1 with none missing, none stored twice, each readable; every job
// the API accepted has its submission event; the run's clock is not behind anything stored.
import type { SqliteDatabase } from './sqlite.js';

/** Problems listed per kind before "and N more". */
const SHOW = 5;

export function checkStore(db: SqliteDatabase): string[] {
  const problems: string[] = [];
  const rows = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[];
  const one = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as T;
  const list = (items: readonly string[], what: string) => {
    if (!items.length) return;
    const more = items.length > SHOW ? ` and ${items.length - SHOW} more` : '';
    problems.push(`${what}: ${items.slice(0, SHOW).join(', ')}${more}`);
  };

  const integrity = rows<Record<string, string>>('PRAGMA quick_check').map((r) => Object.values(r)[0] ?? '');
  if (integrity.join() !== 'ok') {
    // Nothing else can be trusted in a damaged file.
    list(integrity, 'the SQLite file is damaged');
    return problems;
  }

  const run = one<{ clock: number } | undefined>('SELECT clock FROM run WHERE id = 1');
  const events = one<{ count: number; first: number | null; last: number | null; latest: number | null }>(
    'SELECT count(*) AS count, min(n) AS first, max(n) AS last, max(t) AS latest FROM events',
  );
  const commands = one<{ count: number; latest: number | null }>(
    'SELECT count(*) AS count, max(t) AS latest FROM commands',
  );
  if (!run) {
    if (events.count || commands.count)
      problems.push(`${events.count} events and ${commands.count} commands are stored without a run`);
    return problems;
  }

  if (events.count && (events.first !== 0 || events.last !== events.count - 1)) {
    const gaps = rows<{ from: number; to: number }>(
      `SELECT n + 1 AS "from", next - 1 AS "to" FROM (SELECT n, lead(n) OVER (ORDER BY n) AS next FROM events) WHERE next > n + 1 LIMIT ${SHOW + 1}`,
    ).map((g) => (g.from === g.to ? `${g.from}` : `${g.from}-${g.to}`));
    if (events.first !== 0) gaps.unshift(events.first === 1 ? '0' : `0-${events.first! - 1}`);
    list(gaps, `events missing from the run's ${events.last! + 1} (numbers)`);
  }
  list(
    rows<{ n: number }>(
      `SELECT n FROM events WHERE NOT json_valid(body) OR json_extract(body, '$.type') IS NOT type OR json_extract(body, '$.t') IS NOT t LIMIT ${SHOW + 1}`,
    ).map((r) => `${r.n}`),
    'events unreadable or not matching their columns (numbers)',
  );
  for (const type of ['job.submitted', 'job.ended']) {
    list(
      rows<{ job: string; count: number }>(
        `SELECT job_id AS job, count(*) AS count FROM events WHERE type = ? GROUP BY job_id HAVING count(*) > 1 LIMIT ${SHOW + 1}`,
        type,
      ).map((r) => `${r.job} (${r.count}×)`),
      `jobs with ${type} stored more than once`,
    );
  }

  // Decision: submissions of stores older than schema 6 did not record their job: their spec's id names it when it has one.
  const submissionJob = "coalesce(c.job_id, json_extract(c.value, '$.id'))";
  list(
    rows<{ job: string; count: number }>(
      `SELECT ${submissionJob} AS job, count(*) AS count FROM commands c WHERE c.key = 'jobs.submit' AND ${submissionJob} IS NOT NULL GROUP BY job HAVING count(*) > 1 LIMIT ${SHOW + 1}`,
    ).map((r) => `${r.job} (${r.count}×)`),
    'jobs accepted more than once',
  );
  list(
    rows<{ job: string; t: number }>(
      `SELECT ${submissionJob} AS job, c.t AS t FROM commands c WHERE c.key = 'jobs.submit' AND ${submissionJob} IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM events e WHERE e.type = 'job.submitted' AND e.job_id = ${submissionJob}) LIMIT ${SHOW + 1}`,
    ).map((r) => `${r.job} (accepted at t = ${Number(r.t.toFixed(3))} s)`),
    'accepted jobs without their job.submitted event',
  );

  if (!Number.isFinite(run.clock) || run.clock < 0) problems.push(`the run's clock is ${run.clock}`);
  const latest = Math.max(events.latest ?? 0, commands.latest ?? 0);
  // Times to the millisecond: enough to tell them apart, short enough to read.
  const ms = (t: number) => Number(t.toFixed(3));
  if (run.clock < latest)
    problems.push(`the run's clock (t = ${ms(run.clock)} s) is behind what is stored (up to t = ${ms(latest)} s)`);
  return problems;
}
