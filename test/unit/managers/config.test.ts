// A cluster's batch-system configuration, checked at the boundary, builds the matching adapter.
import { describe, expect, it } from 'vitest';
import { batchSystemSchema, createBatchSystem } from '../../../runners/managers/index.js';

describe('batch system configuration', () => {
  it('builds each adapter by kind', () => {
    const kinds = [
      { kind: 'slurm', partition: 'debug' },
      { kind: 'sge' },
      { kind: 'pbs', flavour: 'torque' },
      { kind: 'local', slots: 4 },
    ].map((c) => createBatchSystem(batchSystemSchema.parse(c)).kind);
    expect(kinds).toEqual(['slurm', 'sge', 'pbs', 'local']);
  });

  it('refuses an unknown kind, a field of another kind, and a local host without slots, naming the field', () => {
    expect(batchSystemSchema.safeParse({ kind: 'lsf' }).success).toBe(false);
    const wrongField = batchSystemSchema.safeParse({ kind: 'slurm', flavour: 'torque' });
    expect(wrongField.success).toBe(false);
    expect(JSON.stringify(wrongField.error?.issues)).toContain('flavour');
    const noSlots = batchSystemSchema.safeParse({ kind: 'local' });
    expect(noSlots.error?.issues[0]?.path).toEqual(['slots']);
  });
});
