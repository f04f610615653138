import { describe, expect, it, vi, beforeEach } from 'vitest';
vi.mock('electron', () => import('./test/electron-stub.js'));
import { FakeWebContents, resetStub, session, stub } from './test/electron-stub.js';
import { consoleCsp, guardWebContents, secureSession } from './security.js';
import { CONSOLE_CSP } from '../server/console-ui.js';

const ORIGIN = 'http://127.0.0.1:4700';

describe('console window security', () => {
  beforeEach(() => resetStub());

  it('the CSP allows the console origin only: no inline or eval script, no plugins, framed only by itself', () => {
    const csp = consoleCsp(ORIGIN);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain('connect-src \'self\' ws://127.0.0.1:4700');
    expect(csp).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
  });

  it('sets the policy the server sends with the console, with only the window origin\'s socket added', () => {
    const window = consoleCsp(ORIGIN).split('; ');
    const server = CONSOLE_CSP.split('; ');
    expect(window.filter((d) => !server.includes(d))).toEqual(["connect-src 'self' ws://127.0.0.1:4700"]);
    expect(server.filter((d) => !window.includes(d))).toEqual(["connect-src 'self'"]);
  });

  it('adds the CSP to the console origin responses only', () => {
    secureSession(session.defaultSession as never, () => ORIGIN);
    const run = (url: string) => {
      let out: any;
      stub.headersReceived!({ url, responseHeaders: { 'Content-Type': ['text/html'] } }, (r: unknown) => { out = r; });
      return out.responseHeaders;
    };
    expect(run(`${ORIGIN}/app/demo`)['Content-Security-Policy']).toEqual([consoleCsp(ORIGIN)]);
    expect(run(`${ORIGIN}/app/demo`)['Content-Type']).toEqual(['text/html']);
    expect(run('http://127.0.0.1:9999/')['Content-Security-Policy']).toBeUndefined();
  });

  it('denies permission requests and checks, but clipboard writes from the console itself', () => {
    secureSession(session.defaultSession as never, () => ORIGIN);
    const request = (permission: string, requestingUrl: string) => {
      let granted: boolean | undefined;
      stub.permissionRequest!({}, permission, (g: boolean) => { granted = g; }, { requestingUrl });
      return granted;
    };
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'display-capture', 'midiSysex', 'fullscreen', 'unknown']) {
      expect(request(p, `${ORIGIN}/`), p).toBe(false);
      expect(stub.permissionCheck!({}, p, ORIGIN, {}), p).toBe(false);
    }
    expect(request('clipboard-sanitized-write', `${ORIGIN}/app/demo`)).toBe(true);
    expect(request('clipboard-sanitized-write', 'http://127.0.0.1:9999/')).toBe(false);
    expect(stub.permissionCheck!({}, 'clipboard-sanitized-write', 'https://example.com', {})).toBe(false);
  });

  it('keeps navigation on the console origin and sends web links to the browser', () => {
    const wc = new FakeWebContents();
    const opened: string[] = [];
    guardWebContents(wc as never, () => ORIGIN, (u) => opened.push(u));
    expect(wc.navigate('will-navigate', `${ORIGIN}/app/demo/users`)).toBe(false);
    expect(wc.navigate('will-navigate', 'https://example.com/docs')).toBe(true);
    expect(wc.navigate('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(wc.navigate('will-navigate', 'http://127.0.0.1:4701/')).toBe(true);
    expect(wc.navigate('will-redirect', 'https://evil.example/')).toBe(true);
    expect(wc.navigate('will-attach-webview', `${ORIGIN}/`)).toBe(true);
    expect(opened).toEqual(['https://example.com/docs', 'http://127.0.0.1:4701/', 'https://evil.example/']);
  });

  it('denies every new window; http(s) ones open in the browser, other schemes nowhere', () => {
    const wc = new FakeWebContents();
    const opened: string[] = [];
    guardWebContents(wc as never, () => ORIGIN, (u) => opened.push(u));
    for (const url of ['https://example.com/', `${ORIGIN}/app/demo/api/`, 'file:///tmp/x', 'javascript:alert(1)', 'smb://host/share']) {
      expect(wc.windowOpenHandler!({ url })).toEqual({ action: 'deny' });
    }
    expect(opened).toEqual(['https://example.com/', `${ORIGIN}/app/demo/api/`]);
  });

  it('before the server runs, nothing is the console origin', () => {
    const wc = new FakeWebContents();
    guardWebContents(wc as never, () => undefined, () => {});
    expect(wc.navigate('will-navigate', `${ORIGIN}/`)).toBe(true);
  });
});
