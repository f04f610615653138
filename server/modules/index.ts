// The API groups, in mount order. One line per module: app.ts binds them all.
import type { Module } from './context.js';
import { workspacesModule } from './workspaces/index.js';
import { requestLogModule } from './request-log/index.js';
import { openapiModule } from './openapi/index.js';
import { authModule } from './auth/index.js';
import { usersModule } from './users/index.js';
import { databaseModule } from './database/index.js';
import { storageModule } from './storage/index.js';
import { chatsModule } from './chats/index.js';
import { realtimeModule } from './realtime/index.js';
import { webhooksModule } from './webhooks/index.js';
import { scenariosModule } from './scenarios/index.js';
import { credentialsModule } from './credentials/index.js';
import { clockModule } from './clock/index.js';
import { faultsModule } from './faults/index.js';

export const modules: Module[] = [
  workspacesModule,
  requestLogModule,
  openapiModule,
  authModule,
  usersModule,
  databaseModule,
  storageModule,
  chatsModule,
  realtimeModule,
  webhooksModule,
  scenariosModule,
  credentialsModule,
  clockModule,
  faultsModule,
];
