// Invariants of the CooRMv2 RMS under random sessions, requests, done()s, updates and (un)cooperative applications.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CoormRms,
  spontaneousUpdate,
  type RequestSnapshot,
  type RequestSpec,
  type RmsMessage,
} from '../../core/coorm/index.js';
import type { RelatedHow, RequestType } from '../../core/coorm/index.js';
import type { StepFunction } from '../../core/time/step-function.js';

const CLUSTERS = [
  { cid: 'a', nodes: 10 },
  { cid: 'b', nodes: 6 },
];

interface Action {
  dt: number;
  app: number;
  kind: 'request' | 'done' | 'update' | 'disconnect';
  type: RequestType;
  cid: string;
  n: number;
  duration: number;
  how: RelatedHow;
  /** Index into the app's live requests (modulo their number). */
  pick: number;
}

const actionArb: fc.Arbitrary<Action> = fc.record({
  dt: fc.constantFrom(0, 0.25, 0.5, 1, 3, 10),
  app: fc.nat({ max: 3 }),
  kind: fc.constantFrom(
    'request',
    'request',
    'request',
    'request',
    'request',
    'done',
    'update',
    'update',
    'disconnect',
  ),
  type: fc.constantFrom<RequestType>('PA', 'NP', 'NP', 'P', 'P'),
  // Each application mostly works on its own home cluster (a for the first two, b for the others).
  cid: fc.constantFrom('home', 'home', 'home', 'a', 'b'),
  // Mostly small requests, so that several fit side by side and pre-allocations get used from inside.
  n: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: 10 }), weight: 1 },
  ),
  duration: fc.constantFrom(5, 20, 60, Infinity, Infinity),
  how: fc.constantFrom<RelatedHow>('FREE', 'FREE', 'COALLOC', 'NEXT'),
  pick: fc.nat({ max: 7 }),
});

const scenarioArb = fc.record({
  cooperative: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  actions: fc.array(actionArb, { minLength: 1, maxLength: 40, size: 'max' }),
});

// Pre-allocations under pressure: three applications on cluster a only, small requests mostly unconstrained,
// pre-allocations and non-preemptible requests in any order, so requests land inside pre-allocations, beside them
// (before the application pre-allocated) and as their updates.
const crowdedArb = fc.record({
  cooperative: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  actions: fc.array(
    fc.record({
      dt: fc.constantFrom(0, 0.5, 1, 3, 10),
      app: fc.nat({ max: 2 }),
      kind: fc.constantFrom('request', 'request', 'request', 'request', 'done', 'update', 'update'),
      type: fc.constantFrom<RequestType>('PA', 'NP', 'NP', 'P'),
      cid: fc.constant('a'),
      n: fc.integer({ min: 1, max: 5 }),
      duration: fc.constantFrom(10, 40, Infinity),
      how: fc.constantFrom<RelatedHow>('FREE', 'FREE', 'FREE', 'NEXT'),
      pick: fc.nat({ max: 7 }),
    }),
    { minLength: 1, maxLength: 30, size: 'max' },
  ),
});

type Scenario = { cooperative: boolean[]; actions: Action[] };

interface Check {
  (rms: CoormRms, now: number, messages: RmsMessage[]): void;
}

