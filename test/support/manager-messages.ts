// Records what a local manager answers, and waits for a given answer (for tests against real processes and
// daemons, where answers come when the batch system says so).
import type { ManagerMessage } from '../../core/ports.js';

export class MessageLog {
  readonly messages: ManagerMessage[] = [];
  private waiters: Array<() => void> = [];

  readonly onMessage = (message: ManagerMessage): void => {
    this.messages.push(message);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  };

  of<T extends ManagerMessage['type']>(type: T, jobId?: string): Array<Extract<ManagerMessage, { type: T }>> {
    return this.messages.filter(
      (m): m is Extract<ManagerMessage, { type: T }> =>
        m.type === type && (jobId === undefined || ('jobId' in m && m.jobId === jobId)),
    );
  }

  /** The first message matching `match` (already there or yet to come); rejects after `timeoutMs`. */
  async waitFor<T extends ManagerMessage['type']>(
    type: T,
    match: (m: Extract<ManagerMessage, { type: T }>) => boolean = () => true,
    timeoutMs = 20_000,
  ): Promise<Extract<ManagerMessage, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.of(type).find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no "${type}" message came in ${timeoutMs} ms; got: ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
