// Admission checks of request() beyond the paper (its A.6 leaves invalid updates unhandled): a request whose place is
// already decided, or that can only be served from pre-allocations, is checked against what the schedule holds
// between passes, and refused with an error naming the field instead of being accepted into a state the RMS
// cannot serve. Occupation follows the pass: an application occupies the larger of its pre-allocations and the
// non-preemptible requests inside them, plus its wrapped non-preemptible requests.
import type { FieldError } from '../model/result.js';
import { StepFunction } from '../time/step-function.js';
import { fitsAt, profileHole, profileOfRects } from '../time/profile.js';
import { pushRect } from './views.js';
import { started, type CoormRequest, type RelatedHow, type RequestType } from './types.js';

/** One application's live requests, as the admission checks read them. */
export interface AdmittedRequests {
  readonly pa: readonly CoormRequest[];
  readonly np: readonly CoormRequest[];
}

/** Start of a fixed request: started, or chained (NEXT/COALLOC, same type) to a fixed one. */
export function fixedStart(r: CoormRequest, now: number): number | undefined {
  if (started(r)) return r.startedAt;
  const p = r.parent;
  if (p === undefined || p.type !== r.type || (p.removed && !started(p))) return undefined;
  const ps = fixedStart(p, now);
  if (ps === undefined) return undefined;
  return r.relatedHow === 'NEXT' ? ps + p.duration : Math.max(ps, now);
}

/** Where the schedule has r between passes: its fixed start, else where the last pass placed it (undefined: nowhere). */
function knownStart(r: CoormRequest, now: number): number | undefined {
  return fixedStart(r, now) ?? (r.scheduledAt < Infinity ? r.scheduledAt : undefined);
}

/**
 * Where a chain being extended starts, and ends, when it is extended now. Decision: a new request chained after a
 * running one is taken to start now, as in an update (requests, then done() on the running one at once); a chain
 * that instead waits for the running request's own end, and no longer fits then, is delayed by the pass.
 */
function chainStart(r: CoormRequest, now: number): number | undefined {
  if (started(r)) return r.startedAt;
  const p = r.parent;
  if (p === undefined || p.type !== r.type || (p.removed && !started(p))) return undefined;
  if (r.relatedHow === 'NEXT') return chainEnd(p, now);
  const ps = chainStart(p, now);
  return ps === undefined ? undefined : Math.max(ps, now);
}

function chainEnd(r: CoormRequest, now: number): number | undefined {
  const start = started(r) ? r.startedAt : chainStart(r, now);
  if (start === undefined) return undefined;
  const end = start + r.duration;
  // Under way (started, or logically since its predecessor's end): extending the chain ends it now, unless it has ended.
  return started(r) || start < now ? Math.min(end, now) : end;
}

/** The start a new request is fixed at, if its constraint fixes it (see chainStart). */
export function prospectiveStart(
  type: RequestType,
  how: RelatedHow,
  parent: CoormRequest | undefined,
  now: number,
): number | undefined {
  if (how === 'FREE' || parent === undefined || parent.type !== type) return undefined;
  const start = how === 'NEXT' ? chainEnd(parent, now) : started(parent) ? now : chainStart(parent, now);
  // After an open-ended predecessor that has not started, it has no time yet.
  return start !== undefined && start < Infinity ? Math.max(start, now) : undefined;
}

/** The new request's NEXT predecessors: they end where it starts, so they never count beside it. */
function predecessors(how: RelatedHow, parent: CoormRequest | undefined): Set<CoormRequest> {
  const out = new Set<CoormRequest>();
  for (
    let p = how === 'NEXT' ? parent : undefined;
    p !== undefined;
    p = p.relatedHow === 'NEXT' && p.parent?.type === p.type ? p.parent : undefined
  ) {
    out.add(p);
  }
  return out;
}

