// Checks that a demo application's work was done inside the extra local jobs of its malleable job: each recruited
// worker (work/<slot>/worker.json, written by the worker process itself) runs below that slot's stub
// (slots/<slot>, written by the stub), and the ledger the application writes at the end names the same processes.
// The daemons of the integration tests run on this machine, so /proc shows every process.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from './common.js';

export interface Worker {
  slot: string;
  host: string;
  pid: number;
}

export interface LedgerEntry {
  unit: string;
  host: string;
  pid: number;
  tasks: number;
  items: number;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs below `ancestor` (a child, grandchild...). */
export function isDescendant(pid: number, ancestor: number): boolean {
  for (let p = parentOf(pid), hops = 0; p !== undefined && p > 1 && hops < 64; p = parentOf(p), hops++)
    if (p === ancestor) return true;
  return false;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** The worker recruited on `slot` (undefined while it has not started). */
export function workerOn(jobDir: string, slot: string): Worker | undefined {
  const file = path.join(jobDir, 'work', slot, 'worker.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

/**
 * The workers on `slots` while they run, each checked to run below its slot's stub; throws otherwise (with what was
 * found, to tell a missing worker from one in the wrong place).
 */
export function recruitedWorkers(jobDir: string, slots: readonly string[]): Worker[] {
  return slots.map((slot) => {
    const worker = workerOn(jobDir, slot);
    const stubFile = path.join(jobDir, 'slots', slot);
    const stub = existsSync(stubFile) ? (JSON.parse(readFileSync(stubFile, 'utf8')) as { pid: number }) : undefined;
    if (!worker || !stub)
      throw new Error(`slot ${slot}: worker ${JSON.stringify(worker)}, stub ${JSON.stringify(stub)}`);
    if (worker.slot !== slot || !isDescendant(worker.pid, stub.pid))
      throw new Error(`slot ${slot}: worker ${worker.pid} does not run below its stub ${stub.pid}`);
    return worker;
  });
}

/**
 * Waits for the workers on `slots` (recruitedWorkers): each writes its file once it runs, which may come after the
 * application already reported its new size.
 */
export async function waitForWorkers(jobDir: string, slots: readonly string[], timeoutMs = 20_000): Promise<Worker[]> {
  let workers: Worker[] = [];
  await waitFor(
    `the workers on ${slots.join(', ')}`,
    () => (workers = recruitedWorkers(jobDir, slots)).length === slots.length,
    timeoutMs,
    100,
  );
  return workers;
}

export function ledger(jobDir: string): LedgerEntry[] {
  return JSON.parse(readFileSync(path.join(jobDir, 'work', 'ledger.json'), 'utf8'));
}
