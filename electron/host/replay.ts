// Brings a simulated world back to where a stored run was: each stored command applied at its time, in the order the
// API accepted them, then the world run up to the stored clock. It works in slices, so that the host keeps
// answering while a long run is replayed.
import type { SimWorld } from '../../core/sim/world.js';
import type { StoredCommand } from '../store/store.js';

export class Replay {
  private index = 0;

  constructor(
    private readonly world: SimWorld,
    private readonly commands: readonly StoredCommand[],
    private readonly clock: number,
    private readonly apply: (command: StoredCommand) => void,
  ) {}

  /**
   * Replays until done or until `outOfTime()` says so (asked after each instant and each command, so every call
   * makes progress); true once the world is at the stored clock.
   */
  step(outOfTime: () => boolean): boolean {
    while (this.index < this.commands.length) {
      const command = this.commands[this.index]!;
      if (!this.world.runUntil(command.t, outOfTime)) return false;
      this.apply(command);
      this.index++;
      if (outOfTime()) return false;
    }
    return this.world.runUntil(this.clock, outOfTime);
  }
}
