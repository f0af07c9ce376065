// The CooRMv2 resource manager: sessions, request()/done(), coalesced scheduling passes, node IDs, start
// notifications, views pushed to the applications they change, and killing applications that keep preempted nodes.
// Pure and deterministic: time is passed in, nothing runs by itself; the driver calls advance() at nextWakeup().
import { fail, ok, type FieldError, type Result } from '../model/result.js';
import { checkFixedPreallocation, checkInside } from './admission.js';
import { NodePool } from './node-pool.js';
import { detach, makeRequest } from './requests.js';
import { schedulePass, type PassResult } from './schedule.js';
import { findViolation, nextViewDrop } from './violations.js';
import { pushChangedViews } from './view-push.js';
import {
  RELATED_HOWS,
  REQUEST_TYPES,
  started,
  type CoormCluster,
  type CoormOptions,
  type CoormRequest,
  type PreemptibleSharing,
  type RequestSpec,
  type RmsMessage,
  type View,
} from './types.js';

interface Session {
  readonly id: number;
  readonly pa: CoormRequest[];
  readonly np: CoormRequest[];
  readonly p: CoormRequest[];
  lastNonPreemptive: View | undefined;
  lastPreemptive: View | undefined;
  /** Time of the pass that first saw it hold more preemptible nodes than its pushed view allows. */
  violatingSince: number | undefined;
  /** Requests whose time ran out: a done() for one of them, sent as the time ran out, is no error. */
  readonly expired: Set<number>;
}

/** Read-only picture of a request, for drivers and tests. */
export interface RequestSnapshot {
  id: number;
  session: number;
  cid: string;
  n: number;
  duration: number;
  type: CoormRequest['type'];
  relatedHow: CoormRequest['relatedHow'];
  relatedTo: number | undefined;
  nAlloc: number;
  scheduledAt: number;
  startedAt: number;
  nodeIds: readonly number[];
  awaitingIds: boolean;
  insidePA: boolean;
}

export interface SessionSnapshot {
  id: number;
  requests: RequestSnapshot[];
  nonPreemptive: View | undefined;
  preemptive: View | undefined;
}

const fieldError = (path: string, message: string): Result<never> => fail([{ path, message }]);

const bits = new Float64Array(1);
const word = new BigInt64Array(bits.buffer);

/**
 * now - start, rounded down where floating point would put start + duration past now: a request done() now has ended
 * by now (it leaves its set at this pass, and what is chained after it starts no later than now).
 */
function elapsed(start: number, now: number): number {
  let d = Math.max(0, now - start);
  while (d > 0 && start + d > now) {
    bits[0] = d;
    word[0]! -= 1n;
    d = bits[0]!;
  }
  return d;
}

function snapshot(r: CoormRequest): RequestSnapshot {
  return {
    id: r.id,
    session: r.session,
    cid: r.cid,
    n: r.n,
    duration: r.duration,
    type: r.type,
    relatedHow: r.relatedHow,
    relatedTo: r.parent?.id,
    nAlloc: r.nAlloc,
    scheduledAt: r.scheduledAt,
    startedAt: r.startedAt,
    nodeIds: [...r.nodeIds],
    awaitingIds: r.awaitingIds,
    insidePA: r.insidePA,
  };
}

export class CoormRms {
  readonly clusters: readonly CoormCluster[];
  readonly reschedulingIntervalS: number;
  readonly violationGraceS: number;
  readonly preemptibleSharing: PreemptibleSharing;
  private readonly nodesOf = new Map<string, number>();
  private readonly pools = new Map<string, NodePool>();
  private readonly sessions = new Map<number, Session>();
  private readonly requests = new Map<number, CoormRequest>();
  private nextSessionId = 1;
  private nextRequestId = 1;
  /** Time of the first message not yet seen by a pass (Infinity: none). */
  private dirtySince = Infinity;
  private lastPassAt = -Infinity;
  /** Earliest timed event after the last pass: a start, an end, a violation deadline, a view dropping. */
  private timedWakeup = Infinity;
  private lastResult: PassResult | undefined;
  /** request() and done() calls accepted so far. */
  messagesProcessed = 0;
  passes = 0;

