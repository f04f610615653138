// `/app/{app_id}/api/`: Swagger UI (swagger-ui-dist, bundled, loaded on this page only) on the
// workspace's openapi.json, v1 or the v2 preview (a select), authorised with a freshly minted
// admin token. No online validator; nothing is fetched from another host.
import { useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { adminToken } from '../../api/client';
import { ErrorBox } from '../../components/error-box';
import { dropPlaceholders } from './placeholders';
import 'swagger-ui-dist/swagger-ui.css';
import './swagger-theme.css';

/** Where each version's document is served. */
const DOCUMENTS = {
  v1: (appId: string) => `/api/app/${encodeURIComponent(appId)}/openapi.json`,
  v2: (appId: string) => `/api/v2/app/${encodeURIComponent(appId)}/openapi.json`,
} as const;
type ApiVersion = keyof typeof DOCUMENTS;

export default function ApiReferencePage() {
  const { appId = '' } = useParams();
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState<ApiVersion>('v1');
  const documentUrl = DOCUMENTS[version](appId);
  useEffect(() => {
    let cancelled = false;
    let observer: MutationObserver | undefined;
    (async () => {
      try {
        const [mod, token] = await Promise.all([import('swagger-ui-dist/swagger-ui-bundle.js'), adminToken(appId, true)]);
        // A UMD bundle: the function is the module's default export.
        const SwaggerUIBundle = (mod as unknown as { default?: typeof mod.SwaggerUIBundle }).default ?? mod.SwaggerUIBundle;
        if (cancelled || !host.current) return;
        const ui = SwaggerUIBundle({
          domNode: host.current,
          url: documentUrl,
          validatorUrl: null,
          deepLinking: false,
          persistAuthorization: false,
          tryItOutEnabled: false,
          // Tags start folded and the schemas section hidden: a workspace's document is long, and
          // rendering every operation at once made the page slow to open.
          docExpansion: 'none',
          defaultModelsExpandDepth: -1,
          filter: true,
          // Try it out sends no schema placeholders (`filter[additionalProp1]`, `"_owner": "string"`).
          requestInterceptor: dropPlaceholders,
          onComplete: () => { ui.preauthorizeApiKey('bearerAuth', token); },
        });
        // Swagger UI leaves some controls unnamed (the servers list): name them as they appear.
        observer = new MutationObserver(() => nameControls(host.current));
        observer.observe(host.current, { childList: true, subtree: true });
      } catch (e) {
        if (!cancelled) setError(e);
      }
    })();
    return () => { cancelled = true; observer?.disconnect(); if (host.current) host.current.innerHTML = ''; };
  }, [appId, documentUrl]);
  return (
    <div className="stack">
      <div>
        <h1>API reference</h1>
        <p className="muted">Every endpoint of workspace <code>{appId}</code>, from its <a href={documentUrl}>openapi.json</a>. <em>Authorize</em> holds a freshly minted admin token; <em>Try it out</em> sends to this server.</p>
        <label>
          API version{' '}
          <select aria-label="API version" value={version} onChange={(e) => setVersion(e.target.value as ApiVersion)}>
            <option value="v1">v1</option>
            <option value="v2">v2 (preview)</option>
          </select>
        </label>
      </div>
      <ErrorBox error={error} />
      <div ref={host} className="swagger-host" />
    </div>
  );
}

function nameControls(root: HTMLElement | null): void {
  if (!root) return;
  // Swagger UI renders a <main> of its own (focusable, so `role="none"` would not apply) inside
  // the console's: it becomes a named region, so the page keeps one main landmark.
  for (const el of root.querySelectorAll<HTMLElement>('main:not([role])')) {
    el.setAttribute('role', 'region');
    if (!el.hasAttribute('aria-label')) el.setAttribute('aria-label', el.id === 'operations' ? 'Operations' : 'Schema');
  }
  for (const el of root.querySelectorAll<HTMLElement>('select:not([aria-label]), input:not([aria-label]), textarea:not([aria-label])')) {
    const labelled = (el as HTMLInputElement).labels;
    if (el.id !== 'servers' && labelled?.length && [...labelled].some((l) => l.textContent?.trim())) continue;
    const name = el.id === 'servers' ? 'Server' : el.getAttribute('placeholder') ?? el.closest('tr')?.querySelector('.parameter__name')?.textContent?.replace('*', '').trim() ?? el.getAttribute('title');
    if (name) el.setAttribute('aria-label', name);
  }
}
