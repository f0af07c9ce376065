// eqSchedule (appendix A, Algorithm 3): equi-partitions the resources left for preemptible requests between the
// applications, lets each fill what the others leave unused (unless sharing is strict), and schedules the
// preemptible requests in the result.
import { StepRecorder, type StepFunction } from '../time/step-function.js';
import { fit } from './fit.js';
import type { RequestSet } from './requests.js';
import { toView } from './to-view.js';
import { difference, emptyView, profile, sum } from './views.js';
import type { PreemptibleSharing, View } from './types.js';

/**
 * One piece-wise constant interval: `vin` nodes, `need[k]` requested by the k-th application taking part on this
 * cluster, `apps` applications in the system (those not in `need` request nothing); writes each application's view
 * to `out[k]` and returns the view of an application that requests nothing here.
 */
export function shareInterval(
  vin: number,
  need: ArrayLike<number>,
  out: Float64Array | number[],
  apps: number = need.length,
  sharing: PreemptibleSharing = 'fill',
): number {
  const m = need.length;
  if (vin < 0) vin = 0;
  let total = 0;
  let active = 0;
  for (let k = 0; k < m; k++) {
    if (need[k]! > 0) {
      total += need[k]!;
      active++;
    }
  }
  if (sharing === 'strict') {
    // No filling, congested or not: each application is offered its equal partition, an application requesting
    // nothing counting itself as one more (the partitions of line 22-23). Decision: the partitions are the
    // applications requesting preemptible resources here, not all applications (most never ask for any).
    const idle = Math.floor(vin / (active + 1));
    for (let k = 0; k < m; k++) out[k] = need[k]! > 0 ? Math.floor(vin / active) : idle;
    return idle;
  }
  if (total <= vin) {
    // Uncongested (lines 19-25): what the others leave, but never less than the equi-partition, which for an
    // application requesting nothing counts it as one more partition (as if it became active).
    // Algorithm 3 line 25 reads max(v_in, v_eq): the evident intent is max(v^(i), v_eq).
    const idle = Math.max(vin - total, Math.floor(vin / (active + 1)));
    for (let k = 0; k < m; k++) {
      const r = need[k]!;
      out[k] = r > 0 ? Math.max(vin - total + r, Math.floor(vin / active)) : idle;
    }
    return idle;
  }
  // Congested (lines 8-18): rounds of equal shares until nothing is left. A round serves every application whose
  // remaining request r is >= 0 (line 14), so applications requesting nothing (r = 0) take part in the first round:
  // line 12 counts a partition for them and they are offered it (their view is v_eq, as if they became active).
  // After that their r is negative; later rounds share among those still wanting more (plus one partition for any
  // that was exactly satisfied, r = 0, which is offered one more share).
  const left = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    left[k] = need[k]! > 0 ? need[k]! : 0;
    out[k] = 0;
  }
  let idle = 0;
  let idleOpen = active < apps;
  let remaining = vin;
  for (;;) {
    let wanting = 0;
    let satisfied = idleOpen;
    for (let k = 0; k < m; k++) {
      if (left[k]! > 0) wanting++;
      else if (left[k] === 0) satisfied = true;
    }
    // Algorithm 3 line 10 reads r >= 0 for "some application takes part in a round".
    if (!(remaining > 0) || (wanting === 0 && !satisfied)) break;
    const share = Math.max(Math.floor(remaining / (wanting + (satisfied ? 1 : 0))), 1);
    // Decision: applications requesting nothing are all offered the round's share, wherever their connection order
    // puts them (line 18 would deny it to those after the round's last node when fewer nodes than partitions are left).
    if (idleOpen) {
      idle = share;
      idleOpen = false;
    }
    for (let k = 0; k < m && remaining > 0; k++) {
      if (left[k]! < 0) continue;
      remaining -= Math.min(left[k]!, share);
      left[k]! -= share;
      out[k]! += share;
    }
  }
  for (let k = 0; k < m; k++) if (out[k]! > vin) out[k] = vin;
  return Math.min(idle, vin);
}

/**
 * Preemptive views of all applications (in connection order) for the preemptible resources `available`, and
 * scheduledAt/nAlloc of their preemptible requests. Applications without preemptible requests share one view.
 */
