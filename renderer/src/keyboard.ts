// The console's keyboard shortcuts: "g" then a letter goes to a view (as on GitHub), "?" opens the list of
// shortcuts. Kept apart from the components so that the sequence logic is tested without a page.

export interface ViewShortcut {
  readonly key: string;
  readonly view: string;
  readonly label: string;
}

/** "g" then the key goes to the view. Decision: Settings is "e" (sEttings), since "s" is Submit. */
export const VIEW_SHORTCUTS: readonly ViewShortcut[] = [
  { key: 'g', view: 'grid', label: 'Grid' },
  { key: 'q', view: 'queue', label: 'Queue' },
  { key: 'p', view: 'plan', label: 'Plan' },
  { key: 's', view: 'submit', label: 'Submit' },
  { key: 'a', view: 'activity', label: 'Activity' },
  { key: 'e', view: 'settings', label: 'Settings' },
  { key: 'l', view: 'lab', label: 'Lab' },
];

/** Other keys, listed in the help dialog. */
export const OTHER_SHORTCUTS: ReadonlyArray<{ keys: string; what: string }> = [
  { keys: '?', what: 'show this list' },
  { keys: 'Tab / Shift+Tab', what: 'move between buttons, fields and queue rows' },
  { keys: '↑ / ↓', what: 'previous / next queue row' },
  { keys: 'Enter', what: 'open the job of the focused queue row' },
  { keys: 'Escape', what: 'close the job drawer or this dialog' },
];

/** How long after "g" the second key counts. */
export const SEQUENCE_MS = 1500;

/** What the handler needs of a keydown event (a KeyboardEvent, or a stand-in in tests). */
export interface KeyLike {
  readonly key: string;
  readonly altKey: boolean;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly target: unknown;
  readonly timeStamp: number;
  preventDefault(): void;
}

export interface ShortcutActions {
  goTo(view: string): void;
  showHelp(): void;
}

/** Typing in a field, or in a component that handles its own keys (a select, a dialog's input), is left alone. */
function isEditable(target: unknown): boolean {
  const el = target as { tagName?: string; isContentEditable?: boolean; closest?: (s: string) => unknown } | null;
  if (!el || typeof el.tagName !== 'string') return false;
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName.toUpperCase()) || el.isContentEditable) return true;
  return Boolean(el.closest?.('[contenteditable="true"]'));
}

/** A keydown listener for the whole page. */
export function createShortcutHandler(actions: ShortcutActions): (e: KeyLike) => void {
  let pendingSince = Number.NEGATIVE_INFINITY;
  return (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || isEditable(e.target)) return;
    const pending = e.timeStamp - pendingSince <= SEQUENCE_MS;
    pendingSince = Number.NEGATIVE_INFINITY;
    if (pending) {
      const shortcut = VIEW_SHORTCUTS.find((s) => s.key === e.key.toLowerCase());
      if (shortcut) {
        e.preventDefault();
        actions.goTo(shortcut.view);
        return;
      }
    }
    if (e.key === '?') {
      e.preventDefault();
      actions.showHelp();
    } else if (e.key === 'g') pendingSince = e.timeStamp;
  };
}
