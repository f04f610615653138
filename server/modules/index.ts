// The API groups, in mount order. One line per module: app.ts binds them all.
import type { Module } from './context.js';
import { workspacesModule } from './workspaces/routes.js';
import { requestLogModule } from './request-log/routes.js';
import { openapiModule } from './openapi/routes.js';
import { authModule } from './auth/routes.js';
import { usersModule } from './users/routes.js';
import { databaseModule } from './database/routes.js';
import { storageModule } from './storage/routes.js';
import { chatsModule } from './chats/routes.js';
import { realtimeModule } from './realtime/routes.js';
import { webhooksModule } from './webhooks/routes.js';
import { scenariosModule } from './scenarios/routes.js';
import { credentialsModule } from './credentials/routes.js';
import { clockModule } from './clock/routes.js';
import { faultsModule } from './faults/routes.js';

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