export function eqSchedule(
  sets: readonly RequestSet[],
  available: View,
  t0: number,
  sharing: PreemptibleSharing = 'fill',
): View[] {
  const occupied: View[] = sets.map((set) => {
    if (set.length === 0) return emptyView;
    // Decision: what an application asks for is the size of its fixed requests, not their nAlloc against `available`:
    // alloc() takes the least over a request's whole future, so a dip ahead (a later reservation) would make a
    // started open-ended request count as asking for nothing now, and nobody would be told to release.
    const fixedView = toView(set, t0);
    // Algorithm 3 line 3 subtracts fit(): the evident intent is fixed plus fitted occupation.
    return sum(fixedView, fit(set, difference(available, fixedView), t0));
  });
  const idleView = new Map<string, StepFunction>();
  const own: Array<Map<string, StepFunction> | undefined> = sets.map(() => undefined);
  // An application whose occupation fits under its view everywhere keeps the schedule fit() gave it in the
  // available resources (its view is smaller, but not where it has requests): no need to schedule it again.
  const squeezed: boolean[] = sets.map(() => false);
  for (const [cid, vinProfile] of available) {
    const members: number[] = [];
    for (let i = 0; i < sets.length; i++) {
      const f = occupied[i]!.get(cid);
      if (f !== undefined && (f.breakpoints > 0 || f.initial !== 0)) members.push(i);
    }
    const profiles = [vinProfile, ...members.map((i) => profile(occupied[i]!, cid))];
    const { views: outs, squeezed: under } = shareProfiles(profiles, sets.length, sharing);
    idleView.set(cid, outs[0]!);
    members.forEach((i, k) => {
      own[i] ??= new Map();
      own[i]!.set(cid, outs[k + 1]!);
      if (under[k]) squeezed[i] = true;
    });
  }
  return sets.map((set, i) => {
    const mine = own[i];
    if (mine === undefined) return idleView;
    for (const [cid, f] of idleView) if (!mine.has(cid)) mine.set(cid, f);
    if (!squeezed[i]) return mine;
    // Reschedule the requests in the computed view, so that scheduledAt and nAlloc are right.
    // Algorithm 3 line 30 subtracts fit() as line 3 does; only the side effects on requests matter here.
    const fixedView = toView(set, t0, { available: mine });
    fit(set, difference(mine, fixedView), t0);
    return mine;
  });
}

/**
 * profiles[0] is the available profile, the others the applications' requested profiles; returns the idle view
 * followed by each application's view, evaluated on every interval where all inputs are constant, and for each
 * application whether its view is somewhere below what it requests.
 */
function shareProfiles(
  profiles: readonly StepFunction[],
  apps: number,
  sharing: PreemptibleSharing,
): { views: StepFunction[]; squeezed: boolean[] } {
  const q = profiles.length;
  const m = q - 1;
  const times: number[] = [];
  for (const f of profiles) for (const t of f.times) times.push(t);
  times.sort((a, b) => a - b);
  const idx = new Int32Array(q);
  const cur = new Float64Array(q);
  for (let j = 0; j < q; j++) cur[j] = profiles[j]!.initial;
  const need = new Float64Array(m);
  const out = new Float64Array(m);

  const squeezed: boolean[] = new Array<boolean>(m).fill(false);
  const evaluate = (): number => {
    for (let k = 0; k < m; k++) need[k] = cur[k + 1]!;
    const idle = shareInterval(cur[0]!, need, out, apps, sharing);
    for (let k = 0; k < m; k++) if (out[k]! < need[k]!) squeezed[k] = true;
    return idle;
  };
  const recorders: StepRecorder[] = [new StepRecorder(evaluate())];
  for (let k = 0; k < m; k++) recorders.push(new StepRecorder(out[k]!));
  for (let n = 0; n < times.length;) {
    const t = times[n]!;
    while (n < times.length && times[n] === t) n++;
    for (let j = 0; j < q; j++) {
      const f = profiles[j]!;
      const ts = f.times;
      let i = idx[j]!;
      while (i < ts.length && ts[i]! <= t) cur[j] = f.values[i++]!;
      idx[j] = i;
    }
    const idle = evaluate();
    for (let j = 0; j < q; j++) {
      const v = j === 0 ? idle : out[j - 1]!;
      const rec = recorders[j]!;
      if (v !== rec.current) rec.set(t, v);
    }
  }
  return { views: recorders.map((r) => r.toStepFunction()), squeezed };
}
