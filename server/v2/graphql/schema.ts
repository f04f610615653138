// The GraphQL schema of one workspace: per collection a record type, a list query, a by-id
// query and create / update / replace / delete mutations; users, files, channels and messages
// as the caller may see them. Every resolver calls the same service functions as the REST
// routes, with the caller's auth, so access rules, validation and events are the same.
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, GraphQLScalarType, GraphQLSchema, GraphQLString, valueFromASTUntyped,
  type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLInputType, type GraphQLNullableType, type GraphQLOutputType,
} from 'graphql/index.js';
import type { Request } from 'express';
import type { AppContext } from '../../modules/context.js';
import type { Workspace } from '../../storage/workspace.js';
import type { AuthInfo } from '../../modules/caller.js';
import { ApiError } from '../../core/errors.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import { ownApiBase } from '../../core/public-url.js';
import type { CollectionDef, FieldDef, FieldType } from '../../shared/models.js';
import type { SortKey, StoreQuery } from '../../shared/query.js';
import { createRecord, deleteRecord, getRecord, listRecords, replaceRecord, updateRecord } from '../../modules/database/index.js';
import { findUser, listUsers, publicUser } from '../../modules/users/index.js';
import { fileObject, storageOf } from '../../modules/storage/index.js';
import * as chats from '../../modules/chats/index.js';
import { enumValueName, graphqlName, NameScope, pascal } from './names.js';
import { readPage, type ListArgs } from './lists.js';

/** What every resolver gets: the workspace, the caller (null when anonymous) and the request. */
export interface GraphqlContext { ctx: AppContext; ws: Workspace; auth: AuthInfo | null; req: Request; [key: PropertyKey]: unknown }

/** Cost of a list field: its page size (the list's limit, 50 when not given) times its items. */
const DEFAULT_PAGE = 50;
type Estimate = (o: { args: Record<string, unknown>; childComplexity: number }) => number;
const listCost: Estimate = ({ args, childComplexity }) => 1 + childComplexity * Math.min(Number(args.limit ?? DEFAULT_PAGE) || 0, 100);

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value (objects, arrays, strings, numbers, booleans, null).',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});

const nonNull = <T extends GraphQLNullableType>(t: T) => new GraphQLNonNull(t);
const listOf = <T extends GraphQLOutputType>(t: T) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t)));

const Pagination = new GraphQLObjectType({
  name: 'Pagination',
  description: 'Cursors of the neighbouring pages, as in a REST list.',
  fields: { next: { type: GraphQLString }, prev: { type: GraphQLString }, hasMore: { type: nonNull(GraphQLBoolean) } },
});

function pageType(item: GraphQLObjectType, name: string): GraphQLObjectType {
  return new GraphQLObjectType({
    name,
    description: `A page of ${item.name}: the items, how many match in all, and the cursors around the page.`,
    fields: {
      data: { type: listOf(item) }, total: { type: nonNull(GraphQLInt) }, limit: { type: nonNull(GraphQLInt) },
      offset: { type: nonNull(GraphQLInt) }, pagination: { type: nonNull(Pagination) },
    },
  });
}

const LIST_ARGS = {
  filter: { type: JSONScalar, description: 'The list filter: { field: value } or { field: { $op: value } } with the REST operators ($eq $ne $gt $gte $lt $lte $in $nin $contains $exists...).' },
  sort: { type: GraphQLString, description: 'As in REST: "field" or "-field", comma-separated.' },
  limit: { type: GraphQLInt, description: 'Page size, 50 when not given, at most 100.' },
  offset: { type: GraphQLInt },
  cursor: { type: GraphQLString, description: 'A `pagination.next` or `pagination.prev` of an earlier page (not with offset).' },
};

function needUser(c: GraphqlContext): AuthInfo {
  if (!c.auth) throw ApiError.unauthorized();
  return c.auth;
}
function needAdmin(c: GraphqlContext): AuthInfo {
  const auth = needUser(c);
  if (!auth.isAdmin) throw ApiError.forbidden('An administrator token is required');
  return auth;
}

// ---- The fixed part: users, files, channels, messages -------------------------------------

const NEWEST_FIRST: SortKey[] = [{ path: 'createdAt', dir: -1 }];

