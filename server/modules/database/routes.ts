// The database API group: routes are added by its issue.
import type { Module } from '../../core/context.js';

export const databaseModule: Module = { name: 'database' };
