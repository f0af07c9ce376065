// The processors of a demo application, shared by the demos and staged with them. Processor 0 is this process
// (member 0, one processor); the others are worker processes on the slots Concertina holds, recruited through their
// stubs (the SDK's worker pool), each running the same .mjs file with --serve-slot. Processors without a slot (run
// outside Concertina, or slot files that have not come) are worker threads here, as a fallback, so that a demo
// gives the same results at any size wherever it runs.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';

export const SERVE_SLOT = '--serve-slot';

/**
 * The demo's entry point: main() in the application, or `compute(task) -> result` served to it, in a process a
 * slot stub runs (argv[2] is --serve-slot) or in a worker thread.
 */
export async function runDemo(compute, main) {
  if (!isMainThread) {
    parentPort.on('message', (task) => {
      let reply;
      try {
        reply = { ok: true, value: compute(task) };
      } catch (error) {
        reply = { ok: false, error: String(error?.stack ?? error) };
      }
      parentPort.postMessage(reply);
    });
    return;
  }
  if (process.argv[2] === SERVE_SLOT) {
    const { serveSlot } = await import('../sdk/concertina-app.mjs');
    await serveSlot(compute);
    return;
  }
  await main();
}

export class Processors {
  /** One per processor in use, this process first: { name, call(task) -> Promise<result> }. */
  units = [];
  #app;
  #moduleUrl;
  #measure;
  #pool;
  #threads = [];
  #missing = 0;
  /** Who computed what: unit name -> { unit, host, pid, tasks, items }. */
  #ledger = new Map();
  #self;

  /**
   * app: the SDK's application; moduleUrl: the demo's import.meta.url (the file workers run); compute: the demo's
   * task function; measure(result): how many items a result counts (for the ledger).
   */
  constructor(app, moduleUrl, compute, { measure = () => 0 } = {}) {
    this.#app = app;
    this.#moduleUrl = moduleUrl;
    this.#measure = measure;
    this.#pool = app.workerPool({ argv: [process.execPath, fileURLToPath(moduleUrl), SERVE_SLOT] });
    this.#self = {
      name: 'm0',
      call: async (task) => {
        // After the other units' tasks are handed out (their calls start synchronously), so that they run meanwhile.
        await Promise.resolve();
        const result = compute(task);
        this.#count('m0', hostname(), process.pid, result);
        return result;
      },
    };
  }

  /**
   * Uses `size` processors: the workers follow the slots held (new ones recruited, those given back stopped before
   * this resolves); threads stand in for the processors that have no slot. Cheap when nothing changed, so it may be
   * called at every step (slots that came late are then taken into use).
   */
  async resize(size) {
    await this.#pool.update();
    const slots = size > 0 ? this.#pool.workers.slice(0, size - 1) : [];
    const missing = Math.max(0, size - 1 - slots.length);
    while (this.#threads.length < missing) this.#threads.push(new Worker(new URL(this.#moduleUrl)));
    await Promise.all(this.#threads.splice(missing).map((w) => w.terminate()));
    // Under stubs, a processor without a worker is worth a word (slot files late, or a worker that failed).
    if (missing !== this.#missing && missing > 0 && this.#app.slots().length > 0)
      process.stderr.write(`demo: ${missing} processor(s) without a slot worker run as threads here\n`);
    this.#missing = missing;
    this.units =
      size > 0
        ? [this.#self, ...slots.map((w) => this.#slotUnit(w)), ...this.#threads.map((t, i) => this.#threadUnit(t, i))]
        : [];
  }

  /** Stops every worker process and thread. */
  async close() {
    this.units = [];
    await this.#pool.close();
    await Promise.all(this.#threads.splice(0).map((w) => w.terminate()));
  }

  /** Writes work/ledger.json in the job directory: [{ unit, host, pid, tasks, items }] in the order units first worked. */
  writeLedger() {
    const dir = join(this.#app.dir, 'work');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'ledger.json.tmp'), `${JSON.stringify([...this.#ledger.values()])}\n`);
    renameSync(join(dir, 'ledger.json.tmp'), join(dir, 'ledger.json'));
  }

  #slotUnit(worker) {
    return {
      name: worker.slot,
      call: async (task) => {
        try {
          const result = await worker.call(task);
          this.#count(worker.slot, worker.host, worker.pid, result);
          return result;
        } catch (error) {
          // Decision: a worker that fails or ends leaves its task to this process, so the result stays whole; the
          // pool recruits no new worker on that slot.
          process.stderr.write(`demo: ${error.message}; computing its task here\n`);
          return this.#self.call(task);
        }
      },
    };
  }

  #threadUnit(thread, index) {
    return {
      name: `thread${index + 1}`,
      call: (task) =>
        new Promise((resolve, reject) => {
          const onError = (error) => {
            thread.off('message', onMessage);
            reject(error);
          };
          const onMessage = (reply) => {
            thread.off('error', onError);
            if (!reply.ok) return reject(new Error(reply.error));
            this.#count(`thread${index + 1}`, hostname(), process.pid, reply.value);
            resolve(reply.value);
          };
          thread.once('message', onMessage);
          thread.once('error', onError);
          thread.postMessage(task);
        }),
    };
  }

  #count(unit, host, pid, result) {
    // A slot recruited again (another process) is another entry.
    const key = `${unit}/${pid}`;
    const entry = this.#ledger.get(key) ?? { unit, host, pid, tasks: 0, items: 0 };
    entry.tasks++;
    entry.items += this.#measure(result);
    this.#ledger.set(key, entry);
  }
}