const User = new GraphQLObjectType({
  name: 'User',
  fields: {
    _id: { type: nonNull(GraphQLID) }, email: { type: nonNull(GraphQLString) }, name: { type: GraphQLString }, role: { type: GraphQLString },
    createdAt: { type: GraphQLString }, updatedAt: { type: GraphQLString },
  },
});
const File = new GraphQLObjectType({
  name: 'File',
  fields: {
    _id: { type: nonNull(GraphQLID) }, name: { type: nonNull(GraphQLString) }, size: { type: GraphQLFloat }, type: { type: GraphQLString },
    _owner: { type: GraphQLID }, url: { type: GraphQLString }, createdAt: { type: GraphQLString }, updatedAt: { type: GraphQLString },
  },
});
// A channel lists its messages and a message names its channel: the types refer to each other
// (so a query can nest without end, which the depth limit bounds).
const channelMessages = (c: GraphqlContext, channelId: string, args: ListArgs) => readPage(`${c.ws.id}/chats/${encodeURIComponent(channelId)}/messages`, args, async (raw) => {
  const q = parseListQuery(raw, { defaultSort: NEWEST_FIRST });
  const { data, total } = await chats.listMessages(c.ctx, c.ws, channelId, q, { auth: needUser(c) });
  return { data, meta: listMeta(total, q) };
});
const Channel: GraphQLObjectType = new GraphQLObjectType<Record<string, unknown>, GraphqlContext>({
  name: 'Channel',
  fields: () => ({
    _id: { type: nonNull(GraphQLID) }, name: { type: GraphQLString }, type: { type: GraphQLString }, description: { type: GraphQLString },
    members: { type: listOf(GraphQLID) }, _owner: { type: GraphQLID }, createdAt: { type: GraphQLString }, updatedAt: { type: GraphQLString },
    messages: {
      type: nonNull(MessagePage), args: LIST_ARGS, extensions: { complexity: listCost }, description: 'The channel\'s messages, newest first unless sorted otherwise.',
      resolve: (ch, args: ListArgs, c) => channelMessages(c, ch._id as string, args),
    },
  }),
});
const MessageAuthor = new GraphQLObjectType({ name: 'MessageAuthor', fields: { _id: { type: nonNull(GraphQLID) }, name: { type: GraphQLString } } });
const Message: GraphQLObjectType = new GraphQLObjectType<Record<string, unknown>, GraphqlContext>({
  name: 'Message',
  fields: () => ({
    _id: { type: nonNull(GraphQLID) }, channelId: { type: nonNull(GraphQLID) }, text: { type: GraphQLString }, type: { type: GraphQLString },
    author: { type: MessageAuthor }, createdAt: { type: GraphQLString }, updatedAt: { type: GraphQLString },
    channel: { type: Channel, resolve: (m, _a, c) => chats.getChannel(c.ctx, c.ws, m.channelId as string, { auth: needUser(c) }) },
  }),
});
const MessagePage = pageType(Message, 'MessagePage');
const ChannelPage = pageType(Channel, 'ChannelPage');
const UserPage = pageType(User, 'UserPage');
const FilePage = pageType(File, 'FilePage');
const FIXED_TYPES = ['Query', 'Mutation', 'JSON', 'Pagination', 'User', 'UserPage', 'File', 'FilePage', 'Channel', 'ChannelPage',
  'Message', 'MessagePage', 'MessageAuthor', 'String', 'Int', 'Float', 'Boolean', 'ID'];

const FILE_TYPES: Record<string, FieldType> = { _id: 'string', name: 'string', type: 'string', size: 'integer', _owner: 'string', createdAt: 'date', updatedAt: 'date' };

