// The sign-in and consent page of the authorization endpoint, rendered on the server: a plain
// HTML form, no script, no external asset, its one style block allowed by hash in a strict
// Content-Security-Policy. Every value shown is HTML-escaped.
import { createHash } from 'node:crypto';
import type { Response } from 'express';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = 'body{font:15px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}'
  + 'label{display:block;margin:.6rem 0}input[type=email],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}'
  + 'ul{padding-left:1.2rem}.err{color:#a00}button{margin:.8rem .5rem 0 0;padding:.4rem 1rem}';
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

function send(res: Response, status: number, body: string, formAction?: string): void {
  res.status(status)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Cache-Control', 'no-store')
    .set('X-Frame-Options', 'DENY')
    .set('Referrer-Policy', 'no-referrer')
    .set('Content-Security-Policy', `default-src 'none'; style-src ${STYLE_HASH}; form-action 'self'${formAction ? ` ${formAction}` : ''}; frame-ancestors 'none'; base-uri 'none'`)
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Homebase sign-in</title><style>${STYLE}</style></head><body>${body}</body></html>`);
}

export interface ConsentView {
  workspace: string;
  clientName: string;
  scopes: string[];
  /** The authorization request's parameters, carried through the form. */
  params: Record<string, string>;
  /** The redirect URI's origin: the form's submission ends there (a redirect). */
  redirectOrigin: string;
  error?: string;
  email?: string;
}

export function sendConsentPage(res: Response, view: ConsentView, status = 200): void {
  const hidden = Object.entries(view.params).map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('');
  send(res, status, `<h1>Sign in to ${esc(view.workspace)}</h1>`
    + `<p><strong>${esc(view.clientName)}</strong> asks to act for you with these scopes:</p>`
    + `<ul>${view.scopes.map((s) => `<li><code>${esc(s)}</code></li>`).join('')}</ul>`
    + (view.error ? `<p class="err" role="alert">${esc(view.error)}</p>` : '')
    + `<form method="post" action="authorize">${hidden}`
    + `<label>Email <input type="email" name="email" autocomplete="username" required value="${esc(view.email ?? '')}"></label>`
    + `<label>Password <input type="password" name="password" autocomplete="current-password" required></label>`
    + `<button type="submit" name="allowed" value="true">Approve</button>`
    + `<button type="submit" name="allowed" value="false" formnovalidate>Deny</button></form>`, view.redirectOrigin);
}

/** An authorization request that cannot go back to the client (unknown client, unregistered
 *  redirect URI): said here, never by a redirect. */
export function sendErrorPage(res: Response, status: number, error: string, description: string): void {
  send(res, status, `<h1>Authorization failed</h1><p><code>${esc(error)}</code>: ${esc(description)}</p>`);
}
