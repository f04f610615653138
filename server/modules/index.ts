// The API groups, in mount order. One line per module: app.ts binds them all.
import type { Module } from '../core/context.js';
import { consoleModule } from './console/routes.js';

export const modules: Module[] = [
  consoleModule,
];
