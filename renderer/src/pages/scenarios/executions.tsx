// A scenario's executions, newest first and paged, with one execution's steps (status, output,
// error). Polled: every second while one is running or a run was just asked for, every 5 s
// otherwise (event and schedule runs start on their own). The executions API has no push.
import { useState } from 'react';
import { ErrorBox } from '../../components/error-box';
import { Pager } from '../../components/pager';
import { useExecutionsQuery } from '../../data/scenarios/executions-query';
import { stepStatuses, type Execution, type Step } from './model';

const BADGE: Record<string, string> = { succeeded: 'ok', failed: 'bad' };

export function Executions({ appId, scenarioId, steps, running }: { appId: string; scenarioId: string; steps: Step[]; running: boolean }) {
  const [offset, setOffset] = useState(0);
  const [openId, setOpenId] = useState<string | null>(null);
  const limit = 20;
  const list = useExecutionsQuery(appId, scenarioId, { limit, offset }, running);
  const rows = list.data?.data ?? [];
  // The chosen execution, else the newest: a run just started shows itself.
  const shown = rows.find((e) => e._id === openId) ?? (offset === 0 ? rows[0] : undefined);
  return (
    <section className="stack" aria-labelledby="executions-title">
      <h2 id="executions-title">Executions</h2>
      <ErrorBox error={list.error} />
      <div className="table-wrap">
        <table className="list">
          <thead><tr><th scope="col">Started</th><th scope="col">Trigger</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Error</th><th scope="col">Steps</th></tr></thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e._id} className={shown?._id === e._id ? "selected" : undefined}>
                <td className="small">{new Date(e.startedAt).toLocaleString()}</td>
                <td><code>{String(e.trigger?.type ?? '')}</code></td>
                <td><span className={`badge ${BADGE[e.status] ?? ''}`}>{e.status}</span></td>
                <td>{e.durationMs !== null ? `${e.durationMs} ms` : '…'}</td>
                <td className="small">{e.error ?? ''}</td>
                <td><button type="button" className="small" onClick={() => setOpenId(e._id)} aria-label={`Steps of the execution started ${new Date(e.startedAt).toLocaleTimeString()}`}>Open</button></td>
              </tr>
            ))}
            {rows.length === 0 ? <tr><td colSpan={6} className="muted">No execution yet. Press Run now, or activate the scenario and let its trigger fire.</td></tr> : null}
          </tbody>
        </table>
      </div>
      {list.data ? <Pager total={list.data.meta.total} offset={offset} limit={limit} onOffset={setOffset} label="Execution pages" /> : null}
      {shown ? <ExecutionSteps exec={shown} steps={steps} /> : null}
    </section>
  );
}

function ExecutionSteps({ exec, steps }: { exec: Execution; steps: Step[] }) {
  const title = `Execution of ${new Date(exec.startedAt).toLocaleString()}`;
  return (
    <section className="card stack" aria-label={title} aria-live="polite">
      <h3 style={{ margin: 0 }}>{title} <span className={`badge ${BADGE[exec.status] ?? ''}`}>{exec.status}</span></h3>
      {exec.error ? <p className="field-error" style={{ margin: 0 }}>{exec.error}</p> : null}
      <ol className="stack" style={{ listStyle: 'none', paddingLeft: 0, margin: 0 }}>
        {stepStatuses(exec, steps).map((s, i) => (
          <li key={i} aria-label={`Step ${i + 1} ${s.type}: ${s.status}`}>
            <div className="row"><strong>Step {i + 1}</strong> <code>{s.type}</code> <span className={`badge ${BADGE[s.status] ?? ''}`}>{s.status}</span></div>
            {s.error ? <p className="field-error" style={{ margin: '4px 0' }}>{s.error}</p> : null}
            {s.output !== null && s.output !== undefined ? (
              <details>
                <summary>Output</summary>
                <pre style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{JSON.stringify(s.output, null, 2)}</pre>
              </details>
            ) : null}
          </li>
        ))}
        {exec.steps.length === 0 && exec.status !== 'running' ? <li className="muted">No step ran.</li> : null}
      </ol>
    </section>
  );
}