  constructor(clusters: ReadonlyArray<CoormCluster>, options: CoormOptions = {}) {
    const seen = new Set<string>();
    clusters.forEach((c, i) => {
      if (typeof c.cid !== 'string' || c.cid === '' || seen.has(c.cid)) {
        throw new RangeError(`clusters[${i}].cid: must be a unique non-empty string`);
      }
      if (!Number.isInteger(c.nodes) || c.nodes < 0)
        throw new RangeError(`clusters[${i}].nodes: must be an integer >= 0`);
      seen.add(c.cid);
    });
    this.clusters = clusters.map((c) => ({ cid: c.cid, nodes: c.nodes }));
    for (const c of this.clusters) {
      this.nodesOf.set(c.cid, c.nodes);
      this.pools.set(c.cid, new NodePool(c.nodes));
    }
    const interval = options.reschedulingIntervalS ?? 1;
    if (!(interval >= 0) || !Number.isFinite(interval))
      throw new RangeError('reschedulingIntervalS: must be a finite number >= 0');
    this.reschedulingIntervalS = interval;
    // Decision: an application gets one re-scheduling interval (by default) to release what its new view takes back.
    const grace = options.violationGraceS ?? interval;
    if (!(grace >= 0) || !Number.isFinite(grace)) throw new RangeError('violationGraceS: must be a finite number >= 0');
    this.violationGraceS = grace;
    const sharing = options.preemptibleSharing ?? 'fill';
    if (sharing !== 'fill' && sharing !== 'strict')
      throw new RangeError(`preemptibleSharing: must be 'fill' or 'strict', not '${String(sharing)}'`);
    this.preemptibleSharing = sharing;
  }

  // ---- messages from applications ---------------------------------------------------------------------

  /** Opens a session; its first views come with the next pass. */
  connect(now: number): number {
    const id = this.nextSessionId++;
    this.sessions.set(id, {
      id,
      pa: [],
      np: [],
      p: [],
      lastNonPreemptive: undefined,
      lastPreemptive: undefined,
      violatingSince: undefined,
      expired: new Set(),
    });
    this.touch(now);
    return id;
  }

