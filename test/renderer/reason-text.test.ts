// A scheduler's reason in the Queue: the run times it names in seconds are shown as h:mm:ss, like the page's others.
import { describe, expect, it } from 'vitest';
import { reasonText } from '../../renderer/src/format.js';

describe('reasonText', () => {
  it('turns the start a queue policy reserved, in seconds, into h:mm:ss', () => {
    expect(reasonText('reserved to start at 2400.0174601 (cbf)')).toBe('reserved to start at 0:40:00 (cbf)');
    expect(reasonText('reserved to start at 7205 after A, B (dbes)')).toBe(
      'reserved to start at 2:00:05 after A, B (dbes)',
    );
  });

  it('leaves other numbers alone', () => {
    const text = 'waiting for 16 processors: the plan cannot say when (easy)';
    expect(reasonText(text)).toBe(text);
    expect(reasonText('')).toBe('');
  });
});
