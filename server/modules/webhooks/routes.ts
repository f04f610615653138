// The webhooks API group: routes are added by its issue.
import type { Module } from '../../core/context.js';

export const webhooksModule: Module = { name: 'webhooks' };
