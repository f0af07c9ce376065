// Which world serves the host's run: the simulated one, a stored live run reconnecting (or failed to), or a live
// run. One state value; its allowed transitions are listed here and nowhere else, and a forbidden one throws.
import type { LiveWorld } from '../../runners/live/types.js';

export type HostMode =
  /** The simulated world is the run (also the idle world under a stored run that is not resumed). */
  | { readonly kind: 'simulating' }
  /** A stored live run's world is starting (reconnecting, recovering its jobs): commands are refused meanwhile. */
  | { readonly kind: 'resuming-live'; readonly world: LiveWorld }
  /** A stored live run could not be resumed: commands are refused with `reason` until another run starts. */
  | { readonly kind: 'resume-failed'; readonly reason: string }
  /** A live world is the run. `resumed`: taken over from the store, so its jobs' earlier sizes are stored, not held. */
  | { readonly kind: 'live'; readonly world: LiveWorld; readonly resumed: boolean };

export type HostModeKind = HostMode['kind'];

/**
 * The transitions a host may make. A live run starts from the simulated world (run.startLive); a stored one is
 * resumed from it at start; whatever the mode, a new run (sim.reset, run.startLive) or the host's stop goes back to
 * the simulated world first.
 */
const ALLOWED: Readonly<Record<HostModeKind, readonly HostModeKind[]>> = {
  simulating: ['live', 'resuming-live', 'resume-failed'],
  'resuming-live': ['live', 'resume-failed', 'simulating'],
  'resume-failed': ['simulating'],
  live: ['simulating'],
};

/** A transition the host does not make (a bug in the host, never the user's input). */
export class ModeTransitionError extends Error {
  constructor(
    readonly from: HostModeKind,
    readonly to: HostModeKind,
  ) {
    super(`the host cannot go from ${from} to ${to} (allowed from ${from}: ${ALLOWED[from].join(', ') || 'none'})`);
    this.name = 'ModeTransitionError';
  }
}

function canTransition(from: HostModeKind, to: HostModeKind): boolean {
  return ALLOWED[from].includes(to);
}

/** The host's mode, changed only through `to`. */
export class HostModeMachine {
  #mode: HostMode = { kind: 'simulating' };

  get current(): HostMode {
    return this.#mode;
  }

  /** The live world serving the run, when one does (not one still resuming). */
  get liveWorld(): LiveWorld | undefined {
    return this.#mode.kind === 'live' ? this.#mode.world : undefined;
  }

  /** A stored live run is being resumed, or could not be: the run has no scheduler to command. */
  get resuming(): boolean {
    return this.#mode.kind === 'resuming-live' || this.#mode.kind === 'resume-failed';
  }

  /** A live run is the run, or is being resumed (or could not be): the speed is fixed, commands go to no simulation. */
  get isLive(): boolean {
    return this.#mode.kind !== 'simulating';
  }

  to(next: HostMode): void {
    if (!canTransition(this.#mode.kind, next.kind)) throw new ModeTransitionError(this.#mode.kind, next.kind);
    this.#mode = next;
  }
}
