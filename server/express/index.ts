// What Homebase does to Express beyond its documented API, in one folder, because each trick
// leans on how Express 5 and its router work inside and a new Express version is checked here:
// - routing.ts: module routers dispatched by their first path segment, a pipeline of middleware
//   run as one layer, the 404 of a body refused on a path no route takes (reads `router.stack`);
// - fast-get.ts: GETs answered before the app router (v1's record GET, record-get.ts, and v2's,
//   v2/fast-get.ts) by wrapping `app.handle`;
// - request-shape.ts: the request and response fields declared before Express changes their
//   prototypes, so every request keeps one V8 hidden class;
// - fast-json.ts: res.json without res.send's work for plain JSON answers.
// Each was measured (docs/performance.md). applyExpressTricks applies the ones that wrap the app,
// in their one order.
import type { Express } from 'express';
import { fastJson } from './fast-json.js';
import { installFastGet, type FastGet } from './fast-get.js';
import { declareFieldsFirst } from './request-shape.js';

export { dispatchByPrefix, hasRoute, routeFirst, routeSegments, series } from './routing.js';
export { recordGet } from './record-get.js';
export type { FastGet } from './fast-get.js';

/** Call once the routes are mounted. The fast GETs wrap `app.handle` in the order given (the
 *  last is the outermost); the fields are declared outside them all, before a fast GET or
 *  Express changes the prototypes. */
export function applyExpressTricks(app: Express, fastGets: FastGet[]): void {
  app.response.json = fastJson(app.response.json);
  for (const route of fastGets) installFastGet(app, route);
  declareFieldsFirst(app);
}
