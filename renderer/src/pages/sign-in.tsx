// Without a console token the console shows no data: it asks for one and says where it is.
import { useState } from 'react';

export function SignIn({ reason, onToken }: { reason?: string; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  return (
    <main id="main" style={{ maxWidth: 560, margin: '10vh auto', padding: 16 }}>
      <div className="card stack">
        <h1>Sign in to the Homebase console</h1>
        {reason ? <div className="error" role="alert">{reason}</div> : null}
        <p>
          Open the console link that <code>homebase serve</code> (or <code>npm start</code>) prints when it starts,
          <code> {window.location.origin}/#token=…</code>, or paste the console token here. It is also the
          <code> consoleToken</code> of <code>--json</code> output, and kept in the data folder's <code>homebase.json</code>.
        </p>
        <form className="form" onSubmit={(e) => { e.preventDefault(); if (token.trim()) onToken(token.trim()); }}>
          <label className="field">
            Console token
            <input type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} autoFocus />
            <span className="hint">Kept for this browser tab (console links you open in new tabs from here are handed it), never in a cookie or localStorage.</span>
          </label>
          <div className="form-actions"><button type="submit" className="primary" disabled={!token.trim()}>Sign in</button></div>
        </form>
      </div>
    </main>
  );
}
