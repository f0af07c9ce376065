// The console's shortcuts: "g" then a letter goes to a view, "?" opens the help; keys typed into fields, with
// modifiers, or too late after "g" do nothing.
import { describe, expect, it } from 'vitest';
import { createShortcutHandler, SEQUENCE_MS, VIEW_SHORTCUTS, type KeyLike } from '../../renderer/src/keyboard.js';

function press(key: string, timeStamp: number, extra: Partial<KeyLike> = {}) {
  const e = {
    key,
    timeStamp,
    altKey: false,
    ctrlKey: false,
    metaKey: false,
    target: { tagName: 'BODY' },
    prevented: false,
    preventDefault: () => (e.prevented = true),
    ...extra,
  };
  return e;
}

function setup() {
  const seen: string[] = [];
  const handle = createShortcutHandler({ goTo: (v) => seen.push(`go ${v}`), showHelp: () => seen.push('help') });
  return { seen, handle };
}

describe('keyboard shortcuts', () => {
  it('go to each view with g then its letter, and open the help with ?', () => {
    const { seen, handle } = setup();
    let t = 0;
    for (const s of VIEW_SHORTCUTS) {
      handle(press('g', (t += 10)));
      const second = press(s.key, (t += 10));
      handle(second);
      expect(second.prevented).toBe(true);
    }
    const help = press('?', (t += 10));
    handle(help);
    expect(seen).toEqual([...VIEW_SHORTCUTS.map((s) => `go ${s.view}`), 'help']);
    expect(help.prevented).toBe(true);
    expect(new Set(VIEW_SHORTCUTS.map((s) => s.key)).size).toBe(VIEW_SHORTCUTS.length);
  });

  it('ignore a letter without g, a letter too long after g, and an unknown letter (which ends the sequence)', () => {
    const { seen, handle } = setup();
    handle(press('q', 0));
    handle(press('g', 100));
    handle(press('q', 100 + SEQUENCE_MS + 1));
    handle(press('g', 5000));
    handle(press('x', 5010));
    handle(press('q', 5020));
    expect(seen).toEqual([]);
  });

  it('leave keys typed into a field, or with a modifier, to the page', () => {
    const { seen, handle } = setup();
    for (const tagName of ['INPUT', 'TEXTAREA', 'SELECT']) {
      handle(press('g', 0, { target: { tagName } }));
      handle(press('q', 10, { target: { tagName } }));
      handle(press('?', 20, { target: { tagName } }));
    }
    handle(press('g', 30, { target: { tagName: 'DIV', isContentEditable: true } }));
    handle(press('g', 40, { ctrlKey: true }));
    handle(press('q', 50));
    handle(press('?', 60, { altKey: true }));
    expect(seen).toEqual([]);
  });
});