  /** Adds a request; the answer is its id, or errors naming the offending field. */
  request(session: number, spec: RequestSpec, now: number): Result<number> {
    const s = this.sessions.get(session);
    if (s === undefined) return fieldError('session', `no open session ${session}`);
    // Decision: checked by hand rather than with zod: an in-process API on the hot path (the boundaries that take
    // outside input parse with zod before calling it); every error still names its field.
    const errors: FieldError[] = [];
    const nodes = this.nodesOf.get(spec.cid);
    if (nodes === undefined) errors.push({ path: 'cid', message: `unknown cluster '${String(spec.cid)}'` });
    if (!Number.isInteger(spec.n) || spec.n < 1) errors.push({ path: 'n', message: 'must be an integer >= 1' });
    else if (nodes !== undefined && spec.n > nodes)
      errors.push({ path: 'n', message: `${spec.n} nodes requested, cluster '${spec.cid}' has ${nodes}` });
    if (typeof spec.duration !== 'number' || !(spec.duration > 0))
      errors.push({ path: 'duration', message: 'must be > 0 seconds (Infinity allowed)' });
    if (!REQUEST_TYPES.includes(spec.type))
      errors.push({ path: 'type', message: `must be one of ${REQUEST_TYPES.join(', ')}` });
    const how = spec.relatedHow ?? 'FREE';
    if (!RELATED_HOWS.includes(how))
      errors.push({ path: 'relatedHow', message: `must be one of ${RELATED_HOWS.join(', ')}` });
    let parent: CoormRequest | undefined;
    if (how !== 'FREE') {
      parent = spec.relatedTo === undefined ? undefined : this.requests.get(spec.relatedTo);
      if (spec.relatedTo === undefined) errors.push({ path: 'relatedTo', message: `required with relatedHow ${how}` });
      else if (parent === undefined || parent.session !== session || parent.removed) {
        errors.push({ path: 'relatedTo', message: `no live request ${spec.relatedTo} in session ${session}` });
        parent = undefined;
      } else if (how === 'NEXT' && parent.cid !== spec.cid) {
        // Decision: NEXT shares node IDs with its predecessor, so both must be on the same cluster.
        errors.push({ path: 'cid', message: `a NEXT request must be on its predecessor's cluster '${parent.cid}'` });
      } else if (how === 'NEXT' && parent.type !== spec.type) {
        errors.push({ path: 'type', message: `a NEXT request must have its predecessor's type ${parent.type}` });
      }
    }
    let insidePA = false;
    if (errors.length === 0) {
      const asked = { cid: spec.cid, n: spec.n, duration: spec.duration, type: spec.type, how, parent };
      if (spec.type === 'NP' && s.pa.some((r) => r.cid === spec.cid && !this.hasEnded(r, now))) {
        // Decision: an NP request is served from the application's pre-allocations on its cluster if it has any
        // (growth there is guaranteed), so it must fit inside them; otherwise it is wrapped in an implicit
        // pre-allocation of its own size.
        insidePA = true;
        errors.push(...checkInside(s, asked, now));
      } else if (spec.type === 'PA') {
        // Decision: a pre-allocation whose start is already fixed (resizing a started one) that does not fit beside
        // what the others hold or were promised is refused, rather than delayed while its application relies on it.
        errors.push(...checkFixedPreallocation(this.sessions.values(), s, asked, nodes!, now));
      }
    }
    if (errors.length > 0) return fail(errors);
    const r = makeRequest({
      id: this.nextRequestId++,
      session,
      cid: spec.cid,
      n: spec.n,
      duration: spec.duration,
      type: spec.type,
      relatedHow: how,
      parent,
    });
    r.insidePA = insidePA;
    this.requests.set(r.id, r);
    this.setOf(s, r.type).push(r);
    this.messagesProcessed++;
    this.touch(now);
    return ok(r.id);
  }

  /**
   * Ends a request now (a request that has not started is withdrawn). For a request with a NEXT successor,
   * `releasedNodeIds` names the node IDs the application gives back; the successor keeps the others.
   */
  done(session: number, request: number, now: number, releasedNodeIds?: readonly number[]): Result<void> {
    const s = this.sessions.get(session);
    if (s === undefined) return fieldError('session', `no open session ${session}`);
    const r = this.requests.get(request);
    // Decision: a done() that crossed its request's expiry (both at one instant, or the message late) has nothing
    // left to end; it is taken as said, so an application is never failed for a race it cannot see.
    if (r === undefined && s.expired.has(request)) {
      this.messagesProcessed++;
      return ok(undefined);
    }
    if (r === undefined || r.session !== session || r.removed)
      return fieldError('request', `no live request ${request} in session ${session}`);
    if (releasedNodeIds !== undefined) {
      const held = new Set(r.nodeIds);
      const bad = releasedNodeIds.find((id) => !held.has(id));
      if (bad !== undefined) return fieldError('releasedNodeIds', `node ${bad} is not held by request ${request}`);
    }
    this.settle(r, now);
    if (!started(r)) {
      this.drop(s, r);
    } else {
      // A second done() before the pass sweeps the request out must not lengthen it again.
      r.duration = Math.min(r.duration, elapsed(r.startedAt, now));
      if (releasedNodeIds !== undefined) r.releasedIds = [...releasedNodeIds];
    }
    this.messagesProcessed++;
    this.touch(now);
    return ok(undefined);
  }

