// Assembles a workspace's OpenAPI 3.1 document: the fixed groups (built once) plus, for each
// collection, its record paths and schemas (built per request from the current definitions).
import type { CollectionDef } from '../../shared/models.js';
import { addFilterParameters, errorResponses, json, listParameters, pathItem, type Schema } from './ops.js';
import { componentSchemas } from './schemas.js';
import { collectionPaths, collectionSchemas } from './records.js';
import { databasePaths } from './paths-database.js';
import { authPaths, usersPaths } from './paths-auth.js';
import { chatsPaths, storagePaths } from './paths-files-chats.js';
import { credentialsPaths, scenariosPaths, webhooksPaths } from './paths-automation.js';

export interface DocumentInput {
  /** `{base_url}`, e.g. `http://127.0.0.1:4700/api`, from the request's protocol and Host. */
  apiBase: string;
  workspace: string;
  version: string;
  collections: CollectionDef[];
}

const TAGS: Array<{ name: string; description: string }> = [
  { name: 'database: collections', description: 'Collections and their access settings (admin only)' },
  { name: 'database: records', description: 'Records of any collection, under its access rules (each collection also has its own tag below)' },
  { name: 'database: fields, views, indexes', description: 'A collection\'s schema (admin only)' },
  { name: 'auth', description: 'Self-service: registration, sign-in, tokens, password recovery, own profile; impersonation for admins' },
  { name: 'users', description: 'User administration (admin only)' },
  { name: 'storage', description: 'Files: simple and resumable (tus 1.0) uploads, information, downloads' },
  { name: 'chats', description: 'Channels, members and messages (live delivery over the realtime WebSocket)' },
  { name: 'webhooks', description: 'HTTP callbacks on events, with delivery logs (admin only)' },
  { name: 'scenarios', description: 'Automations: triggers and steps, executions (admin only)' },
  { name: 'credentials', description: 'Write-only secrets for scenarios (admin only)' },
  { name: 'meta', description: 'This document' },
];

let fixed: { paths: Record<string, Schema>; schemas: Record<string, Schema>; responses: Record<string, Schema>; parameters: Record<string, Schema> } | undefined;

/** The parts that do not depend on the workspace (converted from zod once). */
function fixedParts() {
  if (fixed) return fixed;
  fixed = {
    paths: {
      ...databasePaths(), ...authPaths(), ...usersPaths(), ...storagePaths(), ...chatsPaths(),
      ...webhooksPaths(), ...scenariosPaths(), ...credentialsPaths(),
      '/openapi.json': pathItem('/openapi.json', {
        get: {
          id: 'openapi', tag: 'meta', summary: 'This OpenAPI document', access: 'none', anyKey: true,
          description: 'Generated per request from the workspace\'s collections; no token needed (a bad one is still a 401). '
            + 'Its `ETag` changes with the schema: `If-None-Match` answers 304 while it has not changed.',
          params: [{ name: 'If-None-Match', in: 'header', schema: { type: 'string' } }],
          ok: [
            { ...json(200, 'OpenAPI 3.1 document', { type: 'object' }), headers: { ETag: { description: 'Changes with the document', schema: { type: 'string' } } } },
            { status: 304, description: 'Not modified (the ETag matched)' },
          ],
        },
      }),
    },
    schemas: componentSchemas(),
    responses: errorResponses(),
    parameters: listParameters(),
  };
  addFilterParameters(fixed.paths, fixed.schemas);
  return fixed;
}

export function buildDocument(input: DocumentInput): Schema {
  const base = fixedParts();
  const serverUrl = `${input.apiBase}/app/${encodeURIComponent(input.workspace)}`;
  const realtime = `${serverUrl.replace(/^http/, 'ws')}/realtime`;
  const paths: Record<string, Schema> = {};
  const schemas: Record<string, Schema> = { ...base.schemas };
  for (const [path, item] of Object.entries(base.paths)) {
    paths[path] = item;
    // Each collection's own paths come right after the generic record paths.
    if (path === '/database/{collection}/{id}') {
      for (const c of input.collections) Object.assign(paths, collectionPaths(c));
    }
  }
  for (const c of input.collections) Object.assign(schemas, collectionSchemas(c));

  return {
    openapi: '3.1.0',
    info: {
      title: `Homebase workspace ${input.workspace}`,
      version: input.version,
      description: description(input.workspace, realtime),
    },
    servers: [{ url: serverUrl, description: `Workspace ${input.workspace}` }],
    security: [{ bearerAuth: [] }, { apiKey: [] }],
    tags: [
      ...TAGS.slice(0, 2),
      ...input.collections.map((c) => ({ name: `records: ${c._id}`, description: `Records of ${c.name === c._id ? `\`${c._id}\`` : `\`${c._id}\` (${c.name})`}` })),
      ...TAGS.slice(2),
    ],
    paths,
    components: {
      schemas,
      responses: base.responses,
      parameters: base.parameters,
      securitySchemes: {
        bearerAuth: {
          type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
          description: 'Access token from `POST /auth/login` (or register, refresh, impersonate): `Authorization: Bearer <ACCESS_TOKEN>`.',
        },
        apiKey: {
          type: 'apiKey', in: 'header', name: 'X-API-Key',
          description: 'A workspace API key (`hbk_...`, made by an administrator), instead of a bearer token: it acts as its own principal, '
            + 'within its scopes (database:read/write, storage:read/write, chats:read/write, users:read/admin, automation:admin; '
            + 'a request outside them is a 403 naming the scope). `/auth` endpoints take no key.',
        },
        tokenQuery: {
          type: 'apiKey', in: 'query', name: 'token',
          description: 'The same access token as a query parameter, for downloads only (`<img src=".../download?token=...">`).',
        },
      },
    },
  };
}

function description(workspace: string, realtime: string): string {
  return [
    `The workspace API of \`${workspace}\` on a local Homebase server (the hosted Application Backend Service API, v1).`,
    '',
    '**Auth**: `Authorization: Bearer <ACCESS_TOKEN>` (JWT from `POST /auth/login`); a token present but bad is a 401 on every endpoint.',
    'Users, webhooks, scenarios, credentials and the collections\' schema need an administrator token; records follow their collection\'s `setting`.',
    '',
    '**Updates**: `PUT` is a partial update, and `PATCH` is accepted wherever `PUT` is, with the same meaning.',
    '',
    '**Lists** answer `{ data, meta: { total, limit, offset } }` and take `limit`, `offset`, `sort`, `fields` and `filter[...]`.',
    '',
    '**Errors**: `{ "error": { "code", "message", "details" } }` (schema `Error`).',
    '',
    `**Realtime**: WebSocket at \`${realtime}?token=<ACCESS_TOKEN>\`, JSON frames: `
      + 'send `{ "type": "subscribe", "topic": "chat:<channelId>" | "database:<collection>" }`, `unsubscribe`, '
      + '`{ "type": "message", "channelId", "text" }`; receive `subscribed`, `{ "type": "event", "topic", "event", "data" }` and '
      + '`{ "type": "error", "code", "message" }`. Access rules as in REST; the server pings every 30 s.',
    '',
    '**Resumable uploads**: tus 1.0 at `/storage/upload/tus`.',
  ].join('\n');
}