function fixedQueries(scope: NameScope): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  const claim = (n: string) => scope.claim(n);
  const base = (c: GraphqlContext) => ownApiBase(c.req, c.ctx.config);
  const list = (c: GraphqlContext, path: string) => `${c.ws.id}${path}`;
  const id = { id: { type: nonNull(GraphQLID) } };
  return {
    [claim('users')]: {
      type: nonNull(UserPage), args: LIST_ARGS, extensions: { complexity: listCost },
      description: 'Users of the workspace (administrators only, as in REST).',
      resolve: (_s, args: ListArgs, c) => { needAdmin(c); return readPage(list(c, '/users'), args, async (raw) => {
        return listUsers(c.ws, raw);
      }); },
    },
    [claim('user')]: {
      type: User, args: id,
      resolve: async (_s, a: { id: string }, c) => { needAdmin(c); const u = await findUser(c.ws, a.id); if (!u) throw ApiError.notFound('User', a.id); return publicUser(u); },
    },
    [claim('files')]: {
      type: nonNull(FilePage), args: LIST_ARGS, extensions: { complexity: listCost },
      description: 'Stored files (signed-in callers, as in REST).',
      resolve: (_s, args: ListArgs, c) => { needUser(c); return readPage(list(c, '/storage'), args, async (raw) => {
        const q = parseListQuery(raw, { typeOf: (p) => FILE_TYPES[p] });
        const { data, total } = await (await storageOf(c.ctx).store(c.ws)).find(q);
        return { data: data.map((d) => fileObject(d, c.ws.id, base(c))), meta: listMeta(total, q) };
      }); },
    },
    [claim('file')]: {
      type: File, args: id,
      resolve: async (_s, a: { id: string }, c) => { needUser(c); const f = await storageOf(c.ctx).get(c.ws, a.id); if (!f) throw ApiError.notFound('File', a.id); return fileObject(f, c.ws.id, base(c)); },
    },
    [claim('channels')]: {
      type: nonNull(ChannelPage), args: LIST_ARGS, extensions: { complexity: listCost },
      description: 'The channels the caller may see (its own, or all for an administrator).',
      resolve: (_s, args: ListArgs, c) => { const auth = needUser(c); return readPage(list(c, '/chats/channels'), args, async (raw) => {
        const q = parseListQuery(raw);
        const { data, total } = await chats.listChannels(c.ctx, c.ws, q, { auth });
        return { data, meta: listMeta(total, q) };
      }); },
    },
    [claim('channel')]: { type: Channel, args: id, resolve: (_s, a: { id: string }, c) => chats.getChannel(c.ctx, c.ws, a.id, { auth: needUser(c) }) },
    [claim('messages')]: {
      type: nonNull(MessagePage), args: { channelId: { type: nonNull(GraphQLID) }, ...LIST_ARGS }, extensions: { complexity: listCost },
      description: "A channel's messages, newest first unless sorted otherwise (members and administrators).",
      resolve: (_s, args: ListArgs & { channelId: string }, c) => channelMessages(c, args.channelId, args),
    },
    [claim('message')]: { type: Message, args: id, resolve: (_s, a: { id: string }, c) => chats.getMessage(c.ctx, c.ws, a.id, { auth: needUser(c) }) },
  };
}

// ---- The collections -----------------------------------------------------------------------

interface FieldMap { graphql: string; id: string }

function scalarOf(type: FieldType): GraphQLScalarType {
  switch (type) {
    case 'number': return GraphQLFloat;
    case 'integer': return GraphQLInt;
    case 'boolean': return GraphQLBoolean;
    case 'json': case 'array': return JSONScalar;
    case 'reference': case 'file': case 'user': return GraphQLID;
    default: return GraphQLString; // string, email, url, date, enum without name-like values
  }
}

/** A GraphQL enum for an enum field whose values are all names; otherwise undefined (String). */
function enumOf(field: FieldDef, typeName: string): GraphQLEnumType | undefined {
  const values = field.options?.values;
  if (field.type !== 'enum' || !Array.isArray(values) || values.length === 0) return undefined;
  const names = values.map(enumValueName);
  if (names.some((n) => n === undefined) || new Set(names).size !== names.length) return undefined;
  return new GraphQLEnumType({ name: typeName, values: Object.fromEntries(values.map((v) => [v as string, { value: v }])) });
}

