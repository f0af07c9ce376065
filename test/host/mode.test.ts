// The host's mode as one state value (electron/host/mode.ts): every allowed transition is made, every other one
// throws ModeTransitionError naming both ends and leaves the mode as it was.
import { describe, expect, it } from 'vitest';
import { HostModeMachine, ModeTransitionError, type HostMode, type HostModeKind } from '../../electron/host/mode.js';
import type { LiveWorld } from '../../runners/live/types.js';

const world = {} as LiveWorld;
const modes: Record<HostModeKind, HostMode> = {
  simulating: { kind: 'simulating' },
  'resuming-live': { kind: 'resuming-live', world },
  'resume-failed': { kind: 'resume-failed', reason: 'the live run could not resume: host key changed' },
  live: { kind: 'live', world, resumed: false },
};

/** How a fresh machine (simulating) reaches each mode through allowed transitions. */
const pathTo: Record<HostModeKind, HostModeKind[]> = {
  simulating: [],
  'resuming-live': ['resuming-live'],
  'resume-failed': ['resuming-live', 'resume-failed'],
  live: ['live'],
};

// A live run starts from the simulated world; a stored live run resumes from it and then runs or fails; anything
// goes back to the simulated world (a new run, or the host stops), except the simulated world itself.
const allowed = new Set([
  'simulating→live',
  'simulating→resuming-live',
  'simulating→resume-failed',
  'resuming-live→live',
  'resuming-live→resume-failed',
  'resuming-live→simulating',
  'resume-failed→simulating',
  'live→simulating',
]);

function machineIn(kind: HostModeKind): HostModeMachine {
  const machine = new HostModeMachine();
  for (const step of pathTo[kind]) machine.to(modes[step]);
  expect(machine.current.kind).toBe(kind);
  return machine;
}

const kinds = Object.keys(modes) as HostModeKind[];
const pairs = kinds.flatMap((from) => kinds.map((to) => ({ from, to, ok: allowed.has(`${from}→${to}`) })));

describe('host mode', () => {
  it('starts simulating, with no live world', () => {
    const machine = new HostModeMachine();
    expect(machine.current).toEqual({ kind: 'simulating' });
    expect(machine.liveWorld).toBeUndefined();
    expect(machine.isLive).toBe(false);
  });

  it.each(pairs.filter((p) => p.ok))('goes from $from to $to', ({ from, to }) => {
    const machine = machineIn(from);
    machine.to(modes[to]);
    expect(machine.current).toBe(modes[to]);
  });

  it.each(pairs.filter((p) => !p.ok))('refuses $from to $to with a ModeTransitionError', ({ from, to }) => {
    const machine = machineIn(from);
    let thrown: unknown;
    try {
      machine.to(modes[to]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ModeTransitionError);
    expect(thrown).toMatchObject({ from, to });
    expect((thrown as Error).message).toContain(`from ${from} to ${to}`);
    expect(machine.current).toEqual(modes[from]);
  });

  it('serves the live world only once it is live; a resuming or failed run is live for the speed and the snapshot', () => {
    expect(machineIn('resuming-live')).toMatchObject({ liveWorld: undefined, isLive: true, resuming: true });
    expect(machineIn('resume-failed')).toMatchObject({ liveWorld: undefined, isLive: true, resuming: true });
    expect(machineIn('live')).toMatchObject({ liveWorld: world, isLive: true, resuming: false });
  });
});