/** Occupation profile on `cid` from `now` of the requests at their known places; `unplaced` places the others at now. */
function occupation(
  requests: Iterable<CoormRequest>,
  cid: string,
  now: number,
  skip: ReadonlySet<CoormRequest>,
  unplaced: boolean,
): StepFunction {
  const rects = new Map<string, number[]>();
  for (const r of requests) {
    if (r.cid !== cid || r.removed || skip.has(r)) continue;
    const t = knownStart(r, now) ?? (unplaced ? now : undefined);
    if (t !== undefined) pushRect(rects, cid, t, t + r.duration, r.n, now);
  }
  return profileOfRects(rects.get(cid) ?? []);
}

const isInside = (r: CoormRequest): boolean => r.insidePA;

export interface NewRequest {
  cid: string;
  n: number;
  duration: number;
  type: RequestType;
  how: RelatedHow;
  parent: CoormRequest | undefined;
}

/**
 * A non-preemptible request served from its application's pre-allocations on its cluster must fit inside them,
 * beside the application's other requests there: at its fixed place if it has one, otherwise somewhere from now on.
 * Decision: a pre-allocation the pass has not placed yet counts from now, as if it started at once.
 */
export function checkInside(app: AdmittedRequests, spec: NewRequest, now: number): FieldError[] {
  const skip = predecessors(spec.how, spec.parent);
  const pre = occupation(app.pa, spec.cid, now, skip, true);
  const inside = occupation(app.np.filter(isInside), spec.cid, now, skip, false);
  const room = pre.minus(inside);
  const start = prospectiveStart(spec.type, spec.how, spec.parent, now);
  if (start !== undefined) {
    if (fitsAt(room, start, spec.duration, spec.n)) return [];
    const least = room.minOver(start, start + spec.duration);
    return [
      {
        path: 'n',
        message: `${spec.n} nodes outgrow the pre-allocation on '${spec.cid}' from t=${start}: ${Math.max(0, least)} are left in it beside the application's other requests`,
      },
    ];
  }
  if (profileHole(room, spec.n, spec.duration, now) < Infinity) return [];
  const most = Math.max(0, room.maxOver(now, Infinity));
  if (most >= spec.n) {
    return [
      {
        path: 'duration',
        message: `${spec.duration} s outlast every stretch of the pre-allocation on '${spec.cid}' with ${spec.n} nodes left in it`,
      },
    ];
  }
  return [
    {
      path: 'n',
      message: `${spec.n} nodes outgrow the pre-allocation on '${spec.cid}': at most ${most} are left in it beside the application's other requests`,
    },
  ];
}

/**
 * A pre-allocation whose start is already fixed (a resize of a started one, or one chained to it) must fit beside what
 * every application holds or was promised on its cluster, reservations of conservative backfilling included.
 * Decision: requests the pass has not placed yet do not count: they queue behind it, as behind a started one.
 */
export function checkFixedPreallocation(
  apps: Iterable<AdmittedRequests>,
  self: AdmittedRequests,
  spec: NewRequest,
  nodes: number,
  now: number,
): FieldError[] {
  const start = prospectiveStart(spec.type, spec.how, spec.parent, now);
  if (start === undefined) return [];
  const end = start + spec.duration;
  const skip = predecessors(spec.how, spec.parent);
  const footprints: StepFunction[] = [];
  for (const app of apps) {
    let pre = occupation(app.pa, spec.cid, now, skip, false);
    if (app === self) pre = pre.addInterval(start, end, spec.n);
    const inside = occupation(app.np.filter(isInside), spec.cid, now, skip, false);
    const wrapped = occupation(
      app.np.filter((r) => !isInside(r)),
      spec.cid,
      now,
      skip,
      false,
    );
    footprints.push(pre.pointwiseMax(inside).plus(wrapped));
  }
  const over = StepFunction.sum(footprints).maxOver(start, end) - nodes;
  if (over <= 0) return [];
  return [
    {
      path: 'n',
      message: `a pre-allocation of ${spec.n} nodes does not fit on '${spec.cid}' from t=${start}: ${Math.max(0, spec.n - over)} are free there`,
    },
  ];
}
