// The chats API group over HTTP: channels, members and messages. Rules live in
// service.ts; this file only reads requests and writes responses.
import type { Request, Router } from 'express';
import type { Module } from '../context.js';
import { requireUser } from '../caller.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import type { SortKey } from '../../storage/query.js';
import * as chats from './service.js';
import { itemRoutes } from '../crud-routes.js';

const NEWEST_FIRST: SortKey[] = [{ path: 'createdAt', dir: -1 }];

const param = (req: Request, name: string) => String((req.params as Record<string, string>)[name]);

export const chatsModule: Module = {
  name: 'chats',
  workspaceRoutes(router: Router, ctx) {
    const opts = (req: Request) => ({ auth: requireUser(req) });

    // Channels. The fixed `/chats/channels` and `/chats/messages` paths come before
    // `/chats/:channelId/...` (channel ids are generated, so they never read "channels").
    router.get('/chats/channels', async (req, res) => {
      const o = opts(req);
      const q = parseListQuery(req.query);
      const { data, total } = await chats.listChannels(ctx, req.ws, q, o);
      res.json({ data, meta: listMeta(total, q) });
    });
    router.post('/chats/channels', async (req, res) => {
      res.status(201).json(await chats.createChannel(ctx, req.ws, req.body, opts(req)));
    });
    itemRoutes(router, '/chats/channels/:id', {
      get: (req, id) => chats.getChannel(ctx, req.ws, id, opts(req)),
      update: (req, id, body, mode) => chats.updateChannel(ctx, req.ws, id, body, opts(req), mode),
      remove: (req, id) => chats.deleteChannel(ctx, req.ws, id, opts(req)),
    });

    // Messages by id.
    itemRoutes(router, '/chats/messages/:id', {
      get: (req, id) => chats.getMessage(ctx, req.ws, id, opts(req)),
      update: (req, id, body, mode) => chats.updateMessage(ctx, req.ws, id, body, opts(req), mode),
      remove: (req, id) => chats.deleteMessage(ctx, req.ws, id, opts(req)),
    });

    // A channel's messages and members.
    router.get('/chats/:channelId/messages', async (req, res) => {
      const o = opts(req);
      const q = parseListQuery(req.query, { defaultSort: NEWEST_FIRST });
      const { data, total } = await chats.listMessages(ctx, req.ws, param(req, 'channelId'), q, o);
      res.json({ data, meta: listMeta(total, q) });
    });
    router.post('/chats/:channelId/messages', async (req, res) => {
      const input = { ...(req.body as Record<string, unknown>), channelId: param(req, 'channelId') } as chats.PostMessageInput;
      res.status(201).json(await chats.postMessage(ctx, req.ws, input, opts(req)));
    });
    router.get('/chats/:channelId/members', async (req, res) => {
      const o = opts(req);
      const q = parseListQuery(req.query);
      const { data, total } = await chats.listMembers(ctx, req.ws, param(req, 'channelId'), q, o);
      res.json({ data, meta: listMeta(total, q) });
    });
    router.post('/chats/:channelId/members', async (req, res) => {
      res.status(201).json(await chats.addMember(ctx, req.ws, param(req, 'channelId'), req.body, opts(req)));
    });
    router.delete('/chats/:channelId/members/:userId', async (req, res) => {
      await chats.removeMember(ctx, req.ws, param(req, 'channelId'), param(req, 'userId'), opts(req));
      res.status(204).end();
    });
  },
};
