// After a restart, Concertina's local jobs found on the cluster by their tag: grouped by job and component (from
// their names, naming.ts), and tracked again as a component whose running members count as already announced.
import type { ClusterReport, LocalJobInfo, LocalJobSpec } from './batch-system.js';
import { parseLocalJobName, type MemberKind } from './naming.js';
import { memberFiles, type Component, type Member, type TrackedJob } from './tracked-jobs.js';

export interface FoundComponent {
  readonly jobId: string;
  readonly component: number;
  readonly kind: MemberKind;
  readonly members: Array<{ info: LocalJobInfo; member: number }>;
}

/** The report's local jobs named with `tag`, grouped by job and component. */
export function groupFound(report: ClusterReport, tag: string): FoundComponent[] {
  const groups = new Map<string, FoundComponent>();
  for (const info of report.jobs) {
    const parsed = parseLocalJobName(info.name, tag);
    if (!parsed) continue;
    const key = `${parsed.jobId}\u0000${parsed.component}`;
    const group = groups.get(key) ?? {
      jobId: parsed.jobId,
      component: parsed.component,
      kind: parsed.kind,
      members: [],
    };
    group.members.push({ info, member: parsed.member });
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** A component of `job` made of the local jobs found (members missing from the listing are ended). */
export function adoptedComponent(
  where: { readonly tag: string; readonly workRoot: string },
  job: TrackedJob,
  componentIndex: number,
  kind: MemberKind,
  found: Array<{ info: LocalJobInfo; member: number }>,
): Component {
  const component: Component = {
    index: componentIndex,
    kind,
    members: [],
    initial: 0,
    started: false,
    completed: false,
  };
  const byIndex = new Map(found.map((f) => [f.member, f.info]));
  const top = Math.max(...found.map((f) => f.member));
  const anyRunning = found.some((f) => f.info.state === 'running');
  for (let index = 0; index <= top; index++) {
    const info = byIndex.get(index);
    const files = memberFiles(where, job.jobId, componentIndex, kind, index);
    const spec: LocalJobSpec = { ...files, processors: info?.processors ?? 1, program: '', args: [], env: {} };
    const running = info?.state === 'running';
    // Once the job runs, members still pending were grown; before, they are part of its start.
    const member: Member = {
      job,
      component,
      index,
      name: files.name,
      spec,
      grow: anyRunning && !running,
      phase: info ? (running ? 'running' : 'pending') : 'ended',
      announced: running,
      released: !info,
      missingRounds: 0,
      sinceCancel: 0,
      deleting: false,
    };
    if (info) member.id = info.id;
    component.members.push(member);
  }
  component.started = anyRunning;
  component.initial = anyRunning ? component.members.filter((m) => m.announced).length : component.members.length;
  return component;
}
