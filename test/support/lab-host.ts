// Hosts for the Lab's tests (each stopped after its test) and waits on a Lab run's progress.
import { afterEach } from 'vitest';
import { Host } from '../../electron/host/host.js';
import type { LabRunner } from '../../electron/lab/runner.js';
import type { LabRunInfo } from '../../electron/lab/registry.js';

const ENDED = new Set(['done', 'failed', 'cancelled']);

/** A paused host with no workload, stopped after the test that made it (call at a test file's top level). */
export function labHosts(): () => Host {
  let hosts: Host[] = [];
  afterEach(() => {
    for (const h of hosts) void h.stop();
    hosts = [];
  });
  return () => {
    const host = new Host({ workload: 'none', speed: 'pause' });
    hosts.push(host);
    return host;
  };
}

/** Resolves with the run's info once it has ended. */
export function ended(lab: LabRunner, runId: string): Promise<LabRunInfo> {
  return untilInfo(lab, runId, (info) => ENDED.has(info.status));
}

/** Resolves once the run reports at least `runsDone` finished simulation runs. */
export function reached(lab: LabRunner, runId: string, runsDone: number): Promise<LabRunInfo> {
  return untilInfo(lab, runId, (info) => info.runsDone >= runsDone);
}

function untilInfo(lab: LabRunner, runId: string, done: (info: LabRunInfo) => boolean): Promise<LabRunInfo> {
  return new Promise((resolve) => {
    const now = lab.info(runId);
    if (now && done(now)) return resolve(now);
    const off = lab.subscribe((info) => {
      if (info.runId === runId && done(info)) {
        off();
        resolve(info);
      }
    });
  });
}
