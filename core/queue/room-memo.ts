// The room growth has on a cluster beside its reservations (PlannedPass.reservedRoom), remembered with what it was
// computed from, so that a poll that changed none of it reads the room again without building a plan: where
// reservations block growth, every idle poll made growth due and the pass that followed built the plan again (issue
// 16). The room is read again only where the answer cannot differ: equal inputs, and no time in the plan's free
// processors where they change passed since (what is free from now on is the same step function, read from a later
// start that is still on the same step).
import type { GrowthRoom } from '../scheduler/growth.js';

/** What a cluster's reserved room is computed from besides now, as one exact text (numbers print exactly). */
export type RoomInputs = string;

interface Remembered {
  readonly inputs: RoomInputs;
  /** When it was computed, and the plan's first change of free processors after that. */
  readonly at: number;
  readonly until: number;
  readonly room: GrowthRoom;
}

export class RoomMemo {
  private readonly byCluster: Array<Remembered | undefined> = [];

  /** Cluster i's room remembered from `inputs`, when still valid at `now`; undefined: compute it. */
  get(i: number, now: number, inputs: RoomInputs): GrowthRoom | undefined {
    const r = this.byCluster[i];
    if (r === undefined || r.inputs !== inputs) return undefined;
    // Decision: from a later time on the same step of the plan's free processors, the least free over any window
    // ending where the old one did is the same (nothing in the plan moves by itself: the inputs say so).
    return now >= r.at && now < r.until ? r.room : undefined;
  }

  /**
   * Remembers cluster i's room computed at `now` from `inputs`; `until`: the first time after now where the free
   * processors of a plan it was read from change (firstAfter).
   */
  set(i: number, now: number, inputs: RoomInputs, until: number, room: GrowthRoom): void {
    this.byCluster[i] = { inputs, at: now, until, room };
  }
}

/** The first of `times` (ascending) after now; Infinity when none is. */
export function firstAfter(times: readonly number[], now: number): number {
  for (const t of times) if (t > now) return t;
  return Number.POSITIVE_INFINITY;
}