  /** Ends the session: its requests end now and their nodes are freed at once. */
  disconnect(session: number, now: number): void {
    const s = this.sessions.get(session);
    if (s === undefined) return;
    this.endSession(s);
    this.touch(now);
  }

  // ---- driving ------------------------------------------------------------------------------------------

  /** Earliest time advance() has something to do; Infinity when nothing is pending. */
  nextWakeup(): number {
    // Decision: the interval limits passes caused by messages; timed events (a start, an end) get a pass at their
    // own time, so NEXT chains and announced updates happen exactly when due.
    const coalesced =
      this.dirtySince === Infinity ? Infinity : Math.max(this.dirtySince, this.lastPassAt + this.reschedulingIntervalS);
    return Math.min(coalesced, this.timedWakeup);
  }

  /** Runs the pass due at `now`, if any, and returns the messages to deliver. */
  advance(now: number): RmsMessage[] {
    if (now < this.nextWakeup()) return [];
    return this.pass(Math.max(now, this.lastPassAt));
  }

  // ---- inspection ---------------------------------------------------------------------------------------

  requestSnapshot(id: number): RequestSnapshot | undefined {
    const r = this.requests.get(id);
    return r === undefined ? undefined : snapshot(r);
  }

  sessionSnapshot(id: number): SessionSnapshot | undefined {
    const s = this.sessions.get(id);
    if (s === undefined) return undefined;
    return {
      id,
      requests: [...s.pa, ...s.np, ...s.p].sort((a, b) => a.id - b.id).map(snapshot),
      nonPreemptive: s.lastNonPreemptive,
      preemptive: s.lastPreemptive,
    };
  }

  sessionIds(): number[] {
    return [...this.sessions.keys()];
  }

  /** Node IDs not held by any request. */
  freeNodeIds(cid: string): number[] {
    return this.pools.get(cid)?.list() ?? [];
  }

  /** Views and resources computed by the last pass (undefined before the first). */
  lastPass(): PassResult | undefined {
    return this.lastResult;
  }

  // ---- the pass -------------------------------------------------------------------------------------------

  private pass(now: number): RmsMessage[] {
    this.passes++;
    const messages: RmsMessage[] = [];
    let order = [...this.sessions.values()];
    for (const s of order) {
      this.reclassify(s, now);
      this.holdClockWhileWaiting(s, now);
    }
    const apps: readonly Session[] = order;
    const result = schedulePass(this.clusters, apps, now, { sharing: this.preemptibleSharing });
    this.lastResult = result;

    // Start what is due (Algorithm 4 lines 13-14).
    const newlyStarted: CoormRequest[] = [];
    for (const s of order) {
      for (let k = 0; k < 3; k++) {
        const set = k === 0 ? s.pa : k === 1 ? s.np : s.p;
        for (const r of set) {
          if (started(r) || !(r.scheduledAt <= now)) continue;
          if (r.type === 'P' && r.nAlloc < 1) continue;
          // Decision: a fixed NEXT successor starts exactly at its predecessor's end, even if this pass runs
          // later (it goes on with the kept node IDs); anything else starts now.
          r.startedAt = r.fixed && r.relatedHow === 'NEXT' ? r.scheduledAt : now;
          r.awaitingIds = r.type !== 'PA';
          newlyStarted.push(r);
          if (r.type === 'PA') messages.push({ type: 'started', session: s.id, request: r.id, nodeIds: [] });
        }
      }
    }
    // NEXT successors take over their predecessor's node IDs (minus those released).
    for (const r of newlyStarted) {
      const p = r.parent;
      if (r.relatedHow !== 'NEXT' || p === undefined || r.type === 'PA' || !started(p)) continue;
      const released = new Set(p.releasedIds ?? []);
      const kept = p.nodeIds.filter((id) => !released.has(id));
      const target = r.type === 'P' ? r.nAlloc : r.n;
      // Decision: when the application did not say which IDs to release, the successor keeps the first ones.
      r.nodeIds = kept.slice(0, target);
      const moved = new Set(r.nodeIds);
      p.nodeIds = p.nodeIds.filter((id) => !moved.has(id));
    }
    // Requests whose time is over give their nodes back and leave their sets.
    for (const s of order) {
      for (let k = 0; k < 3; k++) {
        const set = k === 0 ? s.pa : k === 1 ? s.np : s.p;
        let w = 0;
        for (const r of set) {
          if (this.hasEnded(r, now)) {
            s.expired.add(r.id);
            this.release(r);
          } else set[w++] = r;
        }
        set.length = w;
      }
    }
    // Violations are judged after ended requests gave their nodes back, so an application that released in time
    // (done() plus a smaller successor) is not counted twice; a killed one's nodes go to those waiting right away.
    if (this.killViolators(now, messages)) order = order.filter((s) => this.sessions.has(s.id));
    this.assignNodeIds(order, messages);
    pushChangedViews(apps, result, now, messages, (id) => this.sessions.has(id));
    this.detectViolations(order, now);
    this.lastPassAt = now;
    if (this.dirtySince <= now && !messages.some((m) => m.type === 'killed')) this.dirtySince = Infinity;
    this.timedWakeup = this.computeTimedWakeup(order, now);
    return messages;
  }

