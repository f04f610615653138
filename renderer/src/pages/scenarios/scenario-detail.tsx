// `/app/{app_id}/scenarios/{id}`: one scenario's editor (name, trigger, steps as forms or as
// JSON), its actions (save, activate / deactivate, run now, delete) and its executions. A 422
// from any action is shown where it belongs: at its step, at the trigger, or at the top.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useScenarioQuery } from '../../data/scenarios/scenario-query';
import { invalidateExecutions, runScenario, setScenarioActive, storeScenario, updateScenario } from '../../data/scenarios/scenario-actions';
import { useScenarioDeleteMutation } from '../../data/scenarios/scenario-delete-mutation';
import { getNewestRecord } from '../../data/records/newest-record';
import { ErrorBox } from '../../components/error-box';
import { JsonEditor } from '../../components/json-field';
import { TextField } from '../../components/text-field';
import { Dialog } from '../../components/dialog';
import { tryParse } from '../../lib/json';
import { sampleEvent } from './sample-event';
import { Executions } from './executions';
import { StepCard } from './step-form';
import { TriggerForm } from './trigger-form';
import {
  STEP_TYPES, blankStep, bodyOf, draftFromJson, draftOf, draftToJson, hasProblems, localProblems, placeErrors, messageFor,
  type Draft, type PlacedErrors, type Scenario,
} from './model';

export function ScenarioDetail({ appId, id }: { appId: string; id: string }) {
  const one = useScenarioQuery(appId, id);
  if (!one.data) {
    return (
      <div className="stack">
        <div className="muted small"><Link to={`/app/${appId}/scenarios`}>Scenarios</Link> /</div>
        {one.error ? <ErrorBox error={one.error} /> : <p className="muted">Loading…</p>}
      </div>
    );
  }
  return <Workbench key={id} appId={appId} initial={one.data} />;
}

