// The chats API group over HTTP: channels, members and messages. Rules live in
// service.ts; this file only reads requests and writes responses.
import type { Request, Response, Router } from 'express';
import type { Module } from '../context.js';
import { requireUser } from '../auth/authenticate.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import type { SortKey } from '../../storage/query.js';
import * as chats from './service.js';

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
    router.get('/chats/channels/:id', async (req, res) => {
      res.json(await chats.getChannel(ctx, req.ws, param(req, 'id'), opts(req)));
    });
    const updateChannel = async (req: Request, res: Response) => {
      res.json(await chats.updateChannel(ctx, req.ws, param(req, 'id'), req.body, opts(req)));
    };
    router.put('/chats/channels/:id', updateChannel);
    router.patch('/chats/channels/:id', updateChannel);
    router.delete('/chats/channels/:id', async (req, res) => {
      await chats.deleteChannel(ctx, req.ws, param(req, 'id'), opts(req));
      res.status(204).end();
    });

    // Messages by id.
    router.get('/chats/messages/:id', async (req, res) => {
      res.json(await chats.getMessage(ctx, req.ws, param(req, 'id'), opts(req)));
    });
    const updateMessage = async (req: Request, res: Response) => {
      res.json(await chats.updateMessage(ctx, req.ws, param(req, 'id'), req.body, opts(req)));
    };
    router.put('/chats/messages/:id', updateMessage);
    router.patch('/chats/messages/:id', updateMessage);
    router.delete('/chats/messages/:id', async (req, res) => {
      await chats.deleteMessage(ctx, req.ws, param(req, 'id'), opts(req));
      res.status(204).end();
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
