// The path items of a resource that is listed, created, read, changed and deleted (the routes of
// modules/crud-routes.ts and their like): operation ids, summaries and answers follow from the
// resource's name; each operation gives only what is its own (a description, a body, more
// statuses), and may replace any default.
import { json, noContent, pageOf, pathItem, putAndPatch, ref, type Access, type OpSpec, type Schema } from './ops.js';

export interface Resource {
  /** Operation id prefix: `webhooks` → `webhooks.list`, `webhooks.get`... */
  id: string;
  tag: string;
  access: Access;
  /** `webhook`: "Get a webhook", "The webhook". */
  noun: string;
  /** Plural for lists (default `noun` + s). */
  plural?: string;
  /** The component schema of one item. */
  schema: string;
}

type Over = Partial<OpSpec>;

// "an index", "a user" (the nouns here that start with u sound like "you").
const a = (noun: string) => `${/^[aeio]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** GET (a page of items) and POST (create) on the collection path; either may be left out. */
export function collectionPath(path: string, r: Resource, ops: { list?: Over; create?: Over }): Schema {
  const item = ref(r.schema);
  const plural = r.plural ?? `${r.noun}s`;
  const base = { tag: r.tag, access: r.access };
  return pathItem(path, {
    ...(ops.list ? { get: { ...base, id: `${r.id}.list`, summary: `List ${plural}`, list: true, ok: json(200, `A page of ${plural}`, pageOf(r.schema)), ...ops.list } } : {}),
    ...(ops.create ? { post: { ...base, id: `${r.id}.create`, summary: `Create ${a(r.noun)}`, ok: json(201, `The ${r.noun}`, item), ...ops.create } } : {}),
  });
}

/** GET, PUT and PATCH (the same partial update) and DELETE on the item path; any may be left out. */
export function itemPath(path: string, r: Resource, ops: { get?: Over; update?: Over; remove?: Over }): Schema {
  const item = ref(r.schema);
  const base = { tag: r.tag, access: r.access };
  return pathItem(path, {
    ...(ops.get ? { get: { ...base, id: `${r.id}.get`, summary: `Get ${a(r.noun)}`, ok: json(200, `The ${r.noun}`, item), ...ops.get } } : {}),
    ...(ops.update ? putAndPatch({ ...base, id: `${r.id}.update`, summary: `Update ${a(r.noun)}`, ok: json(200, `The ${r.noun}`, item), ...ops.update }) : {}),
    ...(ops.remove ? { delete: { ...base, id: `${r.id}.delete`, summary: `Delete ${a(r.noun)}`, ok: noContent('Deleted'), ...ops.remove } } : {}),
  });
}

/** Both path items of a CRUD resource: `path` and `path/{id}`. */
export function crudPaths(path: string, r: Resource, ops: { list?: Over; create?: Over; get?: Over; update?: Over; remove?: Over }): Record<string, Schema> {
  return { [path]: collectionPath(path, r, ops), [`${path}/{id}`]: itemPath(path + '/{id}', r, ops) };
}
