// Invariants of the CooRMv2 RMS under random sessions, requests, done()s, updates and (un)cooperative applications.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CoormRms, spontaneousUpdate, type RequestSpec, type RmsMessage } from '../../core/coorm/index.js';
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
  /** Index into the app's own requests (modulo their number). */
  pick: number;
}

const actionArb: fc.Arbitrary<Action> = fc.record({
  dt: fc.constantFrom(0, 0.25, 0.5, 1, 3, 10),
  app: fc.nat({ max: 3 }),
  kind: fc.constantFrom('request', 'request', 'request', 'done', 'update', 'update', 'disconnect'),
  type: fc.constantFrom<RequestType>('PA', 'NP', 'P', 'P'),
  cid: fc.constantFrom('a', 'b'),
  n: fc.integer({ min: 1, max: 10 }),
  duration: fc.constantFrom(5, 20, 60, Infinity),
  how: fc.constantFrom<RelatedHow>('FREE', 'FREE', 'COALLOC', 'NEXT'),
  pick: fc.nat({ max: 7 }),
});

const scenarioArb = fc.record({
  cooperative: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  actions: fc.array(actionArb, { minLength: 1, maxLength: 40 }),
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
      let excess = snap.requests.filter((r) => r.type === 'P' && r.cid === cid).reduce((sum, r) => sum + r.nodeIds.length, 0) - allowed;
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
      log.push(`${w}:${JSON.stringify(messages, (_k, v) => (v instanceof Map ? [...v].map(([c, f]) => [c, f.toString()]) : v))}`);
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
    const target = own.length > 0 ? own[a.pick % own.length] : undefined;
    if (a.kind === 'request') {
      const spec: RequestSpec = { cid: a.cid, n: a.n, duration: a.duration, type: a.type, relatedHow: target === undefined ? 'FREE' : a.how, relatedTo: target };
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

describe('CooRMv2 RMS invariants', () => {
  it('node IDs: never held twice, never more than a cluster has', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        play(scenario, (rms) => {
          for (const { cid, nodes } of CLUSTERS) {
            const held: number[] = [];
            for (const s of rms.sessionIds()) for (const r of rms.sessionSnapshot(s)!.requests) if (r.cid === cid) held.push(...r.nodeIds);
            expect(new Set(held).size).toBe(held.length);
            const all = [...held, ...rms.freeNodeIds(cid)].sort((x, y) => x - y);
            expect(all).toEqual(Array.from({ length: nodes }, (_, i) => i));
          }
        });
      }),
      { numRuns: 150 },
    );
  });

  it('pre-allocated nodes are never given non-preemptibly to another application', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        play(scenario, (rms, now) => {
          for (const { cid, nodes } of CLUSTERS) {
            let footprint = 0;
            for (const s of rms.sessionIds()) {
              let pa = 0;
              let np = 0;
              for (const r of rms.sessionSnapshot(s)!.requests) {
                if (r.cid !== cid || !(r.startedAt <= now) || r.startedAt + r.duration <= now) continue;
                if (r.type === 'PA') pa += r.n;
                if (r.type === 'NP') np += r.n;
              }
              footprint += Math.max(pa, np);
            }
            expect(footprint).toBeLessThanOrEqual(nodes);
          }
        });
      }),
      { numRuns: 150 },
    );
  });

  it('a preemptive view never promises more than is preemptible, nor a view more than the cluster', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        play(scenario, (rms, now, messages) => {
          const pass = rms.lastPass()!;
          for (const m of messages) {
            if (m.type !== 'views') continue;
            for (const { cid, nodes } of CLUSTERS) {
              const p = m.preemptive.get(cid)!;
              const np = m.nonPreemptive.get(cid)!;
              expect(maxFrom(p.minus(pass.preemptible.get(cid)!.map((v) => Math.max(v, 0))), now)).toBeLessThanOrEqual(0);
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
  // One evolving application (pre-allocation `pa` on cluster a) and up to three cooperative malleable ones.
  const evolvingArb = fc.record({
    pa: fc.integer({ min: 1, max: 10 }),
    sizes: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 8 }),
    gaps: fc.array(fc.constantFrom(0.3, 1, 2.5, 7), { minLength: 8, maxLength: 8 }),
    malleable: fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 3 }),
    rigid: fc.array(fc.record({ n: fc.integer({ min: 1, max: 10 }), d: fc.constantFrom(3, 30) }), { maxLength: 3 }),
  });

  function evolve(
    spec: { pa: number; sizes: number[]; gaps: number[]; malleable: number[]; rigid: Array<{ n: number; d: number }> },
    observe: (rms: CoormRms, now: number, messages: RmsMessage[]) => void,
  ) {
    const rms = new CoormRms([{ cid: 'a', nodes: 10 }]);
    const nea = rms.connect(0);
    const ok = <T>(r: { ok: true; value: T } | { ok: false }) => {
      if (!r.ok) throw new Error('refused');
      return r.value;
    };
    const pa = ok(rms.request(nea, { cid: 'a', n: spec.pa, duration: Infinity, type: 'PA' }, 0));
    let current = ok(rms.request(nea, { cid: 'a', n: Math.min(spec.sizes[0]!, spec.pa), duration: Infinity, type: 'NP', relatedHow: 'COALLOC', relatedTo: pa }, 0));
    const apps = spec.malleable.map((n) => {
      const s = rms.connect(0);
      ok(rms.request(s, { cid: 'a', n, duration: Infinity, type: 'P' }, 0));
      return s;
    });
    for (const { n, d } of spec.rigid) ok(rms.request(rms.connect(0), { cid: 'a', n, duration: d, type: 'NP' }, 0));
    let now = 0;
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
    const drive = (until: number) => {
      for (let w = rms.nextWakeup(); w <= until; w = rms.nextWakeup()) {
        now = w;
        for (const s of apps) comply(s);
        observe(rms, w, []); // what done() changed before the pass
        const messages = rms.advance(w);
        observe(rms, w, messages);
        for (const m of messages) {
          if (m.type !== 'views' || !apps.includes(m.session)) continue;
          lastViews.set(m.session, m.preemptive.get('a')!);
          comply(m.session);
        }
      }
    };
    const updates: Array<{ id: number; at: number; n: number }> = [];
    for (let k = 1; k < spec.sizes.length; k++) {
      const t = now + spec.gaps[k]!;
      drive(t);
      now = t;
      const n = Math.min(spec.sizes[k]!, spec.pa);
      const r = spontaneousUpdate(rms, nea, current, n, t);
      if (!r.ok) throw new Error(`update inside the pre-allocation refused: ${JSON.stringify(r.errors)}`);
      current = r.value;
      updates.push({ id: current, at: t, n });
    }
    drive(now + 30);
    return { rms, updates, nea };
  }

  it('an update inside the pre-allocation is always served at once, its nodes given once preemptible holders release', () => {
    fc.assert(
      fc.property(evolvingArb, (spec) => {
        const served = new Map<number, { startedAt: number; nodes: number }>();
        let killed = 0;
        const { updates } = evolve(spec, (rms, _now, messages) => {
          killed += messages.filter((m) => m.type === 'killed').length;
          for (const r of rms.sessionSnapshot(1)!.requests) {
            if (r.type === 'NP' && !r.awaitingIds && r.startedAt === r.startedAt) served.set(r.id, { startedAt: r.startedAt, nodes: r.nodeIds.length });
          }
        });
        // Cooperative malleable applications are never killed.
        expect(killed).toBe(0);
        // The last update got all its nodes, and started (NEXT to what it replaced) at the very time it was asked.
        const last = updates[updates.length - 1];
        if (last !== undefined) expect(served.get(last.id)).toEqual({ startedAt: last.at, nodes: last.n });
      }),
      { numRuns: 150 },
    );
  });

  it('NEXT-chained non-preemptible requests start exactly when their predecessor ends', () => {
    fc.assert(
      fc.property(evolvingArb, (spec) => {
        const seen = new Map<number, { startedAt: number; duration: number; how: string; parent: number | undefined; type: string }>();
        evolve(spec, (rms) => {
          for (const s of rms.sessionIds()) {
            for (const r of rms.sessionSnapshot(s)!.requests) {
              seen.set(r.id, { startedAt: r.startedAt, duration: r.duration, how: r.relatedHow, parent: r.relatedTo, type: r.type });
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
