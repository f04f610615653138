// The auth API group: self-service /auth endpoints on the workspace API, and
// the workspace outbox on the console API.
import type { Request, Response, Router } from 'express';
import type { AppContext, Module } from '../context.js';
import { actorOf, adminOnly, requireUser } from '../caller.js';
import { parseBody } from '../../core/validate.js';
import { listMeta, parseListQuery } from '../../core/list-query.js';
import { publicUser } from '../users/index.js';
import { writableBody } from '../users/index.js';
import { changeUser } from '../users/index.js';
import { changeModeOf } from '../../core/change-mode.js';
import { ChangePasswordBody, ForgotBody, LoginBody, LogoutBody, ME_READ_ONLY, RefreshBody, REGISTER_READ_ONLY, RegisterBody, ResetBody, UpdateMeBody } from './schemas.js';
import * as auth from './service.js';
import { LoginLimiter } from './rate-limit.js';
import { findOrWait, linksAndCodes, parseTo, parseWait, stopWaits } from './outbox-wait.js';

/** The server's login limiter (its state, made on first use). */
export function limiterOf(ctx: AppContext): LoginLimiter {
  let limiter = ctx.state.auth.limiter;
  if (!limiter) {
    limiter = new LoginLimiter(ctx.config.loginRateLimit);
    limiter.shared = ctx.registry.processes.loginLimiter; // several processes on one database: one count for all
    ctx.state.auth.limiter = limiter;
  }
  return limiter;
}

export const authModule: Module = {
  name: 'auth',

  workspaceRoutes(router: Router, ctx: AppContext) {
    const limiter = limiterOf(ctx);

    router.post('/auth/register', async (req, res) => {
      const body = parseBody(RegisterBody, writableBody(req.body, REGISTER_READ_ONLY));
      res.status(201).json(await auth.register(ctx, req.ws, body));
    });

    router.post('/auth/login', async (req, res) => {
      const body = parseBody(LoginBody, req.body);
      res.json(await auth.login(ctx, req.ws, limiter, body.email, body.password));
    });

    router.post('/auth/refresh', async (req, res) => {
      const body = parseBody(RefreshBody, req.body);
      res.json(await auth.refresh(ctx, req.ws, body.refreshToken));
    });

    router.post('/auth/logout', async (req, res) => {
      const body = parseBody(LogoutBody, req.body);
      await auth.logout(ctx, req.ws, req.auth, body.refreshToken);
      res.status(204).end();
    });

    router.post('/auth/forgot-password', async (req, res) => {
      const body = parseBody(ForgotBody, req.body);
      await auth.forgotPassword(ctx, req.ws, body.email);
      res.status(202).json({ message: 'If this email belongs to an account, a recovery email has been sent' });
    });

    router.post('/auth/reset-password', async (req, res) => {
      const body = parseBody(ResetBody, req.body);
      await auth.resetPassword(ctx, req.ws, body.token, body.password);
      res.status(204).end();
    });

    router.get('/auth/me', (req, res) => {
      res.json(publicUser(requireUser(req).user));
    });

    const updateMe = async (req: Request, res: Response) => {
      const me = requireUser(req);
      const body = parseBody(UpdateMeBody, writableBody(req.body, ME_READ_ONLY, publicUser(me.user)));
      // v2's PUT replaces the profile; what the user may not change here keeps its value.
      const replace = changeModeOf(req) === 'replace' ? { replace: { keep: ME_READ_ONLY } } : {};
      res.json(publicUser(await changeUser(ctx, req.ws, me.userId, body, { actor: actorOf(req), ...replace })));
    };
    router.put('/auth/me', updateMe);
    router.patch('/auth/me', updateMe);

    const changePassword = async (req: Request, res: Response) => {
      const me = requireUser(req);
      const body = parseBody(ChangePasswordBody, req.body);
      res.json(publicUser(await auth.changePassword(ctx, req.ws, limiter, me, actorOf(req), body.currentPassword, body.newPassword)));
    };
    router.put('/auth/change-password', changePassword);
    router.patch('/auth/change-password', changePassword);

    adminOnly(router).post('/auth/impersonate/:userId', async (req, res) => {
      const admin = requireUser(req);
      res.json(await auth.impersonate(ctx, req.ws, admin, req.params.userId as string));
    });
  },

  async start(ctx: AppContext) {
    // Reset, snapshot restore and import start the workspace afresh: its failed-login counts too.
    const limiter = limiterOf(ctx);
    stopWaits(ctx);
    await ctx.registry.listen({
      replaced: (ws) => limiter.clearWorkspace(ws.id),
      deleted: (ws) => limiter.clearWorkspace(ws.id),
    });
  },

  consoleRoutes(router: Router, ctx: AppContext) {
    router.get('/workspaces/:appId/outbox', async (req, res) => {
      const wait = parseWait(req.query.wait);
      const to = parseTo(req.query.to);
      const q = parseListQuery(req.query as Record<string, unknown>, { defaultSort: [{ path: 'createdAt', dir: -1 }] });
      if (to !== undefined) q.conditions.push({ path: 'to', op: '$eq', values: [to] });
      const { data, total } = await findOrWait(ctx, req.ws, q, wait, req);
      res.json({ data: data.map((d) => ({ ...d, ...linksAndCodes(d) })), meta: listMeta(total, q) });
    });
  },
};
