// The auth API group: routes are added by its issue.
import type { Module } from '../../core/context.js';

export const authModule: Module = { name: 'auth' };
