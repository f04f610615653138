// The scopes a credential (an API key, an OAuth client) may be given: one checkbox per scope with
// what it opens, in the server's order, and the server's error about them under the list.
import { useId } from 'react';
import { API_KEY_SCOPES } from '../pages/api-keys/scopes';

export function ScopeCheckboxes({ value, onChange, error }: { value: string[]; onChange: (scopes: string[]) => void; error?: string }) {
  const errorId = `${useId()}-scope-err`;
  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend>Scopes *</legend>
      <div className="stack" style={{ gap: 4 }}>
        {API_KEY_SCOPES.map(({ scope, opens }) => (
          <label key={scope} className="check">
            <input type="checkbox" style={{ flexShrink: 0 }} checked={value.includes(scope)} onChange={(e) => onChange(e.target.checked ? [...value, scope] : value.filter((s) => s !== scope))} />
            <code>{scope}</code> <span className="muted small">{opens}</span>
          </label>
        ))}
      </div>
      {error ? <span className="field-error" id={errorId}>{error}</span> : null}
    </fieldset>
  );
}

/** The first error the server gave for `field` or one of its items (`scopes.2`). */
export function errorUnder(errors: Record<string, string>, field: string): string | undefined {
  return errors[field] ?? Object.entries(errors).find(([f]) => f.startsWith(`${field}.`))?.[1];
}