function collectionParts(def: CollectionDef, types: NameScope, queries: NameScope, mutations: NameScope) {
  const P = types.claim(pascal(graphqlName(def._id)));
  const fieldNames = new NameScope(['_id', '_owner', 'createdAt', 'updatedAt']);
  const mapped: FieldMap[] = [];
  const outFields: GraphQLFieldConfigMap<Record<string, unknown>, GraphqlContext> = {
    _id: { type: nonNull(GraphQLID) }, _owner: { type: GraphQLID }, createdAt: { type: GraphQLString }, updatedAt: { type: GraphQLString },
  };
  const inFields: GraphQLInputFieldConfigMap = {};
  for (const f of def.fields) {
    const name = fieldNames.claim(graphqlName(f._id));
    mapped.push({ graphql: name, id: f._id });
    const type = enumOf(f, types.claim(`${P}${pascal(name)}`)) ?? scalarOf(f.type);
    const description = `${f.name || f._id} (${f.type}${f.required ? ', required' : ''})`;
    outFields[name] = { type: type as GraphQLOutputType, description, resolve: (doc) => doc[f._id] };
    inFields[name] = { type: type as GraphQLInputType, description };
  }
  const Record_ = new GraphQLObjectType<Record<string, unknown>, GraphqlContext>({ name: P, description: `A record of the collection '${def._id}'.`, fields: outFields });
  const Page_ = pageType(Record_, types.claim(`${P}Page`));
  const Input = new GraphQLInputObjectType({ name: types.claim(`${P}Input`), description: `Fields of a '${def._id}' record; absent fields are left out.`, fields: inFields });
  const toBody = (input: Record<string, unknown>) => {
    const body: Record<string, unknown> = {};
    for (const m of mapped) if (input[m.graphql] !== undefined) body[m.id] = input[m.graphql];
    return body;
  };
  const coll = def._id;
  const base = graphqlName(def._id);
  const lower = base.charAt(0).toLowerCase() + base.slice(1);
  const query: GraphQLFieldConfigMap<unknown, GraphqlContext> = {
    [queries.claim(lower)]: {
      type: nonNull(Page_), args: { ...LIST_ARGS, view: { type: GraphQLString, description: 'A saved view of the collection.' } },
      extensions: { complexity: listCost }, description: `Records of '${coll}' the caller may read.`,
      resolve: (_s, args: ListArgs, c) => readPage(`${c.ws.id}/database/${encodeURIComponent(coll)}`, args,
        (raw) => listRecords(c.ctx, c.ws, coll, raw, { auth: c.auth })),
    },
    [queries.claim(`${lower}ById`)]: {
      type: Record_, args: { id: { type: nonNull(GraphQLID) } },
      resolve: (_s, a: { id: string }, c) => getRecord(c.ctx, c.ws, coll, a.id, { auth: c.auth }),
    },
  };
  const idArg = { id: { type: nonNull(GraphQLID) } };
  const mutation: GraphQLFieldConfigMap<unknown, GraphqlContext> = {
    [mutations.claim(`create${P}`)]: {
      type: nonNull(Record_), args: { input: { type: nonNull(Input) } }, description: `Creates a '${coll}' record (as POST).`,
      resolve: (_s, a: { input: Record<string, unknown> }, c) => createRecord(c.ctx, c.ws, coll, toBody(a.input), { auth: c.auth }),
    },
    [mutations.claim(`update${P}`)]: {
      type: nonNull(Record_), args: { ...idArg, input: { type: nonNull(Input) } }, description: `Merges fields into a '${coll}' record (as PATCH).`,
      resolve: (_s, a: { id: string; input: Record<string, unknown> }, c) => updateRecord(c.ctx, c.ws, coll, a.id, toBody(a.input), { auth: c.auth }),
    },
    [mutations.claim(`replace${P}`)]: {
      type: nonNull(Record_), args: { ...idArg, input: { type: nonNull(Input) } }, description: `Replaces a '${coll}' record's fields (as PUT).`,
      resolve: (_s, a: { id: string; input: Record<string, unknown> }, c) => replaceRecord(c.ctx, c.ws, coll, a.id, toBody(a.input), { auth: c.auth }),
    },
    [mutations.claim(`delete${P}`)]: {
      type: nonNull(GraphQLID), args: idArg, description: `Deletes a '${coll}' record; answers its id.`,
      resolve: async (_s, a: { id: string }, c) => { await deleteRecord(c.ctx, c.ws, coll, a.id, { auth: c.auth }); return a.id; },
    },
  };
  return { query, mutation };
}

/** The schema for these collection definitions. */
export function buildWorkspaceSchema(collections: readonly CollectionDef[]): GraphQLSchema {
  const types = new NameScope(FIXED_TYPES);
  const queries = new NameScope();
  const mutations = new NameScope();
  const queryFields = fixedQueries(queries);
  const mutationFields: GraphQLFieldConfigMap<unknown, GraphqlContext> = {};
  for (const def of collections) {
    const parts = collectionParts(def, types, queries, mutations);
    Object.assign(queryFields, parts.query);
    Object.assign(mutationFields, parts.mutation);
  }
  const Query = new GraphQLObjectType({ name: 'Query', fields: queryFields });
  const Mutation = Object.keys(mutationFields).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutationFields }) : undefined;
  return new GraphQLSchema({ query: Query, mutation: Mutation });
}

