// What the request-log module holds for one server: the live tails open on it and, per
// workspace, its log (the ring of requests, the count in flight, who listens) and how far its
// file was written.
import type { Workspace } from '../../storage/workspace.js';
import type { BaseContext } from '../context.js';
import type { Tail } from './tail.js';
import type { WorkspaceTraffic } from './request-log.js';
import type { FileState } from './log-file.js';

export interface RequestLogState {
  tails: Set<Tail>;
  /** Each workspace's log, made with its first request (or its file read at start). */
  traffic: WeakMap<Workspace, WorkspaceTraffic>;
  /** How far each workspace's log file was written. */
  files: WeakMap<Workspace, FileState>;
}

export function create(_ctx: BaseContext): RequestLogState {
  return { tails: new Set(), traffic: new WeakMap(), files: new WeakMap() };
}
