// Input shapes of interactive jobs and cost models: accepted values map to the core's types, refused ones give field
// errors.
import { describe, expect, it } from 'vitest';
import { parseCostModel, parseInteractiveJob } from '../../../core/interactive/schema.js';

describe('interactive job and cost model input', () => {
  it('maps a job to the core type, arrival 0 by default', () => {
    expect(parseInteractiveJob({ id: 'viz', period_ms: 100, deadline_ms: 80, data_units: 12.5 })).toEqual({
      ok: true,
      value: { id: 'viz', arrivalMs: 0, periodMs: 100, deadlineMs: 80, dataUnits: 12.5 },
    });
  });

  it('refuses with field errors', () => {
    expect(parseInteractiveJob({ id: 'x', period_ms: 100, deadline_ms: 120, data_units: 1 })).toEqual({
      ok: false,
      errors: [{ path: 'deadline_ms', message: 'deadline must not exceed the period' }],
    });
    expect(parseInteractiveJob({ id: 'x', period_ms: 10.5, deadline_ms: 5, data_units: 0 })).toMatchObject({
      ok: false,
      errors: [
        { path: 'period_ms', message: 'period must be a whole number of ms' },
        { path: 'data_units', message: 'data size must be positive' },
      ],
    });
    expect(parseInteractiveJob({ id: 'x', period_ms: 10, deadline_ms: 5, data_units: 1, nodes: 3 })).toMatchObject({
      ok: false,
      errors: [{ path: '' }],
    });
  });

  it('maps a cost model', () => {
    expect(parseCostModel({ cms_ms_per_unit: 0.05, cps_ms_per_unit: 5 })).toEqual({
      ok: true,
      value: { cmsMsPerUnit: 0.05, cpsMsPerUnit: 5 },
    });
    expect(parseCostModel({ cms_ms_per_unit: -1, cps_ms_per_unit: 0 })).toMatchObject({
      ok: false,
      errors: [{ path: 'cms_ms_per_unit' }, { path: 'cps_ms_per_unit' }],
    });
  });
});
