// Reset: back to a fresh workspace holding only its first admin (or, when that one is gone or
// no longer an admin, the oldest remaining admin). Records, users, files (bytes
// too), chats, deliveries, logs, executions, outbox and the request log go; with keepSchema the
// collections (fields, views, indexes) and the config-like stores (webhooks, scenarios, secrets)
// stay. Generic over stores: whatever a module adds is wiped unless listed here.
import type { AppContext } from '../context.js';
import type { Doc } from '../../storage/query.js';
import type { Workspace } from '../../storage/workspace.js';
import { applyState, exclusive, whileBusy, type WorkspaceState } from './state.js';
import { clearRequestLog } from '../request-log/index.js';

/** Definitions rather than data: kept by a reset with keepSchema, wiped by a plain one. */
export const CONFIG_STORES = ['webhooks', 'scenarios', 'credentials'];

export interface ResetOptions { keepSchema?: boolean }

export interface ResetResult { keepSchema: boolean; firstAdminId: string | null }

export function resetWorkspace(ctx: AppContext, ws: Workspace, options: ResetOptions = {}): Promise<ResetResult> {
  const keepSchema = !!options.keepSchema;
  return exclusive(ctx, ws, () => whileBusy(ctx, ws, async () => {
    const settings = structuredClone(ws.settings.data);
    if (!keepSchema) settings.collections = [];
    const users = await (await ws.store('users')).all();
    // The first admin stays, or (it was deleted or demoted) the oldest remaining admin, which
    // becomes the first admin; a workspace created without one keeps its admins.
    let kept: Doc[];
    if (settings.firstAdminId) {
      const first = users.find((u) => u._id === settings.firstAdminId && u.role === 'admin') ?? oldestAdmin(users)
        ?? users.find((u) => u._id === settings.firstAdminId);
      kept = first ? [first] : [];
      if (first) settings.firstAdminId = first._id;
    } else {
      kept = users.filter((u) => u.role === 'admin');
    }
    const stores = new Map<string, Doc[]>([['users', kept]]);
    for (const c of settings.collections) stores.set(`collections/${c._id}`, []);
    const state: WorkspaceState = { settings, stores, files: new Map(), keep: new Set(keepSchema ? CONFIG_STORES : []) };
    await applyState(ctx, ws, state);
    // Sessions of removed users die (they already fail verification); the admin's live on, so a
    // suite's admin token survives the reset.
    const keptIds = kept.map((u) => u._id);
    await (await ws.store('sessions')).removeWhere([{ path: 'userId', op: '$nin', values: keptIds }]);
    clearRequestLog(ctx, ws);
    return { keepSchema, firstAdminId: settings.firstAdminId ?? null };
  }));
}

function oldestAdmin(users: Doc[]): Doc | undefined {
  return users.filter((u) => u.role === 'admin')
    .sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)) || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))[0];
}
