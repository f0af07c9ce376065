// Light or dark: one switch in the header, kept in localStorage, read by the charts.
import { ref } from 'vue';

const KEY = 'concertina-theme';

function initial(): boolean {
  try {
    const kept = window.localStorage.getItem(KEY);
    if (kept) return kept === 'dark';
    return window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
  } catch {
    return false;
  }
}

export const dark = ref(typeof window === 'undefined' ? false : initial());

export function setDark(value: boolean): void {
  dark.value = value;
  try {
    window.localStorage.setItem(KEY, value ? 'dark' : 'light');
  } catch {
    // not kept
  }
}
