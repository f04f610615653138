// The v2 document's access paths: the API keys and OAuth clients an administrator manages, the
// OAuth 2.0 protocol endpoints (answered as RFC 6749 says, outside the envelope), the GraphQL
// endpoint, and the `oauth2` security scheme with the workspace's own URLs and scopes.
import type { Schema } from '../modules/openapi/index.js';
import { API_KEY_SCOPES } from '../modules/api-keys/index.js';

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string): Schema => ({ $ref: `#/components/responses/${name}` });
const header = (name: string): Schema => ({ $ref: `#/components/headers/${name}` });
const RATE_HEADERS = { 'X-RateLimit-Limit': header('XRateLimitLimit'), 'X-RateLimit-Remaining': header('XRateLimitRemaining'), 'X-RateLimit-Reset': header('XRateLimitReset') };
const ADMIN_SECURITY = [{ bearerAuth: [] }];
const str = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };

const SCOPE_TEXT: Record<(typeof API_KEY_SCOPES)[number], string> = {
  'database:read': 'Read collections and records',
  'database:write': 'Create, change and delete collections and records',
  'storage:read': 'Read and download files',
  'storage:write': 'Upload, change and delete files',
  'chats:read': 'Read channels and messages',
  'chats:write': 'Post and change channels and messages',
  'users:read': 'Read the workspace\'s users',
  'users:admin': 'Manage the workspace\'s users',
  'automation:admin': 'Manage webhooks, scenarios and credentials',
};

function one(data: Schema, status: string, description: string): Schema {
  return {
    description, headers: { ...RATE_HEADERS, ...(status === '201' ? { Location: header('Location') } : { ETag: header('ETag'), 'Cache-Control': header('CacheControl') }) },
    content: { 'application/json': { schema: { type: 'object', required: ['data', 'meta', 'links'], properties: { data, meta: ref('V2Meta'), links: ref('V2Links') } } } },
  };
}

function list(item: Schema, description: string): Schema {
  return {
    description, headers: { ...RATE_HEADERS, ETag: header('ETag'), 'Cache-Control': header('CacheControl') },
    content: { 'application/json': { schema: { type: 'object', required: ['data', 'meta', 'links'], properties: { data: { type: 'array', items: item }, meta: ref('V2ListMeta'), links: ref('V2Links'), pagination: ref('V2Pagination') } } } },
  };
}

const errors = (...codes: string[]): Record<string, Schema> => {
  const names: Record<string, string> = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 415: 'UnsupportedMediaType', 422: 'ValidationError' };
  return { ...Object.fromEntries(codes.map((c) => [c, response(names[c]!)])), 429: response('TooManyRequests'), default: response('Internal') };
};

/** An admin-managed resource: POST + GET on the list, GET + DELETE on one. */
function managed(tag: string, what: string, opId: string, body: string, item: string, created: string): Record<string, Record<string, Schema>> {
  const idParam = { name: 'id', in: 'path', required: true, schema: str };
  return {
    list: {
      post: {
        operationId: `create${opId}`, tags: [tag], summary: `Create ${what}`, security: ADMIN_SECURITY,
        description: 'An administrator\'s access token only (neither an API key nor an OAuth token). The secret is in this answer only: it is never shown again.',
        requestBody: { required: true, content: { 'application/json': { schema: ref(body) } } },
        responses: { 201: one(ref(created), '201', 'Created; the secret is shown this once'), ...errors('400', '401', '403', '415', '422') },
      },
      get: {
        operationId: `list${opId}s`, tags: [tag], summary: `List ${what}s (without secrets)`, security: ADMIN_SECURITY,
        responses: { 200: list(ref(item), 'Every one, oldest first'), 304: response('NotModified'), ...errors('401', '403') },
      },
    },
    item: {
      get: {
        operationId: `get${opId}`, tags: [tag], summary: `Read ${what} (without its secret)`, security: ADMIN_SECURITY, parameters: [idParam],
        responses: { 200: one(ref(item), '200', 'The one asked for'), 304: response('NotModified'), ...errors('401', '403', '404') },
      },
      delete: {
        operationId: `delete${opId}`, tags: [tag], summary: `Revoke ${what} at once`, security: ADMIN_SECURITY, parameters: [idParam],
        responses: { 204: { description: 'Revoked: the next request made with it is refused', headers: RATE_HEADERS }, ...errors('401', '403', '404') },
      },
    },
  };
}

