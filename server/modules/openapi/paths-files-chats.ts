// Paths of the storage group (simple upload, tus 1.0, files, downloads) and the
// chats group (channels, members, messages).
import { json, noContent, pageOf, pathItem, ref, type OpSpec, type Schema, type Success } from './ops.js';
import { crudPaths, itemPath, type Resource } from './crud-paths.js';

const STORAGE = 'storage';
const CHATS = 'chats';

const header = (description: string, type = 'string'): Schema => ({ description, schema: { type } });
const TUS_RESUMABLE = { name: 'Tus-Resumable', in: 'header', required: true, schema: { type: 'string', enum: ['1.0.0'] } };
/** The tus-only statuses (410 expired, 412 version) keep the tus server's plain-text bodies
 *  (docs/storage.md); every other error is the JSON error body, as everywhere. */
const tusError = (status: number, description: string): Success => ({ status, description, content: { 'text/plain': { schema: { type: 'string' } } } });
/** The tus statuses that carry the JSON error body: a bad or missing header (400), an offset
 *  that does not match (409), bytes past `Upload-Length` (413), a chunk not `application/offset+octet-stream` (415). */
const TUS_JSON_ERRORS = [400, 409, 413, 415];

export function storagePaths(): Record<string, Schema> {
  return {
    '/storage/upload': pathItem('/storage/upload', {
      post: {
        id: 'storage.upload', tag: STORAGE, summary: 'Upload a file (multipart)', access: 'user',
        description: 'Multipart form data with a part named `file` (streamed to disk). No `file` part is a 422 `{ field: "file", reason: "required" }`; '
          + 'over 50 MiB (configurable) a 413: use tus for large files.',
        rawBody: {
          required: true,
          content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } } },
        },
        ok: json(201, 'The file object', ref('File')), errors: [400, 413, 415, 422],
      },
    }),
    '/storage/upload/tus': pathItem('/storage/upload/tus', {
      post: {
        id: 'storage.tus.create', tag: STORAGE, summary: 'Create a resumable upload (tus 1.0)', access: 'user',
        description: 'tus 1.0 with the creation, creation-with-upload, creation-defer-length, termination and expiration extensions. '
          + 'Send `Upload-Length` (or `Upload-Defer-Length: 1`) and `Upload-Metadata` (`filename`, `filetype`, base64 values). '
          + 'A body of type `application/offset+octet-stream` is the first chunk. The bearer token is needed on every tus request. '
          + 'On completion the file object exists with `_id` = the upload id.',
        params: [
          TUS_RESUMABLE,
          { name: 'Upload-Length', in: 'header', schema: { type: 'integer', minimum: 0 } },
          { name: 'Upload-Defer-Length', in: 'header', schema: { type: 'string', enum: ['1'] } },
          { name: 'Upload-Metadata', in: 'header', schema: { type: 'string' }, example: 'filename cGhvdG8uanBn,filetype aW1hZ2UvanBlZw==' },
        ],
        rawBody: { required: false, content: { 'application/offset+octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        ok: [
          { status: 201, description: 'Created', headers: { Location: header('`{base_url}/app/{app_id}/storage/upload/tus/{uploadId}`'), 'Upload-Expires': header('When an unfinished upload expires'), 'Upload-Offset': header('Bytes received (creation-with-upload)', 'integer') } },
          tusError(412, 'Missing or unsupported Tus-Resumable'),
        ],
        errors: TUS_JSON_ERRORS,
      },
      options: {
        id: 'storage.tus.options', tag: STORAGE, summary: 'tus capabilities', access: 'none',
        ok: { status: 204, description: 'Tus-Version and Tus-Extension headers', headers: { 'Tus-Version': header('1.0.0'), 'Tus-Extension': header('Supported extensions') } },
      },
    }),
    '/storage/upload/tus/{uploadId}': pathItem('/storage/upload/tus/{uploadId}', {
      head: {
        id: 'storage.tus.offset', tag: STORAGE, summary: 'How much of an upload the server has', access: 'user',
        description: 'Only the uploader (or an admin) may continue an upload. A finished upload is no longer a tus resource (404).',
        params: [TUS_RESUMABLE],
        ok: [
          { status: 200, description: 'The upload\'s state', headers: { 'Upload-Offset': header('Bytes received', 'integer'), 'Upload-Length': header('Total bytes', 'integer') } },
          tusError(410, 'Expired'),
          tusError(412, 'Missing or unsupported Tus-Resumable'),
        ],
        errors: [403],
      },
      patch: {
        id: 'storage.tus.append', tag: STORAGE, summary: 'Append a chunk', access: 'user',
        params: [TUS_RESUMABLE, { name: 'Upload-Offset', in: 'header', required: true, schema: { type: 'integer', minimum: 0 } }],
        rawBody: { required: true, content: { 'application/offset+octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        ok: [
          { status: 204, description: 'Chunk stored; the last one creates the file object', headers: { 'Upload-Offset': header('Bytes received', 'integer') } },
          tusError(410, 'Expired'),
          tusError(412, 'Missing or unsupported Tus-Resumable'),
        ],
        errors: [403, ...TUS_JSON_ERRORS],
      },
      delete: {
        id: 'storage.tus.terminate', tag: STORAGE, summary: 'Terminate an unfinished upload', access: 'user', params: [TUS_RESUMABLE],
        ok: [noContent('Terminated'), tusError(410, 'Expired'), tusError(412, 'Missing or unsupported Tus-Resumable')], errors: [403, 400],
      },
    }),
    '/storage': pathItem('/storage', {
      get: {
        id: 'storage.list', tag: STORAGE, summary: 'List files', access: 'user', list: true,
        ok: json(200, 'A page of file objects', pageOf('File')),
      },
    }),
    '/storage/{id}': pathItem('/storage/{id}', {
      get: { id: 'storage.get', tag: STORAGE, summary: 'File information', access: 'user', ok: json(200, 'The file object', ref('File')) },
      delete: {
        id: 'storage.delete', tag: STORAGE, summary: 'Delete a file', access: 'user', description: 'The owner or an admin; the bytes go too.',
        ok: noContent('Deleted'), errors: [403],
      },
    }),
    '/storage/{id}/download': pathItem('/storage/{id}/download', {
      get: download('storage.download', 'Download the file'),
      head: { ...download('storage.download.head', 'The download\'s headers, without the body') },
    }),
  };
}

