// Request sets (one per application and type) and their constraint trees (appendix A.2).
import type { CoormRequest, RelatedHow, RequestType } from './types.js';

/** A request set: the live requests of one application and one type, in submission order. */
export type RequestSet = readonly CoormRequest[];

/** Children of r that belong to the set. */
export function children(r: CoormRequest, members: ReadonlySet<CoormRequest>): CoormRequest[] {
  return r.children.filter((c) => members.has(c));
}

export interface NewRequest {
  id: number;
  session: number;
  cid: string;
  n: number;
  duration: number;
  type: RequestType;
  relatedHow: RelatedHow;
  parent: CoormRequest | undefined;
}

// A class rather than object literals: every request has one hidden class, so the hot loops stay monomorphic.
class Request implements CoormRequest {
  readonly children: CoormRequest[] = [];
  nAlloc: number;
  scheduledAt = Infinity;
  fixed = false;
  earliestScheduleAt = -Infinity;
  startedAt = NaN;
  nodeIds: number[] = [];
  releasedIds: number[] | undefined = undefined;
  awaitingIds = false;
  removed = false;
  insidePA = false;
  readonly id: number;
  readonly session: number;
  readonly cid: string;
  readonly n: number;
  duration: number;
  readonly type: RequestType;
  readonly relatedHow: RelatedHow;
  readonly parent: CoormRequest | undefined;

  constructor(spec: NewRequest) {
    this.id = spec.id;
    this.session = spec.session;
    this.cid = spec.cid;
    this.n = spec.n;
    this.duration = spec.duration;
    this.type = spec.type;
    this.relatedHow = spec.relatedHow;
    this.parent = spec.relatedHow === 'FREE' ? undefined : spec.parent;
    this.nAlloc = spec.n;
  }
}

/** A fresh, not yet scheduled request; registers it as a child of its parent when both share a set. */
export function makeRequest(spec: NewRequest): CoormRequest {
  const r = new Request(spec);
  if (r.parent !== undefined && r.parent.type === r.type) r.parent.children.push(r);
  return r;
}

/** Takes r out of its set: its children become roots. */
export function detach(r: CoormRequest): void {
  r.removed = true;
  const p = r.parent;
  if (p !== undefined) {
    const i = p.children.indexOf(r);
    if (i >= 0) p.children.splice(i, 1);
  }
}
