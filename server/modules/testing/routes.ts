// The testing API group: routes are added by its issue.
import type { Module } from '../../core/context.js';

export const testingModule: Module = { name: 'testing' };