/** Plays a scenario; every pass's messages go through `check`. Returns the messages, serialised. */
function play(scenario: Scenario, check: Check): string[] {
  const rms = new CoormRms(CLUSTERS);
  const sessions: Array<number | undefined> = [];
  const mine: number[][] = [];
  for (let i = 0; i < 4; i++) {
    sessions.push(rms.connect(0));
    mine.push([]);
  }
  const log: string[] = [];
  let now = 0;
  // A cooperative application gives back what its preemptive view no longer covers, when it receives the view and
  // whenever its view announced a drop for now (as if it had set a timer for it).
  const lastViews = new Map<number, RmsMessage & { type: 'views' }>();
  const comply = (session: number) => {
    const app = sessions.indexOf(session);
    const view = lastViews.get(session);
    if (app < 0 || !scenario.cooperative[app] || view === undefined) return;
    const snap = rms.sessionSnapshot(session);
    if (snap === undefined) return;
    for (const { cid } of CLUSTERS) {
      const allowed = view.preemptive.get(cid)?.valueAt(now) ?? 0;
      let excess =
        snap.requests.filter((r) => r.type === 'P' && r.cid === cid).reduce((sum, r) => sum + r.nodeIds.length, 0) -
        allowed;
      for (const r of snap.requests) {
        if (excess <= 0) break;
        if (r.type !== 'P' || r.cid !== cid || r.nodeIds.length === 0) continue;
        const keep = r.nodeIds.length - Math.min(excess, r.nodeIds.length);
        const res = keep >= 1 ? spontaneousUpdate(rms, session, r.id, keep, now) : rms.done(session, r.id, now);
        if (res.ok) {
          excess -= r.nodeIds.length - keep;
          if (typeof res.value === 'number') mine[app]!.push(res.value);
        }
      }
    }
  };
  const drive = (until: number) => {
    for (let w = rms.nextWakeup(); w <= until; w = rms.nextWakeup()) {
      now = w;
      for (const s of sessions) if (s !== undefined) comply(s);
      const messages = rms.advance(w);
      check(rms, w, messages);
      log.push(
        `${w}:${JSON.stringify(messages, (_k, v) => (v instanceof Map ? [...v].map(([c, f]) => [c, f.toString()]) : v))}`,
      );
      for (const m of messages) {
        if (m.type !== 'views') continue;
        lastViews.set(m.session, m);
        comply(m.session);
      }
    }
  };
  for (const a of scenario.actions) {
    const t = now + a.dt;
    drive(t);
    now = t;
    const s = sessions[a.app];
    if (s === undefined) continue;
    const own = mine[a.app]!;
    // Constraints, done()s and updates aim at the application's live requests.
    const live = own.filter((id) => rms.requestSnapshot(id) !== undefined);
    const target = live.length > 0 ? live[a.pick % live.length] : undefined;
    if (a.kind === 'request') {
      const cid = a.cid === 'home' ? (a.app < 2 ? 'a' : 'b') : a.cid;
      const spec: RequestSpec = {
        cid,
        n: a.n,
        duration: a.duration,
        type: a.type,
        relatedHow: target === undefined ? 'FREE' : a.how,
        relatedTo: target,
      };
      const r = rms.request(s, spec, t);
      if (r.ok) own.push(r.value);
    } else if (a.kind === 'done' && target !== undefined) {
      rms.done(s, target, t);
    } else if (a.kind === 'update' && target !== undefined) {
      const r = spontaneousUpdate(rms, s, target, a.n, t);
      if (r.ok) own.push(r.value);
    } else if (a.kind === 'disconnect' && a.pick === 0) {
      rms.disconnect(s, t);
      sessions[a.app] = undefined;
    }
    log.push(`${t}:${a.kind}`);
  }
  drive(now + 200);
  return log;
}

const maxFrom = (f: { maxOver(t0: number, t1: number): number }, now: number) => f.maxOver(now, Infinity);
/** Where a request is: its start if started, else where the last pass scheduled it (Infinity: nowhere yet). */
const placedAt = (r: RequestSnapshot) => (r.startedAt === r.startedAt ? r.startedAt : r.scheduledAt);
const covers = (r: RequestSnapshot, t: number) => placedAt(r) <= t && t < placedAt(r) + r.duration;

