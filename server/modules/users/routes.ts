// The users API group: routes are added by its issue.
import type { Module } from '../../core/context.js';

export const usersModule: Module = { name: 'users' };