  /**
   * A NEXT successor whose predecessor has already ended has logically started at that end, even if no pass has
   * run since: done() on it must shorten it, not withdraw it (fast updates chain through it). Decision: it takes
   * over its predecessor's node IDs then and there, as the pass would have.
   */
  private settle(r: CoormRequest, now: number): void {
    const p = r.parent;
    if (started(r) || r.relatedHow !== 'NEXT' || p === undefined || p.removed || p.type !== r.type) return;
    this.settle(p, now);
    if (!started(p) || !(p.startedAt + p.duration <= now)) return;
    r.startedAt = p.startedAt + p.duration;
    r.scheduledAt = r.startedAt;
    if (r.type === 'PA') return;
    r.awaitingIds = true;
    const released = new Set(p.releasedIds ?? []);
    r.nodeIds = p.nodeIds.filter((id) => !released.has(id)).slice(0, r.n);
    const moved = new Set(r.nodeIds);
    p.nodeIds = p.nodeIds.filter((id) => !moved.has(id));
  }

  /**
   * Decision: a started request that holds no node ID yet (it waits for others to release) has not begun its
   * allocation: its time runs from when its nodes arrive, so a wait never eats its duration, and its view occupation
   * stays ahead of it. A NEXT successor keeps its chain's timing (it starts exactly at its predecessor's end).
   */
  private holdClockWhileWaiting(s: Session, now: number): void {
    for (const set of [s.np, s.p]) {
      for (const r of set) {
        if (r.awaitingIds && r.nodeIds.length === 0 && r.startedAt < now && r.relatedHow !== 'NEXT') {
          r.startedAt = now;
          // Moved together: a started request's schedule is its start, for any reader before the pass's toView.
          r.scheduledAt = now;
        }
      }
    }
  }

  private hasEnded(r: CoormRequest, now: number): boolean {
    return started(r) && r.startedAt + r.duration <= now;
  }

  /**
   * An NP request whose application no longer pre-allocates on its cluster is wrapped in an implicit one (a waiting
   * one then queues by backfilling instead of waiting for a pre-allocation that will not come). A pre-allocation not
   * started yet still counts: the requests waiting inside it start with it, and what running ones hold beyond the
   * started pre-allocations is counted by the pass as their application's own.
   */
  private reclassify(s: Session, now: number): void {
    for (const r of s.np) {
      if (!r.insidePA) continue;
      if (!s.pa.some((pa) => pa.cid === r.cid && !this.hasEnded(pa, now))) r.insidePA = false;
    }
  }

