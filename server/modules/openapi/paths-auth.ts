// Paths of the auth group (self-service) and the users group (administration).
import { json, noContent, pathItem, putAndPatch, ref, type OpSpec, type Schema } from './ops.js';
import { crudPaths, type Resource } from './crud-paths.js';

const AUTH = 'auth';
const USERS = 'users';

export function authPaths(): Record<string, Schema> {
  const updateMe: OpSpec = {
    id: 'auth.updateMe', tag: AUTH, summary: 'Update the current user\'s profile', access: 'user',
    description: '`name` and other profile fields; `role`, `email`, `password`, `_id` are read-only (422 `read_only`).',
    body: ref('ProfileUpdate'), ok: json(200, 'The user', ref('User')),
  };
  const changePassword: OpSpec = {
    id: 'auth.changePassword', tag: AUTH, summary: 'Change the current user\'s password', access: 'user',
    description: 'A wrong `currentPassword` is a 422 `{ field: "currentPassword", reason: "invalid" }`. Other sessions end.',
    body: ref('ChangePasswordBody'), ok: json(200, 'The user', ref('User')), errors: [429],
  };
  return {
    '/auth/register': pathItem('/auth/register', {
      post: {
        id: 'auth.register', tag: AUTH, summary: 'Register a new user', access: 'none',
        description: 'Role `user`; password 8 to 72 bytes. A duplicate email is a 409.',
        body: ref('RegisterBody'), ok: json(201, 'Signed in as the new user', ref('LoginResult')), errors: [409],
      },
    }),
    '/auth/login': pathItem('/auth/login', {
      post: {
        id: 'auth.login', tag: AUTH, summary: 'Sign in', access: 'none',
        description: 'Wrong credentials are a 401; more than 10 failures for one email within a minute a 429 with `Retry-After`.',
        body: ref('LoginBody'), ok: json(200, 'The login result', ref('LoginResult')), errors: [429],
      },
    }),
    '/auth/refresh': pathItem('/auth/refresh', {
      post: {
        id: 'auth.refresh', tag: AUTH, summary: 'Exchange a refresh token for new tokens', access: 'none',
        description: 'Single use and rotating: reusing a rotated refresh token revokes the whole session (401).',
        body: ref('RefreshBody'), ok: json(200, 'New tokens', ref('LoginResult')),
      },
    }),
    '/auth/logout': pathItem('/auth/logout', {
      post: {
        id: 'auth.logout', tag: AUTH, summary: 'End the session', access: 'optional',
        description: 'Ends the session of the bearer token, or of `refreshToken`: its tokens stop working at once.',
        body: ref('LogoutBody'), bodyRequired: false, ok: noContent('Signed out'),
      },
    }),
    '/auth/forgot-password': pathItem('/auth/forgot-password', {
      post: {
        id: 'auth.forgotPassword', tag: AUTH, summary: 'Request password recovery', access: 'none',
        description: 'The same answer whether or not the email exists; the recovery email (single-use token, 1 h) lands in the workspace outbox.',
        body: ref('ForgotPasswordBody'),
        ok: json(202, 'Accepted', { type: 'object', properties: { message: { type: 'string' } } }),
      },
    }),
    '/auth/reset-password': pathItem('/auth/reset-password', {
      post: {
        id: 'auth.resetPassword', tag: AUTH, summary: 'Set a new password with a recovery token', access: 'none',
        description: 'Ends every session of the user.', body: ref('ResetPasswordBody'), ok: noContent('Password changed'),
      },
    }),
    '/auth/me': pathItem('/auth/me', {
      get: { id: 'auth.me', tag: AUTH, summary: 'The current user', access: 'user', ok: json(200, 'The user', ref('User')) },
      ...putAndPatch(updateMe),
    }),
    '/auth/change-password': pathItem('/auth/change-password', putAndPatch(changePassword)),
    '/auth/impersonate/{userId}': pathItem('/auth/impersonate/{userId}', {
      post: {
        id: 'auth.impersonate', tag: AUTH, summary: 'Sign in as another user', access: 'admin',
        description: 'The token carries `act: { sub: <admin id> }`.', ok: json(200, 'Signed in as that user', ref('LoginResult')), errors: [404],
      },
    }),
  };
}

export function usersPaths(): Record<string, Schema> {
  const user: Resource = { id: 'users', tag: USERS, access: 'admin', noun: 'user', schema: 'User' };
  return crudPaths('/users', user, {
    list: {},
    create: { description: 'A duplicate email is a 409.', body: ref('UserCreate'), errors: [409] },
    get: {},
    update: {
      description: 'Partial: `email`, `password`, `name`, `role` and profile fields. Demoting the last administrator is a 409.',
      body: ref('UserUpdate'), errors: [409],
    },
    remove: { description: 'The last administrator cannot be deleted (409).', errors: [409] },
  });
}