function download(id: string, summary: string): OpSpec {
  const headers = { ETag: header('Strong validator'), 'Content-Disposition': header('inline or attachment, with the file name'), 'Content-Length': header('Bytes', 'integer') };
  return {
    id, tag: STORAGE, summary, access: 'user',
    description: 'Honours `Range` (206, 416) and `If-None-Match` (304). `?token=<ACCESS_TOKEN>` may replace the Authorization header (for `<img src>`): the `tokenQuery` scheme.',
    security: [{ bearerAuth: [] }, { apiKey: [] }, { tokenQuery: [] }],
    params: [
      { name: 'Range', in: 'header', schema: { type: 'string' }, example: 'bytes=0-1023' },
      { name: 'If-None-Match', in: 'header', schema: { type: 'string' } },
    ],
    ok: [
      { status: 200, description: 'The bytes, with the stored Content-Type', headers, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
      { status: 206, description: 'The requested range', headers: { ...headers, 'Content-Range': header('bytes a-b/size') }, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
      { status: 304, description: 'Not modified (ETag matched)' },
      { status: 416, description: 'Range not satisfiable (`Content-Range: bytes */size`, no body)' },
    ],
  };
}

export function chatsPaths(): Record<string, Schema> {
  const channel: Resource = { id: 'chats.channels', tag: CHATS, access: 'user', noun: 'channel', schema: 'Channel' };
  const message: Resource = { id: 'chats.messages', tag: CHATS, access: 'user', noun: 'message', schema: 'Message' };
  return {
    ...crudPaths('/chats/channels', channel, {
      list: { summary: 'List my channels (all, for an admin)' },
      create: {
        description: 'The creator is a member (and the owner). A second direct channel between the same two users is a 409.',
        body: ref('ChannelCreate'), bodyRequired: false, errors: [409],
      },
      get: { errors: [403] },
      update: { summary: 'Update channel settings', description: 'The channel owner or an admin.', body: ref('ChannelUpdate'), errors: [403] },
      remove: { description: 'The channel owner or an admin.', errors: [403] },
    }),
    '/chats/messages/{id}': itemPath('/chats/messages/{id}', message, {
      get: { errors: [403] },
      update: { summary: 'Edit a message', description: 'The author only.', body: ref('MessageUpdate'), errors: [403] },
      remove: { description: 'The author or an admin.', errors: [403] },
    }),
    '/chats/{channelId}/messages': pathItem('/chats/{channelId}/messages', {
      get: {
        id: 'chats.messages.list', tag: CHATS, summary: 'List a channel\'s messages (newest first)', access: 'user', list: true,
        description: 'Members and admins.', ok: json(200, 'A page of messages', pageOf('Message')), errors: [403],
      },
      post: {
        id: 'chats.messages.create', tag: CHATS, summary: 'Post a message', access: 'user', description: 'Members and admins.',
        body: ref('MessageCreate'), ok: json(201, 'The message', ref('Message')), errors: [403],
      },
    }),
    '/chats/{channelId}/members': pathItem('/chats/{channelId}/members', {
      get: {
        id: 'chats.members.list', tag: CHATS, summary: 'List a channel\'s members', access: 'user', list: true,
        ok: json(200, 'A page of member entries', pageOf('Member')), errors: [403],
      },
      post: {
        id: 'chats.members.add', tag: CHATS, summary: 'Add a member', access: 'user', description: 'The channel owner or an admin; an existing member is a 409.',
        body: ref('MemberAdd'), ok: json(201, 'The member entry', ref('Member')), errors: [403, 409],
      },
    }),
    '/chats/{channelId}/members/{userId}': pathItem('/chats/{channelId}/members/{userId}', {
      delete: {
        id: 'chats.members.remove', tag: CHATS, summary: 'Remove a member', access: 'user', description: 'The channel owner, an admin, or the member himself.',
        ok: noContent('Removed'), errors: [403],
      },
    }),
  };
}