  /** Hands free node IDs to started requests still waiting for them: non-preemptible ones first. */
  private assignNodeIds(order: readonly Session[], messages: RmsMessage[]): void {
    const blocked = new Set<string>();
    for (const type of ['NP', 'P'] as const) {
      for (const s of order) {
        const set = type === 'NP' ? s.np : s.p;
        for (const r of set) {
          if (!r.awaitingIds) continue;
          const target = type === 'NP' ? r.n : r.nAlloc;
          if (target < 1) continue;
          const need = target - r.nodeIds.length;
          const pool = this.pools.get(r.cid)!;
          if (need > 0 && (pool.size < need || (type === 'P' && blocked.has(r.cid)))) {
            // Decision: while a non-preemptible start waits for nodes, no preemptible request takes free ones there.
            if (type === 'NP') blocked.add(r.cid);
            continue;
          }
          if (need > 0) for (const id of pool.take(need)) r.nodeIds.push(id);
          r.awaitingIds = false;
          messages.push({ type: 'started', session: s.id, request: r.id, nodeIds: [...r.nodeIds] });
        }
      }
    }
  }

  private detectViolations(order: readonly Session[], now: number): void {
    for (const s of order) {
      if (!this.sessions.has(s.id)) continue;
      s.violatingSince =
        findViolation(s.p, s.lastPreemptive, now) === undefined ? undefined : (s.violatingSince ?? now);
    }
  }

  private killViolators(now: number, messages: RmsMessage[]): boolean {
    let killed = false;
    for (const s of [...this.sessions.values()]) {
      if (s.violatingSince === undefined || now < s.violatingSince + this.violationGraceS) continue;
      const v = findViolation(s.p, s.lastPreemptive, now);
      if (v === undefined) {
        s.violatingSince = undefined;
        continue;
      }
      this.endSession(s);
      killed = true;
      messages.push({
        type: 'killed',
        session: s.id,
        reason: `held ${v.held} preemptible nodes on '${v.cid}' where its view allowed ${v.allowed} since t=${s.violatingSince}`,
      });
    }
    // The views of this pass still counted the killed; the next pass gives their share to the others.
    if (killed) this.dirtySince = now;
    return killed;
  }

  private computeTimedWakeup(order: readonly Session[], now: number): number {
    let next = Infinity;
    const consider = (t: number) => {
      if (t > now && t < next) next = t;
    };
    for (const s of order) {
      for (let k = 0; k < 3; k++) {
        const set = k === 0 ? s.pa : k === 1 ? s.np : s.p;
        for (const r of set) {
          if (started(r)) consider(r.startedAt + r.duration);
          else consider(r.scheduledAt);
        }
      }
      if (s.violatingSince !== undefined)
        consider(Math.max(s.violatingSince + this.violationGraceS, now + Number.EPSILON * Math.max(1, Math.abs(now))));
      consider(nextViewDrop(s.p, s.lastPreemptive, now));
    }
    return next;
  }

  // ---- bookkeeping ------------------------------------------------------------------------------------

  private touch(now: number): void {
    if (now < this.dirtySince) this.dirtySince = now;
  }

  private setOf(s: Session, type: CoormRequest['type']): CoormRequest[] {
    return type === 'PA' ? s.pa : type === 'NP' ? s.np : s.p;
  }

  /** Withdraws a request at once (not started, or its session ends). */
  private drop(s: Session, r: CoormRequest): void {
    const set = this.setOf(s, r.type);
    const i = set.indexOf(r);
    if (i >= 0) set.splice(i, 1);
    this.release(r);
  }

  private release(r: CoormRequest): void {
    const pool = this.pools.get(r.cid)!;
    for (const id of r.nodeIds) pool.give(id);
    r.nodeIds = [];
    r.awaitingIds = false;
    detach(r);
    this.requests.delete(r.id);
  }

  private endSession(s: Session): void {
    for (const r of [...s.pa, ...s.np, ...s.p]) this.release(r);
    s.pa.length = 0;
    s.np.length = 0;
    s.p.length = 0;
    this.sessions.delete(s.id);
  }
}
