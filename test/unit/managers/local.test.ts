// The `local` adapter's status parser and state codes (its scripts are exercised for real in local-system.test.ts).
import { describe, expect, it } from 'vitest';
import { LocalSystem, localState, parseLocalStatus } from '../../../runners/managers/local.js';
import { sections } from './fixtures.js';

const N = '0123456789abcdef';

describe('local status', () => {
  it('reads slots and every job record, names with a pipe included', () => {
    const text = [
      'stray line before the records',
      `${N}|slots|8|5`,
      `${N}|job|1|E0|2|cnc-concertina-a-0-r0`,
      `${N}|job|2|R|4|cnc-concertina-b-0-r0`,
      `${N}|job|3|K|1|cnc-concertina-c-0-m0`,
      `${N}|job|4|Q|4|cnc-concertina-d-0-r0`,
      `${N}|job|5|S|1|odd|name`,
      `${N}|job|6|X|1|cnc-concertina-e-0-r0`,
      `${N}|job|7|L|1|cnc-concertina-f-0-r0`,
      `${N}|job|8|E137|1|cnc-concertina-g-0-r0`,
      '',
    ].join('\n');
    const report = parseLocalStatus(text, N);
    expect(report.nodes).toEqual({ total: 8, idle: 3, unavailable: 0 });
    expect(report.jobs.map((j) => [j.id, j.state, j.processors])).toEqual([
      ['1', 'completed', 2],
      ['2', 'running', 4],
      ['3', 'running', 1],
      ['4', 'pending', 4],
      ['5', 'pending', 1],
      ['6', 'cancelled', 1],
      ['7', 'failed', 1],
      ['8', 'failed', 1],
    ]);
    expect(report.jobs[4]!.name).toBe('odd|name');
    expect(report.jobs[7]).toMatchObject({ exitCode: 137, reason: 'exit status 137' });
    expect(report.jobs[6]!.reason).toMatch(/without an exit status/);
  });

  it('refuses output without a slots record, or with a record it does not know', () => {
    expect(() => parseLocalStatus('', N)).toThrow('local status: no slots record');
    expect(() => parseLocalStatus(`${N}|slots|8|0\n${N}|what|1\n`, N)).toThrow(/line 2: unexpected record/);
    expect(() => parseLocalStatus(`${N}|slots|eight|0\n`, N)).toThrow(/slots: expected a whole number/);
  });

  it('keeps an unknown state code as unknown', () => {
    expect(localState('Z').state).toBe('unknown');
  });

  it('refuses a job larger than the host, and slot counts below one', () => {
    const job = {
      name: 'n',
      processors: 9,
      program: 'p',
      args: [],
      workDir: 'w',
      stdoutFile: 'o',
      stderrFile: 'e',
      exitFile: 'x',
      env: {},
    };
    expect(() => new LocalSystem({ slots: 8 }).submitCommand(job)).toThrow(
      'local: job n asks for 9 processors; the host has 8 slots',
    );
    expect(() => new LocalSystem({ slots: 0 })).toThrow(/at least 1/);
    expect(() => new LocalSystem({ slots: 2 }).parseStatus(sections({}), N)).toThrow('local status: no output');
  });
});
