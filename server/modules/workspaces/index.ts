// The workspaces module's public face: creating, resetting, snapshotting, exporting and seeding
// workspaces, the console routes for them, and the offline commands of the CLI. Other modules and
// the app import this file only.
export { create, type WorkspacesState } from './memory.js';
export { createWorkspace, generatePassword, mintAdminToken } from './service.js';
export { resetWorkspace, type ResetOptions, type ResetResult } from './reset.js';
export { restoreSnapshot, takeSnapshot, type SnapshotInfo } from './snapshots.js';
export { applySeed, readSeed } from './seed.js';
export { DumpFileError } from '../../core/dump-file-error.js';
export { exportFromFolder, importIntoFolder, OfflineError, withDataFolder } from './offline.js';
export { touchWorkspace } from './fork-ttl.js';
export { afterFirstAdmin, createFirstWorkspace, firstAdminStored } from './first-admin.js';
export { workspacesModule } from './routes.js';