function Workbench({ appId, initial }: { appId: string; initial: Scenario }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const id = initial._id;
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  // Bumped when the forms must start again from the draft (JSON view applied, steps moved).
  const [version, setVersion] = useState(0);
  const [view, setView] = useState<'form' | 'json'>('form');
  const [jsonText, setJsonText] = useState('');
  const [jsonError, setJsonError] = useState<string | undefined>();
  const [problem, setProblem] = useState<unknown>(null);
  const [addType, setAddType] = useState<string>('http');

  const local = localProblems(draft);
  const placed = hasProblems(local) ? merge(local, placeErrors(problem)) : placeErrors(problem);
  const dirty = JSON.stringify(bodyOf(draft)) !== JSON.stringify(bodyOf(draftOf(saved)));
  const stored = (s: Scenario) => {
    setSaved(s);
    storeScenario(qc, appId, s);
  };

  /** Saves the draft when it changed; false when it could not (the problem is shown). */
  const saveIfNeeded = async (): Promise<boolean> => {
    if (view === 'json' && jsonError) { setProblem(new Error(`The JSON view does not hold a valid scenario: ${jsonError}`)); return false; }
    if (hasProblems(local)) { setProblem(new Error('Some fields do not hold valid JSON: see the steps marked below.')); return false; }
    if (!dirty) return true;
    stored(await updateScenario(appId, id, bodyOf(draft)));
    return true;
  };
  const act = useMutation({
    mutationFn: async (what: 'save' | 'activate' | 'deactivate' | 'run' | 'run-event') => {
      setProblem(null);
      if (what !== 'deactivate' && !(await saveIfNeeded())) return;
      if (what === 'activate' || what === 'deactivate') stored(await setScenarioActive(appId, id, what));
      if (what === 'run') await runScenario(appId, id);
      if (what === 'run-event') {
        const parsed = tryParse(sampleText);
        if (parsed.error || !parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) throw new Error(`The sample event must be a JSON object${parsed.error ? `: ${parsed.error}` : ''}`);
        setSampleOpen(false);
        await runScenario(appId, id, parsed.value as Record<string, unknown>);
      }
    },
    onError: (e) => setProblem(e),
    onSettled: () => invalidateExecutions(qc, appId, id),
  });
  const del = useScenarioDeleteMutation(appId, { onSuccess: () => navigate(`/app/${appId}/scenarios`) });

  const change = (d: Draft) => setDraft(d);
  const setSteps = (steps: Draft['steps'], remount = false) => { setDraft({ ...draft, steps }); if (remount) setVersion(version + 1); };
  const toJson = () => {
    if (hasProblems(local)) { setProblem(new Error('Fix the fields that do not hold valid JSON before opening the JSON view.')); return; }
    setJsonText(draftToJson(draft));
    setJsonError(undefined);
    setView('json');
  };
  const toForm = () => {
    if (jsonError) return;
    setVersion(version + 1);
    setView('form');
  };
  const onJson = (text: string) => {
    setJsonText(text);
    const parsed = draftFromJson(text);
    setJsonError(parsed.error);
    if (parsed.draft) setDraft(parsed.draft);
  };
  const running = act.isPending && (act.variables === 'run' || act.variables === 'run-event');
  // "Run now" on an event trigger first asks for the event, prefilled from the trigger (and the
  // newest record of its collection, when it has one).
  const [sampleOpen, setSampleOpen] = useState(false);
  const [sampleText, setSampleText] = useState('');
  const byEvent = draft.trigger.type === 'event';
  const openSample = async () => {
    setProblem(null);
    let record: Record<string, unknown> | undefined;
    const collection = (draft.trigger as { filter?: { collection?: string } }).filter?.collection;
    if (collection) {
      record = await getNewestRecord(appId, collection);
    }
    setSampleText(JSON.stringify(sampleEvent(draft, record), null, 2));
    setSampleOpen(true);
  };

  return (
    <div className="stack">
      <div className="page-head" style={{ marginBottom: 0 }}>
        <div>
          <div className="muted small"><Link to={`/app/${appId}/scenarios`}>Scenarios</Link> /</div>
          <h1>{saved.name} <span className={`badge ${saved.active ? 'ok' : ''}`}>{saved.active ? 'active' : 'inactive'}</span></h1>
          <p className="muted small" style={{ margin: 0 }}>{dirty ? 'Unsaved changes: Activate and Run now save them first.' : 'All changes saved.'}</p>
        </div>
        <div className="toolbar">
          <button type="button" onClick={() => act.mutate('save')} disabled={act.isPending || !dirty}>Save</button>
          {saved.active
            ? <button type="button" onClick={() => act.mutate('deactivate')} disabled={act.isPending}>Deactivate</button>
            : <button type="button" onClick={() => act.mutate('activate')} disabled={act.isPending}>Activate</button>}
          <button type="button" className="primary" onClick={() => (byEvent ? void openSample() : act.mutate('run'))} disabled={act.isPending}>{running ? 'Running…' : byEvent ? 'Run now…' : 'Run now'}</button>
          <button type="button" onClick={() => { if (confirm('Delete this scenario and all its executions?')) del.mutate(id); }}>Delete</button>
        </div>
      </div>
      <ErrorBox error={problem ?? del.error} />
      <Dialog open={sampleOpen} title="Run with a sample event" onClose={() => setSampleOpen(false)} wide>
        <form className="form" onSubmit={(e) => { e.preventDefault(); act.mutate('run-event'); }}>
          <p className="muted">The steps read this event through <code>{'{{event...}}'}</code> as if the trigger had fired: <code>type</code>, <code>collection</code> and <code>data</code> (prefilled from the trigger{(draft.trigger as { filter?: { collection?: string } }).filter?.collection ? ' and the newest record of its collection' : ''}; edit them freely). Unsaved changes are saved first.</p>
          <JsonEditor label="Sample event (JSON)" value={sampleText} onChange={setSampleText} minHeight={200} />
          <div className="form-actions"><button type="submit" className="primary" disabled={act.isPending}>Run with this event</button></div>
        </form>
      </Dialog>
      {placed.scenario.length ? (
        <div role="alert" aria-label="Problems of the scenario"><ul className="field-error" style={{ margin: 0, paddingLeft: 18 }}>
          {placed.scenario.map((p) => <li key={p.field + p.message}>{p.message}</li>)}
        </ul></div>
      ) : null}

      <div className="tabs" role="tablist" aria-label="Editor view">
        <button type="button" role="tab" aria-selected={view === 'form'} onClick={toForm} disabled={view === 'json' && !!jsonError}>Form</button>
        <button type="button" role="tab" aria-selected={view === 'json'} onClick={() => view === 'form' && toJson()}>JSON</button>
      </div>

      {view === 'json' ? (
        <div className="stack">
          <JsonEditor label="Scenario as JSON" value={jsonText} onChange={onJson} minHeight={320} />
          {jsonError ? <p className="field-error" role="alert" style={{ margin: 0 }}>{jsonError}</p> : <p className="hint" style={{ margin: 0 }}>name, description, trigger and steps, exactly as the API takes them.</p>}
        </div>
      ) : (
        <div className="stack" key={version}>
          <div className="grid-2">
            <TextField label="Name" value={draft.name} onChange={(name) => change({ ...draft, name })} required error={messageFor(placed.scenario.map((p) => ({ ...p, sub: p.field })), 'name')} />
            <TextField label="Description" value={draft.description} onChange={(description) => change({ ...draft, description })} />
          </div>
          <TriggerForm trigger={draft.trigger} problems={placed.trigger} onChange={(trigger) => change({ ...draft, trigger })} />
          <h2 style={{ margin: '8px 0 0' }}>Steps</h2>
          {draft.steps.length === 0 ? <p className="muted" style={{ margin: 0 }}>No step yet: a scenario needs at least one to be activated or run.</p> : null}
          {draft.steps.map((s, i) => (
            <StepCard key={`${version}-${i}`} index={i} count={draft.steps.length} step={s} problems={placed.steps.get(i)}
              onChange={(next) => setSteps(draft.steps.map((x, j) => (j === i ? next : x)))}
              onType={(type) => setSteps(draft.steps.map((x, j) => (j === i ? blankStep(type) : x)), true)}
              onMove={(d) => { const next = [...draft.steps]; [next[i], next[i + d]] = [next[i + d], next[i]]; setSteps(next, true); }}
              onRemove={() => setSteps(draft.steps.filter((_, j) => j !== i), true)} />
          ))}
          <div className="row">
            <label className="check">New step
              <select value={addType} onChange={(e) => setAddType(e.target.value)}>
                {STEP_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
              </select>
            </label>
            <button type="button" onClick={() => setSteps([...draft.steps, blankStep(addType)])}>Add step</button>
          </div>
        </div>
      )}

      <Executions appId={appId} scenarioId={id} steps={saved.steps} running={running} />
    </div>
  );
}

function merge(a: PlacedErrors, b: PlacedErrors): PlacedErrors {
  const steps = new Map(a.steps);
  for (const [i, list] of b.steps) steps.set(i, [...(steps.get(i) ?? []), ...list]);
  return { trigger: [...a.trigger, ...b.trigger], steps, scenario: [...a.scenario, ...b.scenario] };
}