const oauthError = (description: string): Schema => ({
  description, headers: { 'Cache-Control': { schema: str } },
  content: { 'application/json': { schema: ref('OAuthError') } },
});

/** Adds the access paths, their schemas and the security schemes to a v2 document. */
export function addAccessPaths(doc: Schema & { paths: Record<string, Schema>; components: { schemas: Record<string, Schema>; securitySchemes?: Record<string, Schema> }; tags?: Schema[] }, apiBase: string, workspace: string): void {
  const scopes = { type: 'array', items: { type: 'string', enum: [...API_KEY_SCOPES] }, minItems: 1, uniqueItems: true };
  const issuer = `${apiBase}/v2/app/${encodeURIComponent(workspace)}/oauth`;
  Object.assign(doc.components.schemas, {
    NewApiKey: {
      type: 'object', required: ['name', 'scopes'], additionalProperties: false,
      properties: { name: { ...str, minLength: 1, maxLength: 200 }, scopes: { ...scopes, maxItems: API_KEY_SCOPES.length }, expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'In the future; none: never expires' } },
    },
    ApiKey: {
      type: 'object', required: ['_id', 'name', 'scopes', 'expiresAt', 'principalId', 'prefix', 'createdBy', 'createdAt', 'updatedAt'],
      properties: {
        _id: str, name: str, scopes, expiresAt: { type: ['string', 'null'], format: 'date-time' },
        principalId: { ...str, description: 'The principal the key acts as (`_owner` of what it creates)' },
        prefix: { ...str, description: 'The key\'s visible start (`hbk_<id>`), to tell keys apart' },
        createdBy: { type: ['string', 'null'] }, createdAt: dateTime, updatedAt: dateTime,
      },
    },
    NewApiKeyResult: { allOf: [ref('ApiKey'), { type: 'object', required: ['key'], properties: { key: { ...str, pattern: '^hbk_', description: 'The key to send as X-API-Key; shown only here' } } }] },
    NewOAuthClient: {
      type: 'object', required: ['name', 'scopes'], additionalProperties: false,
      properties: {
        name: { ...str, minLength: 1, maxLength: 200 },
        redirectUris: { type: 'array', maxItems: 20, items: { ...str, format: 'uri' }, description: 'Absolute, without a fragment; http only for a loopback host' },
        scopes: { ...scopes, maxItems: API_KEY_SCOPES.length },
        confidential: { type: 'boolean', default: false, description: 'A confidential client gets a secret (and may use client_credentials); a public one must use PKCE' },
      },
    },
    OAuthClient: {
      type: 'object', required: ['_id', 'name', 'redirectUris', 'scopes', 'confidential', 'principalId', 'createdBy', 'createdAt', 'updatedAt'],
      properties: {
        _id: { ...str, description: 'The client_id' }, name: str, redirectUris: { type: 'array', items: str }, scopes, confidential: { type: 'boolean' },
        principalId: str, createdBy: { type: ['string', 'null'] }, createdAt: dateTime, updatedAt: dateTime,
      },
    },
    NewOAuthClientResult: { allOf: [ref('OAuthClient'), { type: 'object', properties: { clientSecret: { ...str, description: 'A confidential client\'s secret; shown only here' } } }] },
    OAuthError: {
      type: 'object', required: ['error'],
      properties: { error: { ...str, description: 'An RFC 6749 error code: invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, server_error' }, error_description: str },
    },
    OAuthTokenRequest: {
      type: 'object', required: ['grant_type'],
      properties: {
        grant_type: { type: 'string', enum: ['authorization_code', 'client_credentials', 'refresh_token'] },
        code: str, redirect_uri: str, code_verifier: str, refresh_token: str, scope: { ...str, description: 'Space-separated scopes' },
        client_id: str, client_secret: { ...str, description: 'Or HTTP Basic authentication' },
      },
    },
    OAuthToken: {
      type: 'object', required: ['access_token', 'token_type'],
      properties: { access_token: str, token_type: { ...str, description: '`Bearer`' }, expires_in: { type: 'integer' }, refresh_token: str, scope: str },
    },
    OAuthRevokeRequest: { type: 'object', required: ['token'], properties: { token: str, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] }, client_id: str, client_secret: str } },
    OAuthMetadata: {
      type: 'object', required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'response_types_supported'],
      properties: {
        issuer: { ...str, format: 'uri' }, authorization_endpoint: { ...str, format: 'uri' }, token_endpoint: { ...str, format: 'uri' }, revocation_endpoint: { ...str, format: 'uri' },
        response_types_supported: { type: 'array', items: str }, response_modes_supported: { type: 'array', items: str }, grant_types_supported: { type: 'array', items: str },
        code_challenge_methods_supported: { type: 'array', items: str }, token_endpoint_auth_methods_supported: { type: 'array', items: str },
        revocation_endpoint_auth_methods_supported: { type: 'array', items: str }, scopes_supported: { type: 'array', items: str },
      },
    },
    GraphQLRequest: {
      type: 'object', required: ['query'],
      properties: { query: str, operationName: { type: ['string', 'null'] }, variables: { type: ['object', 'null'] }, extensions: { type: ['object', 'null'] } },
    },
    GraphQLResponse: {
      type: 'object',
      properties: {
        data: { type: ['object', 'null'] },
        errors: { type: 'array', items: { type: 'object', required: ['message'], properties: { message: str, locations: { type: 'array' }, path: { type: 'array' }, extensions: { type: 'object', properties: { code: str, details: {} } } } } },
      },
    },
  });

  doc.components.securitySchemes = {
    ...(doc.components.securitySchemes ?? {}),
    oauth2: {
      type: 'oauth2',
      description: 'OAuth 2.0 of the workspace: the authorization code flow (PKCE with S256, required for public clients) through the workspace\'s sign-in and consent page, and client credentials for confidential clients. Access tokens carry a `scope` claim, honoured like an API key\'s scopes; refresh tokens rotate.',
      flows: {
        authorizationCode: { authorizationUrl: `${issuer}/authorize`, tokenUrl: `${issuer}/token`, refreshUrl: `${issuer}/token`, scopes: SCOPE_TEXT },
        clientCredentials: { tokenUrl: `${issuer}/token`, refreshUrl: `${issuer}/token`, scopes: SCOPE_TEXT },
      },
    },
  };
  if (Array.isArray(doc.security)) doc.security = [...(doc.security as Schema[]), { oauth2: [] }];
  doc.tags = [...(doc.tags ?? []), { name: 'access', description: 'API keys and OAuth clients (administrators)' }, { name: 'oauth', description: 'OAuth 2.0 endpoints (RFC 6749, 7009, 8414)' }, { name: 'graphql', description: 'GraphQL over HTTP' }];

  const keys = managed('access', 'an API key', 'ApiKey', 'NewApiKey', 'ApiKey', 'NewApiKeyResult');
  const clients = managed('access', 'an OAuth client', 'OAuthClient', 'NewOAuthClient', 'OAuthClient', 'NewOAuthClientResult');
  doc.paths['/api-keys'] = keys.list!;
  doc.paths['/api-keys/{id}'] = keys.item!;
  doc.paths['/oauth/clients'] = clients.list!;
  doc.paths['/oauth/clients/{id}'] = clients.item!;

  const noAuth: Schema[] = [{}];
  const authorizeParams = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method']
    .map((name) => ({ name, in: 'query', required: ['response_type', 'client_id'].includes(name), schema: name === 'code_challenge_method' ? { type: 'string', enum: ['S256'] } : str }));
  const html = (description: string): Schema => ({ description, content: { 'text/html': { schema: str } } });
  doc.paths['/oauth/authorize'] = {
    get: {
      operationId: 'oauthAuthorize', tags: ['oauth'], summary: 'The sign-in and consent page of the authorization code flow', security: noAuth, parameters: authorizeParams,
      responses: { 200: html('The consent page'), 302: { description: 'Back to the registered redirect URI with an error (never to an unregistered one)' }, 400: html('An unknown client or an unregistered redirect URI: an error page, no redirect') },
    },
    post: {
      operationId: 'oauthConsent', tags: ['oauth'], summary: 'The consent page\'s form: sign in and allow (or deny)', security: noAuth,
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { email: str, password: str, allowed: str } } } } },
      responses: { 303: { description: 'To the redirect URI with `code` and `state` (or `error`)' }, 400: html('An unknown client or an unregistered redirect URI'), 401: html('Wrong email or password: the page again'), 429: html('Too many failed sign-ins (with Retry-After)') },
    },
  };
  doc.paths['/oauth/token'] = {
    post: {
      operationId: 'oauthToken', tags: ['oauth'], summary: 'Exchange a code, client credentials or a refresh token (which rotates) for tokens', security: noAuth,
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: ref('OAuthTokenRequest') } } },
      responses: {
        200: { description: 'Tokens', headers: { 'Cache-Control': { schema: str } }, content: { 'application/json': { schema: ref('OAuthToken') } } },
        400: oauthError('RFC 6749 error, e.g. invalid_grant, unsupported_grant_type, invalid_scope'),
        401: oauthError('invalid_client (with WWW-Authenticate)'),
        405: oauthError('Only POST'), 413: oauthError('Body too large'), 500: oauthError('server_error'),
      },
    },
  };
  doc.paths['/oauth/revoke'] = {
    post: {
      operationId: 'oauthRevoke', tags: ['oauth'], summary: 'Revoke an access or refresh token (RFC 7009)', security: noAuth,
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: ref('OAuthRevokeRequest') } } },
      responses: { 200: { description: 'Revoked (an unknown or foreign token is answered 200 all the same)' }, 400: oauthError('invalid_request'), 401: oauthError('invalid_client') },
    },
  };
  doc.paths['/oauth/.well-known/oauth-authorization-server'] = {
    get: {
      operationId: 'oauthMetadata', tags: ['oauth'], summary: 'Authorization server metadata (RFC 8414)', security: noAuth,
      responses: { 200: { description: 'The metadata', content: { 'application/json': { schema: ref('OAuthMetadata') } } } },
    },
  };
  const gqlAnswer = { 'application/graphql-response+json': { schema: ref('GraphQLResponse') }, 'application/json': { schema: ref('GraphQLResponse') } };
  const gqlResponses = {
    200: { description: 'The result (errors of the resolvers in `errors[].extensions.code`)', content: gqlAnswer },
    400: { description: 'A request that is not valid GraphQL over HTTP, or a query that does not validate (too deep or too costly included): nothing ran', content: gqlAnswer },
    401: { description: 'A bad credential', content: gqlAnswer },
    405: { description: 'A method other than GET or POST, or a mutation over GET' },
    413: { description: 'Body too large' }, 415: { description: 'Unsupported media type' },
  };
  doc.paths['/graphql'] = {
    get: {
      operationId: 'graphqlQuery', tags: ['graphql'], summary: 'A GraphQL query (queries only) in the URL',
      parameters: [{ name: 'query', in: 'query', required: true, schema: str }, { name: 'operationName', in: 'query', schema: str }, { name: 'variables', in: 'query', schema: str, description: 'JSON' }],
      responses: gqlResponses,
    },
    post: {
      operationId: 'graphqlRequest', tags: ['graphql'], summary: 'A GraphQL request: queries and mutations over the collections, users, files, channels and messages, with the access rules of REST',
      requestBody: { required: true, content: { 'application/json': { schema: ref('GraphQLRequest') } } },
      responses: gqlResponses,
    },
  };
}
