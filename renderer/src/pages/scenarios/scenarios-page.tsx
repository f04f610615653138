// `/app/{app_id}/scenarios[/{id}]`: the scenarios of the workspace, paged through the list
// parameters, a new one created from a name (then edited on its own page), and one scenario's
// editor with its executions (scenario-detail.tsx).
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { TextField } from '../../components/text-field';
import { useScenariosQuery } from '../../data/scenarios/scenarios-query';
import { useScenarioCreateMutation } from '../../data/scenarios/scenario-create-mutation';
import { ScenarioDetail } from './scenario-detail';
import { TRIGGER_TYPES, blankTrigger, triggerSummary } from './model';

export function ScenariosPage() {
  const { appId = '', id } = useParams();
  return id ? <ScenarioDetail appId={appId} id={id} /> : <ScenarioList appId={appId} />;
}

function ScenarioList({ appId }: { appId: string }) {
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const limit = 50;
  const list = useScenariosQuery(appId, { limit, offset });
  return (
    <div className="stack">
      <div className="page-head" style={{ marginBottom: 0 }}>
        <div>
          <h1>Scenarios</h1>
          <p className="muted">Small automations: when an event, a schedule or a click happens, run steps (HTTP calls, record writes, chat messages, waits).</p>
        </div>
        <button type="button" className="primary" onClick={() => setCreating(true)}>New scenario</button>
      </div>
      <ErrorBox error={list.error} />
      <table className="list">
        <thead><tr><th scope="col">Name</th><th scope="col">Trigger</th><th scope="col">Steps</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
        <tbody>
          {list.data?.data.map((s) => (
            <tr key={s._id}>
              <td><Link to={`/app/${appId}/scenarios/${s._id}`}>{s.name}</Link>{s.description ? <div className="muted small">{s.description}</div> : null}</td>
              <td className="small">{triggerSummary(s.trigger)}</td>
              <td>{s.steps.length}</td>
              <td><span className={`badge ${s.active ? 'ok' : ''}`}>{s.active ? 'active' : 'inactive'}</span></td>
              <td className="muted small">{new Date(s.updatedAt).toLocaleString()}</td>
            </tr>
          ))}
          {list.data?.data.length === 0 ? <tr><td colSpan={5} className="muted">No scenario yet.</td></tr> : null}
        </tbody>
      </table>
      {list.data ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Scenario pages" /> : null}
      <Dialog open={creating} title="New scenario" onClose={() => setCreating(false)}>
        {creating ? <NewScenario appId={appId} /> : null}
      </Dialog>
    </div>
  );
}

/** Name and trigger type; new scenarios are inactive drafts, completed on their own page. */
function NewScenario({ appId }: { appId: string }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [trigger, setTrigger] = useState('manual');
  const create = useScenarioCreateMutation(appId, { onSuccess: (s) => navigate(`/app/${appId}/scenarios/${s._id}`) });
  const errs = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); create.mutate({ name, trigger: blankTrigger(trigger), steps: [] }); }}>
      <TextField label="Name" value={name} onChange={setName} error={errs.name} required />
      <label className="field">Trigger
        <select value={trigger} onChange={(e) => setTrigger(e.target.value)}>
          {TRIGGER_TYPES.map((t) => <option key={t} value={t}>{t === 'manual' ? 'Manual (Run now only)' : t === 'event' ? 'On events' : 'On a schedule'}</option>)}
        </select>
      </label>
      <p className="hint" style={{ margin: 0 }}>It starts inactive; add its steps on the next page, then activate it.</p>
      <ErrorBox error={create.error} />
      <div className="form-actions"><button type="submit" className="primary" disabled={create.isPending}>Create scenario</button></div>
    </form>
  );
}
