// Bench figures of the local managers' parsers: a status round's output for a queue of 10,000 jobs.
import { parseQstatXml } from '../../runners/managers/sge.js';
import { parseSqueue } from '../../runners/managers/slurm.js';

const NONCE = 'f00dfeedcafe1234';
const STATES = ['RUNNING', 'PENDING', 'COMPLETING', 'COMPLETED'];

/** squeue's output (the adapter's format) for `jobs` jobs, a quarter of them Concertina's. */
export function squeueOutput(jobs: number): string {
  let out = '';
  for (let i = 0; i < jobs; i++) {
    const name = i % 4 === 0 ? `cnc-concertina-job${i}-0-m${i % 7}` : `user-job-${i}`;
    out += `${NONCE}|${1000 + i}|${STATES[i % 4]}|${1 + (i % 16)}|user${i % 50}|${i % 4 === 1 ? 'Resources' : 'None'}|${name}\n`;
  }
  return out;
}

/** qstat -xml -u '*' for `jobs` jobs: three quarters running (queue_info), the rest pending (job_info). */
export function qstatXmlOutput(jobs: number): string {
  const job = (i: number, running: boolean) => `    <job_list state="${running ? 'running' : 'pending'}">
      <JB_job_number>${1000 + i}</JB_job_number>
      <JAT_prio>0.50500</JAT_prio>
      <JB_name>${i % 4 === 0 ? `cnc-concertina-job${i}-0-m0` : `user-job-${i}`}</JB_name>
      <JB_owner>user${i % 50}</JB_owner>
      <state>${running ? 'r' : 'qw'}</state>
      <JAT_start_time>2026-11-22T05:00:19</JAT_start_time>
      <queue_name>${running ? 'all.q@node' + (i % 100) : ''}</queue_name>
      <slots>${1 + (i % 16)}</slots>
    </job_list>
`;
  let running = '';
  let pending = '';
  for (let i = 0; i < jobs; i++) {
    if (i % 4 === 3) pending += job(i, false);
    else running += job(i, true);
  }
  return `<?xml version='1.0'?>\n<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd">\n  <queue_info>\n${running}  </queue_info>\n  <job_info>\n${pending}  </job_info>\n</job_info>\n`;
}

/** Median parse times (ms) of 10,000-job squeue and qstat -xml outputs, after warm-up runs. */
export function managerParse(jobs = 10_000): { squeue_ms: number; qstat_xml_ms: number; jobs: number } {
  const squeue = squeueOutput(jobs);
  const qstat = qstatXmlOutput(jobs);
  const time = (parse: () => number): number => {
    const samples: number[] = [];
    for (let i = 0; i < 9; i++) {
      const t0 = performance.now();
      const n = parse();
      samples.push(performance.now() - t0);
      if (n !== jobs) throw new Error(`parsed ${n} jobs, expected ${jobs}`);
    }
    const sorted = samples.slice(3).sort((a, b) => a - b);
    return Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(2));
  };
  return {
    squeue_ms: time(() => parseSqueue(squeue, NONCE).length),
    qstat_xml_ms: time(() => parseQstatXml(qstat).length),
    jobs,
  };
}
