// Errors every CommandRunner rejects with in the same way, so that callers can tell a timeout from a lost link.

/** The command ran longer than its timeout and was killed (its process group, where the transport allows). */
export class CommandTimeoutError extends Error {
  readonly kind = 'timeout';
  constructor(
    readonly target: string,
    readonly timeoutMs: number,
  ) {
    super(`${target}: command timed out after ${timeoutMs} ms and was killed`);
    this.name = 'CommandTimeoutError';
  }
}