describe('CooRMv2 RMS invariants', () => {
  it('node IDs: never held twice, never more than a cluster has', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        play(scenario, (rms) => {
          for (const { cid, nodes } of CLUSTERS) {
            const held: number[] = [];
            for (const s of rms.sessionIds())
              for (const r of rms.sessionSnapshot(s)!.requests) if (r.cid === cid) held.push(...r.nodeIds);
            expect(new Set(held).size).toBe(held.length);
            const all = [...held, ...rms.freeNodeIds(cid)].sort((x, y) => x - y);
            expect(all).toEqual(Array.from({ length: nodes }, (_, i) => i));
          }
        });
      }),
      { numRuns: 150 },
    );
  });

  it('non-preemptible promises fit the cluster, now and in the schedule ahead; pre-allocated nodes are never promised to another application', () => {
    fc.assert(
      fc.property(fc.oneof(scenarioArb, crowdedArb), (scenario) => {
        play(scenario, (rms, now) => {
          for (const { cid, nodes } of CLUSTERS) {
            const apps = rms.sessionIds().map((s) => rms.sessionSnapshot(s)!.requests.filter((r) => r.cid === cid));
            // Now, by node IDs: what the others hold non-preemptibly, plus what their started requests still wait for,
            // leaves each application its whole pre-allocation (and its own non-preemptible requests).
            const owed = apps.map((rs) =>
              rs
                .filter((r) => r.type === 'NP' && covers(r, now))
                .reduce((sum, r) => sum + Math.max(r.n, r.nodeIds.length), 0),
            );
            const totalOwed = owed.reduce((a, b) => a + b, 0);
            apps.forEach((rs, i) => {
              const pa = rs.filter((r) => r.type === 'PA' && covers(r, now)).reduce((sum, r) => sum + r.n, 0);
              expect(totalOwed - owed[i]! + Math.max(pa, owed[i]!)).toBeLessThanOrEqual(nodes);
            });
            // Ahead: every scheduled pre-allocation and non-preemptible request at its place; an application occupies at
            // least the larger of the two.
            for (const t of [now, ...apps.flat().flatMap((r) => [placedAt(r), placedAt(r) + r.duration])].filter(
              (t) => t >= now && t < Infinity,
            )) {
              let promised = 0;
              for (const rs of apps) {
                const at = (type: string) =>
                  rs.filter((r) => r.type === type && covers(r, t)).reduce((sum, r) => sum + r.n, 0);
                promised += Math.max(at('PA'), at('NP'));
              }
              expect(promised, `t=${t}`).toBeLessThanOrEqual(nodes);
            }
          }
        });
      }),
      { numRuns: 150 },
    );
  });

  it('a preemptive view never promises more than the non-preemptible schedule leaves, nor a view more than the cluster', () => {
    fc.assert(
      fc.property(fc.oneof(scenarioArb, crowdedArb), (scenario) => {
        play(scenario, (rms, now) => {
          const snaps = rms.sessionIds().map((s) => rms.sessionSnapshot(s)!);
          const all = snaps.flatMap((s) => s.requests);
          for (const snap of snaps) {
            if (snap.preemptive === undefined || snap.nonPreemptive === undefined) continue;
            for (const { cid, nodes } of CLUSTERS) {
              const p = snap.preemptive.get(cid)!;
              const np = snap.nonPreemptive.get(cid)!;
              // Computed here from the requests, not from the RMS's own pass: nodes minus every non-preemptible request
              // started or scheduled at t (a negative bound means the RMS promised more than exists).
              const nonPreemptible = all.filter((r) => r.type === 'NP' && r.cid === cid);
              for (const t of [
                now,
                ...p.times,
                ...nonPreemptible.flatMap((r) => [placedAt(r), placedAt(r) + r.duration]),
              ].filter((t) => t >= now && t < Infinity)) {
                const held = nonPreemptible.filter((r) => covers(r, t)).reduce((sum, r) => sum + r.n, 0);
                expect(p.valueAt(t), `session ${snap.id} on ${cid} at t=${t}`).toBeLessThanOrEqual(nodes - held);
              }
              expect(maxFrom(p, now)).toBeLessThanOrEqual(nodes);
              expect(maxFrom(np, now)).toBeLessThanOrEqual(nodes);
            }
          }
        });
      }),
      { numRuns: 150 },
    );
  });

  it('same inputs, same messages', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const none = () => {};
        expect(play(scenario, none)).toEqual(play(scenario, none));
      }),
      { numRuns: 60 },
    );
  });
});

