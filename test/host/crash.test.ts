// Crash recovery as it happens: `concertina serve` killed with SIGKILL 100 times at random moments while submissions
// are in flight, started again on the same store each time. Every job the API accepted is there once, a submission
// retried after its answer was lost (same submissionId, as the console does) never makes a second job, and the store
// passes `store check` every time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Random } from '../../core/random.js';
import { openStore } from '../../electron/store/store.js';
import { repoRoot, running, startServe } from '../support/serve-process.js';

const KILLS = 100;
const SEED = Number(process.env.CRASH_SEED ?? 20261125);
const job = { kind: 'rigid', app: { model: 'fixed', runtime: 1e6 }, components: [{ processors: 1, program: 'x' }] };

describe('SIGKILL at random moments', () => {
  it(
    `${KILLS} kills with submissions in flight: no job lost or doubled, the store whole each time`,
    { timeout: 30 * 60_000 },
    async () => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'concertina-crash-')), 'run.db');
      const random = new Random(SEED);
      /** Submissions answered ok: submissionId -> jobId. */
      const accepted = new Map<string, string>();
      /** Sent, answer lost to the kill: retried after the restart with the same id. */
      let unanswered: string[] = [];
      let sent = 0;

      for (let kill = 0; kill <= KILLS; kill++) {
        const serve = startServe(['--store', file]);
        await running(serve);
        const listed = await serve.call<{ jobs: Array<{ id: string }> }>('jobs.list', { limit: 100_000 });
        const ids = listed.value.jobs.map((j) => j.id);
        for (const jobId of accepted.values())
          expect(
            ids.filter((id) => id === jobId),
            `${jobId} after kill ${kill} (seed ${SEED})`,
          ).toHaveLength(1);
        // The console retries what it never got an answer for: the same submission, never a second job.
        for (const submissionId of unanswered) {
          const r = await serve.call<{ jobId: string }>('jobs.submit', { ...job, submissionId });
          expect(r.ok, JSON.stringify(r.errors)).toBe(true);
          accepted.set(submissionId, r.value.jobId);
        }
        unanswered = [];
        expect(new Set(accepted.values()).size).toBe(accepted.size);
        if (kill === KILLS) {
          serve.child.kill('SIGTERM');
          expect(await serve.exited).toBe(0);
          break;
        }

        // Submissions in flight, some answered, then the kill at a moment drawn from the seed.
        const inFlight = random.int(1, 6);
        const answers: Array<Promise<void>> = [];
        for (let i = 0; i < inFlight; i++) {
          const submissionId = `s${++sent}`;
          unanswered.push(submissionId);
          answers.push(
            serve.call<{ jobId: string }>('jobs.submit', { ...job, submissionId }).then(
              (r) => {
                if (r.ok) {
                  accepted.set(submissionId, r.value.jobId);
                  unanswered = unanswered.filter((s) => s !== submissionId);
                }
              },
              () => undefined, // the connection died with the process
            ),
          );
        }
        const waitFor = random.int(0, inFlight);
        if (waitFor > 0) await Promise.race([Promise.all(answers.slice(0, waitFor)), serve.exited]);
        await new Promise((resolve) => setTimeout(resolve, random.int(0, 20)));
        serve.child.kill('SIGKILL');
        await serve.exited;
        await Promise.all(answers);

        const store = openStore(file, { readOnly: true });
        expect(store.check(), `after kill ${kill + 1} (seed ${SEED})`).toEqual([]);
        const submitted = store.commands().filter((c) => c.key === 'jobs.submit');
        for (const [submissionId, jobId] of accepted)
          expect(submitted.filter((c) => c.submissionId === submissionId).map((c) => c.jobId)).toEqual([jobId]);
        for (const jobId of accepted.values())
          expect(store.events(jobId).filter((e) => e.type === 'job.submitted')).toHaveLength(1);
        store.close();
      }

      // The command line says the same of the store.
      const check = spawnSync(process.execPath, ['bin/concertina.js', 'store', 'check', file], {
        cwd: repoRoot,
        encoding: 'utf8',
      });
      expect(check.stderr).toBe('');
      expect(check.stdout).toMatch(/: whole \(a simulated run: \d+ events, \d+ commands, clock t = /);
      expect(check.status).toBe(0);
      expect(accepted.size).toBe(sent);
    },
  );
});
