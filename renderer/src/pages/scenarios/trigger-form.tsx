// A scenario's trigger as a form: manual, on events (the contract's kinds, a collection filter),
// or on a cron schedule; the server's problems about it shown in place.
import { TextField } from '../../components/text-field';
import { EVENT_TYPES } from '../../../../server/shared/events';
import { TRIGGER_TYPES, blankTrigger, isObject, messageFor, type FieldProblem, type Trigger } from './model';

const PATTERNS = ['*', 'record.*', 'user.*', 'file.*', 'message.*', 'channel.*', ...EVENT_TYPES];
const LABELS: Record<string, string> = { manual: 'Manual (Run now only)', event: 'On events', schedule: 'On a schedule' };

export function TriggerForm({ trigger, problems, onChange }: { trigger: Trigger; problems: Array<FieldProblem & { sub: string }>; onChange: (t: Trigger) => void }) {
  const set = (k: string, v: unknown) => {
    const next = { ...trigger };
    if (v === undefined) delete next[k]; else next[k] = v;
    onChange(next);
  };
  const events = Array.isArray(trigger.events) ? (trigger.events as string[]) : [];
  const collection = isObject(trigger.filter) && typeof trigger.filter.collection === 'string' ? trigger.filter.collection : '';
  return (
    <fieldset className="card stack">
      <legend>Trigger</legend>
      {problems.length ? (
        <div role="alert" aria-label="Problems of the trigger"><ul className="field-error" style={{ margin: 0, paddingLeft: 18 }}>
          {problems.map((p) => <li key={p.field + p.message}>{p.message}</li>)}
        </ul></div>
      ) : null}
      <label className="check">When
        <select value={trigger.type} onChange={(e) => onChange(blankTrigger(e.target.value))}>
          {(TRIGGER_TYPES as readonly string[]).includes(trigger.type) ? null : <option value={trigger.type}>{trigger.type}</option>}
          {TRIGGER_TYPES.map((t) => <option key={t} value={t}>{LABELS[t]}</option>)}
        </select>
      </label>
      {trigger.type === 'event' ? (
        <>
          <fieldset>
            <legend>Events</legend>
            <div className="grid-2" style={{ gridTemplateColumns: 'repeat(auto-fill, minmax(160px, 1fr))', gap: 4 }}>
              {PATTERNS.map((p) => (
                <label key={p} className="check">
                  <input type="checkbox" checked={events.includes(p)} onChange={(e) => set('events', e.target.checked ? [...events, p] : events.filter((x) => x !== p))} /> <code>{p}</code>
                </label>
              ))}
            </div>
            {messageFor(problems, 'events') ? <span className="field-error">{messageFor(problems, 'events')}</span> : null}
          </fieldset>
          <TextField label="Only for collection" value={collection} onChange={(v) => set('filter', v ? { collection: v } : undefined)}
            error={messageFor(problems, 'filter')} hint="Optional: record events of this collection only." />
        </>
      ) : null}
      {trigger.type === 'schedule' ? (
        <div className="grid-2">
          <TextField label="Cron" value={typeof trigger.cron === 'string' ? trigger.cron : ''} onChange={(v) => set('cron', v)} required
            error={messageFor(problems, 'cron')} hint="5 fields (minute hour day month weekday), or 6 with seconds first: */5 * * * *" />
          <TextField label="Time zone" value={typeof trigger.timezone === 'string' ? trigger.timezone : ''} onChange={(v) => set('timezone', v || undefined)}
            error={messageFor(problems, 'timezone')} hint="Optional, e.g. Europe/Paris; the server's otherwise." />
        </div>
      ) : null}
      {trigger.type === 'manual' ? <p className="muted small" style={{ margin: 0 }}>Runs only when you press Run now (or call POST /scenarios/{'{id}'}/run).</p> : null}
    </fieldset>
  );
}
