// An API error in words: its code, status, message and where it points (field, JSON path).
import { ApiError } from '../api/client';

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError) {
    const where = (error.details.path ?? error.details.field) as string | undefined;
    return (
      <div className="error" role="alert">
        <code>{error.code}</code>{error.status ? ` (${error.status})` : ''}: {error.message}
        {where ? <> — at <code>{where}</code></> : null}
      </div>
    );
  }
  return <div className="error" role="alert">{error instanceof Error ? error.message : String(error)}</div>;
}
