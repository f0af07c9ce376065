// What the console says about the run's state (grid.snapshot's `run`) and about a simulation that cannot keep up
// with its speed (`behindS`).
import type { RunStatus, Speed } from './api/types.js';
import { hms } from './format.js';

export interface RunNotice {
  type: 'info' | 'warning' | 'error';
  title: string;
  /** Why, in the host's words (none while resuming). */
  reason: string;
  /** Percent replayed, while resuming. */
  progress?: number;
  /** Whether "Open read-only" applies (resuming, or not resumable). */
  canOpenReadOnly: boolean;
}

/** Percent of the stored events replayed; 99 at most until the host says the run is resumed (as its refusals do). */
export function replayedPercent(run: Extract<RunStatus, { state: 'resuming' }>): number {
  return run.storedEvents > 0 ? Math.min(99, Math.floor((100 * run.replayedEvents) / run.storedEvents)) : 0;
}

/** The banner for a run that is not simply running; none when it is. */
export function runNotice(run: RunStatus): RunNotice | undefined {
  switch (run.state) {
    case 'running':
      return undefined;
    case 'resuming': {
      const progress = replayedPercent(run);
      return {
        type: 'info',
        title: `Resuming the stored run: ${progress} % replayed`,
        reason: '',
        progress,
        canOpenReadOnly: true,
      };
    }
    case 'unresumable':
      return { type: 'error', title: 'The stored run cannot be resumed', reason: run.reason, canOpenReadOnly: true };
    case 'read-only':
      return {
        type: 'warning',
        title: 'The run is open read-only: nothing changes it',
        reason: run.reason,
        canOpenReadOnly: false,
      };
  }
}

const SPEED_FACTOR: Partial<Record<Speed, number>> = { '1x': 1, '10x': 10, '100x': 100 };

/**
 * What the speed control says when the simulation falls behind its speed; '' when it keeps up. Decision: less than one
 * wall second behind at the chosen speed is a tick's jitter, not a grid that cannot keep up, and is not shown.
 */
export function behindText(behindS: number, speed: Speed): string {
  const factor = SPEED_FACTOR[speed];
  if (factor === undefined || behindS < factor) return '';
  return `behind by ${hms(behindS)} — the grid cannot keep up with ${factor}×`;
}
