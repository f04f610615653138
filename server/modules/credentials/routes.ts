// The credentials API group: routes are added by its issue.
import type { Module } from '../../core/context.js';

export const credentialsModule: Module = { name: 'credentials' };
