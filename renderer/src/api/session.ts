// Where the console token comes from, in order: the desktop shell's preload
// (`window.homebase.getConsoleToken()`), the `#token=` fragment of the console link (taken, then
// removed from the address bar), and the tab's sessionStorage (a reload stays signed in).
const KEY = 'homebase.consoleToken';

declare global {
  interface Window {
    /** Exposed by the desktop shell's preload (electron/). */
    homebase?: { getConsoleToken?: () => Promise<string | undefined | null> };
  }
}

let current: string | undefined;

export function consoleToken(): string | undefined {
  return current;
}

export function setConsoleToken(token: string | undefined): void {
  current = token || undefined;
  try {
    if (current) sessionStorage.setItem(KEY, current);
    else sessionStorage.removeItem(KEY);
  } catch {
    // storage disabled: the token lives for this page only
  }
}

/** Reads the token from the fragment and strips it from the address bar (history entry
 *  replaced, so Back does not bring it back). */
export function takeTokenFromFragment(loc: Location = window.location): string | undefined {
  const hash = loc.hash.replace(/^#/, '');
  if (!hash) return undefined;
  const params = new URLSearchParams(hash);
  const token = params.get('token');
  if (token === null) return undefined;
  params.delete('token');
  const rest = params.toString();
  window.history.replaceState(window.history.state, '', loc.pathname + loc.search + (rest ? `#${rest}` : ''));
  return token.trim() || undefined;
}

/** Finds the token at start; undefined means "ask for one". */
export async function loadConsoleToken(): Promise<string | undefined> {
  const fromShell = window.homebase?.getConsoleToken;
  if (typeof fromShell === 'function') {
    try {
      const token = await fromShell();
      if (token) { setConsoleToken(token); return token; }
    } catch {
      // fall back to the link or the tab's storage
    }
  }
  const fromLink = takeTokenFromFragment();
  if (fromLink) { setConsoleToken(fromLink); return fromLink; }
  let stored: string | null = null;
  try { stored = sessionStorage.getItem(KEY); } catch { /* storage disabled */ }
  current = stored ?? undefined;
  return current;
}
