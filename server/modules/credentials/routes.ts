// The credentials API group: write-only secrets, admin only.
import type { Router } from 'express';
import type { Module } from '../context.js';
import { adminOnly } from '../caller.js';
import { crudRoutes } from '../crud-routes.js';
import { createCredential, deleteCredential, getCredential, listCredentials, updateCredential } from './service.js';

export const credentialsModule: Module = {
  name: 'credentials',
  workspaceRoutes(router: Router) {
    // Administrators only, the whole group.
    const admin = adminOnly(router);
    crudRoutes(admin, '/credentials', {
      list: listCredentials,
      create: (req, body) => createCredential(req.ws, body),
      get: getCredential,
      update: (req, id, body, mode) => updateCredential(req.ws, id, body, mode),
      remove: (req, id) => deleteCredential(req.ws, id),
    });
  },
};
