// What the storage module holds for one server: its file service (the workspaces' file areas,
// the uploads in flight) and its tus server, made on first use.
import type { BaseContext } from '../context.js';
import type { StorageService } from './service.js';
import type { TusUploads } from './tus.js';

export interface StorageState { service?: StorageService; tus?: TusUploads }

export function create(_ctx: BaseContext): StorageState {
  return {};
}
