// An evolving job's update and a malleable job's accepted grow whose local jobs fail at the batch system, in live mode
// (a `local` cluster, no daemons needed): each processor a grow adds is held by a slot stub that fails here, as on a
// node that cannot run it. The applications (the SDK as it is) hear of it — a refused update after the size the job
// holds, a `granted` of 0 — and go on at the size they hold instead of waiting for processors that never come. Every
// wait is on a condition.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FromAppMessage } from '../../runners/protocol/messages.js';
import { waitFor } from './harness/common.js';
import { liveRun } from './harness/live-run.js';
import { assetsWithFailingSlots, localCluster } from './harness/local-cluster.js';

// The application: an evolving one asks for its max at once; both wait at their safe points while they count on more
// processors than they hold, and end, ok, once they count on what they hold again (told by a refusal or a grant).
const APP = `import { connect } from '../sdk/concertina-app.mjs';
const app = await connect();
if (process.argv[2] === 'evolving') await app.update(app.max);
let waited = false;
while (!app.stopRequested) {
  await app.sync();
  if (app.target > app.size) waited = true;
  else if (waited) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
app.done(waited && !app.stopRequested, \`size \${app.size}, target \${app.target}, refusal: \${app.refusal ?? 'none'}\`);
`;

describe('a grow that fails on a local cluster, as its application hears it', () => {
  const run = liveRun('live-growfail-apps', (dir) => {
    const assets = assetsWithFailingSlots(dir);
    writeFileSync(path.join(assets, 'apps', 'grow-waiter.mjs'), APP);
    return {
      clusters: [localCluster(path.join(dir, 'work'))],
      assetsSource: assets,
      idleWatchIntervalMs: 500,
      log: () => {},
    };
  });
  const { of, toApp, fromApp } = run;

  const submit = (id: string, kind: 'evolving' | 'malleable') =>
    run.world.act((s, now) =>
      s.submit(
        {
          id,
          kind,
          components: [
            {
              min: 1,
              max: 3,
              initial: 1,
              program: process.execPath,
              args: [path.join(run.world.assetsDir!('here')!, 'apps', 'grow-waiter.mjs'), kind],
            },
          ],
        },
        now,
      ),
    );

  it("refuses an evolving job's update whose grow failed, and the application goes on at its size", async () => {
    expect(submit('e', 'evolving').ok).toBe(true);
    await waitFor('the job to end', () => of('job.ended', 'e').length > 0, 60_000, 100);
    expect(of('job.ended', 'e')[0]).toMatchObject({ state: 'completed' });
    const refused = of('evolve.refused', 'e');
    expect(refused).toMatchObject([{ reason: expect.stringMatching(/^its grow failed: .*exit status 3/) }]);
    const told = toApp('e').filter((m) => m.type === 'resources' || m.type === 'refused');
    expect(told.slice(-2)).toMatchObject([
      { type: 'resources', size: 1 },
      { type: 'refused', reason: refused[0]!.reason },
    ]);
    expect(fromApp('e').find((m) => m.type === 'done')).toMatchObject({
      ok: true,
      note: `size 1, target 1, refusal: ${refused[0]!.reason}`,
    });
  }, 90_000);

  it('tells a malleable job that its accepted grow will not come, and the application goes on at its size', async () => {
    expect(submit('g', 'malleable').ok).toBe(true);
    await waitFor('the job to end', () => of('job.ended', 'g').length > 0, 60_000, 100);
    expect(of('job.ended', 'g')[0]).toMatchObject({ state: 'completed' });
    const answers = fromApp('g').filter(
      (m): m is Extract<FromAppMessage, { type: 'offerAnswer' }> => m.type === 'offerAnswer' && m.accepted > 0,
    );
    expect(answers.length).toBeGreaterThan(0);
    // Its local jobs fail one by one: each failure cuts the grant by one, from what the application accepted to 0.
    const { offerId, accepted } = answers[0]!;
    const granted = toApp('g').filter((m) => m.type === 'granted' && m.offerId === offerId);
    expect(granted.map((m) => m.type === 'granted' && [m.accepted, m.processors])).toEqual(
      Array.from({ length: accepted }, (_, i) => [accepted - i, accepted - i - 1]),
    );
    expect(fromApp('g').find((m) => m.type === 'done')).toMatchObject({
      ok: true,
      note: 'size 1, target 1, refusal: none',
    });
  }, 90_000);
});
