// The storage API group: routes are added by its issue.
import type { Module } from '../../core/context.js';

export const storageModule: Module = { name: 'storage' };
