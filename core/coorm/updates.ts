// High-level operations of section 3.1.3, built only from request() and done().
import { fail, ok, type Result } from '../model/result.js';
import type { CoormRms } from './rms.js';

function remaining(duration: number, startedAt: number, now: number): number {
  if (duration === Infinity) return Infinity;
  return startedAt === startedAt ? startedAt + duration - now : duration;
}

/**
 * Spontaneous update: a request with the new node count, then done() on the current one. Decision: the new
 * request is NEXT-constrained to the current one, so it starts the moment the current one ends and keeps its node
 * IDs (a shrink releases the highest ones). Returns the new request's id.
 */
export function spontaneousUpdate(
  rms: CoormRms,
  session: number,
  request: number,
  newN: number,
  now: number,
): Result<number> {
  const current = rms.requestSnapshot(request);
  if (current === undefined || current.session !== session)
    return fail([{ path: 'request', message: `no live request ${request} in session ${session}` }]);
  const left = remaining(current.duration, current.startedAt, now);
  if (!(left > 0)) return fail([{ path: 'request', message: `request ${request} has already ended` }]);
  const next = rms.request(
    session,
    { cid: current.cid, n: newN, duration: left, type: current.type, relatedHow: 'NEXT', relatedTo: request },
    now,
  );
  if (!next.ok) return next;
  const held = current.nodeIds;
  const released = newN < held.length ? [...held].sort((a, b) => a - b).slice(newN) : undefined;
  const closed = rms.done(session, request, now, released);
  if (!closed.ok) return closed;
  return ok(next.value);
}

/**
 * Announced update: a request keeping the current node count for `announceS` seconds, then one with the new node
 * count, then done() on the current one. Both are NEXT-chained, so the change takes effect exactly announceS
 * seconds from now and the others see it coming in their views.
 */
export function announcedUpdate(
  rms: CoormRms,
  session: number,
  request: number,
  newN: number,
  announceS: number,
  now: number,
): Result<{ bridge: number; next: number }> {
  const current = rms.requestSnapshot(request);
  if (current === undefined || current.session !== session)
    return fail([{ path: 'request', message: `no live request ${request} in session ${session}` }]);
  if (!(announceS > 0) || !Number.isFinite(announceS))
    return fail([{ path: 'announceS', message: 'must be a finite number of seconds > 0' }]);
  const left = remaining(current.duration, current.startedAt, now);
  if (!(left > announceS))
    return fail([{ path: 'announceS', message: `request ${request} ends within ${announceS} s` }]);
  const base = { cid: current.cid, type: current.type, relatedHow: 'NEXT' as const };
  const bridge = rms.request(session, { ...base, n: current.n, duration: announceS, relatedTo: request }, now);
  if (!bridge.ok) return bridge;
  const next = rms.request(session, { ...base, n: newN, duration: left - announceS, relatedTo: bridge.value }, now);
  if (!next.ok) {
    rms.done(session, bridge.value, now);
    return next;
  }
  const closed = rms.done(session, request, now);
  if (!closed.ok) return closed;
  return ok({ bridge: bridge.value, next: next.value });
}
