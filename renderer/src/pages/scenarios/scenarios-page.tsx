// `/app/{app_id}/scenarios[/{id}]`: the scenarios of the workspace, paged through the list
// parameters, a new one created from a name (then edited on its own page), and one scenario's
// editor with its executions (scenario-detail.tsx).
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { ErrorBox } from '../../components/error-box';
import type { Scenario } from '../../data/types';
import { ListPage, type Column } from '../../components/list-page';
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
  const columns: Array<Column<Scenario>> = [
    { header: 'Name', cell: (s) => <><Link to={`/app/${appId}/scenarios/${s._id}`}>{s.name}</Link>{s.description ? <div className="muted small">{s.description}</div> : null}</> },
    { header: 'Trigger', cell: (s) => triggerSummary(s.trigger), td: { className: 'small' } },
    { header: 'Steps', cell: (s) => s.steps.length },
    { header: 'Status', cell: (s) => <span className={`badge ${s.active ? 'ok' : ''}`}>{s.active ? 'active' : 'inactive'}</span> },
    { header: 'Updated', cell: (s) => new Date(s.updatedAt).toLocaleString(), td: { className: 'muted small' } },
  ];
  return (
    <ListPage
      title="Scenarios"
      intro="Small automations: when an event, a schedule or a click happens, run steps (HTTP calls, record writes, chat messages, waits)."
      create={{ label: 'New scenario', onClick: () => setCreating(true) }}
      error={list.error}
      columns={columns} rows={list.data?.data} rowKey={(s) => s._id} empty="No scenario yet."
      page={list.data ? { total: list.data.meta.total, offset, limit, onOffset: setOffset, label: 'Scenario pages' } : undefined}
    >
      <Dialog open={creating} title="New scenario" onClose={() => setCreating(false)}>
        {creating ? <NewScenario appId={appId} /> : null}
      </Dialog>
    </ListPage>
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