describe('CooRMv2 RMS guarantees for evolving applications', () => {
  // One evolving application (pre-allocation `pa` on cluster a, which it may try to resize before an update), up to
  // three cooperative malleable ones and up to three rigid ones arriving at various times.
  const evolvingArb = fc.record({
    pa: fc.integer({ min: 1, max: 10 }),
    sizes: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 8 }),
    gaps: fc.array(fc.constantFrom(0.3, 1, 2.5, 7), { minLength: 8, maxLength: 8 }),
    /** Before update k, a resize of the pre-allocation to this size (0: none). */
    resizes: fc.array(fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 10 })), {
      minLength: 8,
      maxLength: 8,
    }),
    malleable: fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 3 }),
    rigid: fc.array(
      fc.record({
        n: fc.integer({ min: 1, max: 10 }),
        d: fc.constantFrom(3, 30, Infinity),
        at: fc.constantFrom(0, 0, 2, 9),
      }),
      { maxLength: 3 },
    ),
  });
  type EvolvingSpec = {
    pa: number;
    sizes: number[];
    gaps: number[];
    resizes: number[];
    malleable: number[];
    rigid: Array<{ n: number; d: number; at: number }>;
  };
  interface Update {
    id: number;
    at: number;
    n: number;
  }

  /** `after`: whether the RMS's pass at `now` has run (false: what done() changed before it); `updates`: those made so far. */
  function evolve(
    spec: EvolvingSpec,
    observe: (rms: CoormRms, now: number, messages: RmsMessage[], after: boolean, updates: readonly Update[]) => void,
  ) {
    const rms = new CoormRms([{ cid: 'a', nodes: 10 }]);
    const nea = rms.connect(0);
    const ok = <T>(r: { ok: true; value: T } | { ok: false }) => {
      if (!r.ok) throw new Error('refused');
      return r.value;
    };
    let pa = ok(rms.request(nea, { cid: 'a', n: spec.pa, duration: Infinity, type: 'PA' }, 0));
    let paSize = spec.pa;
    let current = ok(
      rms.request(
        nea,
        {
          cid: 'a',
          n: Math.min(spec.sizes[0]!, spec.pa),
          duration: Infinity,
          type: 'NP',
          relatedHow: 'COALLOC',
          relatedTo: pa,
        },
        0,
      ),
    );
    const apps = spec.malleable.map((n) => {
      const s = rms.connect(0);
      ok(rms.request(s, { cid: 'a', n, duration: Infinity, type: 'P' }, 0));
      return s;
    });
    const rigid = spec.rigid.map(() => rms.connect(0));
    const rigidSent = new Set<number>();
    let now = 0;
    const updates: Update[] = [];
    // Cooperative malleable applications: they release what their last view takes back, on receiving it and when
    // the drop it announced comes.
    const lastViews = new Map<number, StepFunction>();
    const comply = (session: number) => {
      const view = lastViews.get(session);
      if (view === undefined) return;
      const allowed = view.valueAt(now);
      for (const r of rms.sessionSnapshot(session)!.requests) {
        if (r.type !== 'P' || r.nodeIds.length <= allowed) continue;
        if (allowed >= 1) spontaneousUpdate(rms, session, r.id, allowed, now);
        else rms.done(session, r.id, now);
      }
    };
    const sendRigid = () => {
      spec.rigid.forEach(({ n, d, at }, i) => {
        if (at > now || rigidSent.has(i)) return;
        rigidSent.add(i);
        ok(rms.request(rigid[i]!, { cid: 'a', n, duration: d, type: 'NP' }, now));
      });
    };
    const drive = (until: number) => {
      for (let w = rms.nextWakeup(); w <= until; w = rms.nextWakeup()) {
        now = w;
        for (const s of apps) comply(s);
        observe(rms, w, [], false, updates);
        const messages = rms.advance(w);
        observe(rms, w, messages, true, updates);
        for (const m of messages) {
          if (m.type !== 'views' || !apps.includes(m.session)) continue;
          lastViews.set(m.session, m.preemptive.get('a')!);
          comply(m.session);
        }
      }
    };
    sendRigid();
    for (let k = 1; k < spec.sizes.length; k++) {
      const t = now + spec.gaps[k]!;
      drive(t);
      now = t;
      observe(rms, now, [], true, updates);
      sendRigid();
      const resize = spec.resizes[k]!;
      if (resize > 0 && resize !== paSize) {
        // A resize of the pre-allocation is served if it fits beside what the others hold or were promised; refused
        // otherwise, with an error naming the node count, leaving the pre-allocation as it was.
        const r = spontaneousUpdate(rms, nea, pa, resize, t);
        if (r.ok) {
          pa = r.value;
          paSize = resize;
        } else {
          expect(r.errors.map((e) => e.path)).toEqual(['n']);
          expect(rms.requestSnapshot(pa)).toMatchObject({ n: paSize, duration: Infinity });
        }
      }
      const n = Math.min(spec.sizes[k]!, paSize);
      const r = spontaneousUpdate(rms, nea, current, n, t);
      if (!r.ok) throw new Error(`update inside the pre-allocation refused: ${JSON.stringify(r.errors)}`);
      current = r.value;
      updates.push({ id: current, at: t, n });
    }
    drive(now + 30);
    now += 30;
    observe(rms, now, [], true, updates);
    return { rms, updates, nea };
  }

  it('every update inside the pre-allocation is served at once, its nodes given once preemptible holders release', () => {
    fc.assert(
      fc.property(evolvingArb, (spec) => {
        let killed = 0;
        const startedAt = new Map<number, number>();
        let withAllNodes = 0;
        const { updates } = evolve(spec, (rms, now, messages, after, made) => {
          killed += messages.filter((m) => m.type === 'killed').length;
          const mine = new Map(rms.sessionSnapshot(1)!.requests.map((r) => [r.id, r]));
          for (const u of made) {
            const r = mine.get(u.id);
            if (r === undefined || !(r.startedAt === r.startedAt)) continue;
            startedAt.set(u.id, r.startedAt);
            // Cooperative holders release on the view that takes their nodes back, and that view comes with the pass
            // of the update, within a re-scheduling interval of it: two seconds later the update has all its nodes.
            if (after && now >= u.at + 2 && r.startedAt + r.duration > now) {
              expect(r.nodeIds.length, `update ${u.id} to ${u.n} nodes asked at ${u.at}, at t=${now}`).toBe(u.n);
              withAllNodes++;
            }
          }
        });
        expect(killed).toBe(0);
        // Every update started (NEXT to what it replaced) at the very time it was asked, and the last one lived
        // long enough to be checked for its nodes.
        for (const u of updates) if (startedAt.has(u.id)) expect(startedAt.get(u.id), `update ${u.id}`).toBe(u.at);
        const last = updates[updates.length - 1];
        if (last !== undefined) {
          expect(startedAt.get(last.id)).toBe(last.at);
          expect(withAllNodes).toBeGreaterThan(0);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('NEXT-chained non-preemptible requests start exactly when their predecessor ends', () => {
    fc.assert(
      fc.property(evolvingArb, (spec) => {
        const seen = new Map<
          number,
          { startedAt: number; duration: number; how: string; parent: number | undefined; type: string }
        >();
        evolve(spec, (rms) => {
          for (const s of rms.sessionIds()) {
            for (const r of rms.sessionSnapshot(s)!.requests) {
              seen.set(r.id, {
                startedAt: r.startedAt,
                duration: r.duration,
                how: r.relatedHow,
                parent: r.relatedTo,
                type: r.type,
              });
            }
          }
        });
        let chained = 0;
        for (const r of seen.values()) {
          if (r.how !== 'NEXT' || r.type !== 'NP' || r.parent === undefined || !(r.startedAt === r.startedAt)) continue;
          const p = seen.get(r.parent)!;
          expect(r.startedAt).toBe(p.startedAt + p.duration);
          chained++;
        }
        expect(chained).toBe(spec.sizes.length - 1);
      }),
      { numRuns: 150 },
    );
  });
});
