// Where the console token comes from, in order: the desktop shell's preload
// (`window.homebase.getConsoleToken()`), the `#token=` fragment of the console link (taken, then
// removed from the address bar), the tab's sessionStorage (a reload stays signed in), and
// another open console tab of this origin (a link opened in a new tab: sessionStorage is per
// tab, so it would otherwise land on sign-in). Tabs hand the token over on a BroadcastChannel,
// which only pages of this same origin can join (and they could read sessionStorage anyway).
const KEY = 'homebase.consoleToken';

declare global {
  interface Window {
    /** Exposed by the desktop shell's preload (electron/). */
    homebase?: { getConsoleToken?: () => Promise<string | undefined | null> };
  }
}

let current: string | undefined;

const CHANNEL = 'homebase.console';
/** How long a new tab waits for another tab's answer before asking for a token. */
const ASK_MS = 400;
let channel: BroadcastChannel | undefined;

/** Answers other tabs of this console that ask for the token (while this tab holds one). */
function answerOtherTabs(): void {
  if (channel || typeof BroadcastChannel === 'undefined') return;
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (e: MessageEvent<{ type?: string }>) => {
    if (e.data?.type === 'ask' && current) channel?.postMessage({ type: 'token', token: current });
  };
}

/** Asks the other open tabs of this console for their token. */
export function askOtherTabs(waitMs = ASK_MS): Promise<string | undefined> {
  if (typeof BroadcastChannel === 'undefined') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const ch = new BroadcastChannel(CHANNEL);
    const done = (token?: string) => { clearTimeout(timer); ch.close(); resolve(token); };
    const timer = setTimeout(() => done(undefined), waitMs);
    ch.onmessage = (e: MessageEvent<{ type?: string; token?: string }>) => { if (e.data?.type === 'token' && e.data.token) done(e.data.token); };
    ch.postMessage({ type: 'ask' });
  });
}

export function consoleToken(): string | undefined {
  return current;
}

export function setConsoleToken(token: string | undefined): void {
  current = token || undefined;
  if (current) answerOtherTabs();
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
  if (stored) { setConsoleToken(stored); return stored; }
  const fromTab = await askOtherTabs();
  if (fromTab) { setConsoleToken(fromTab); return fromTab; }
  current = undefined;
  return current;
}
