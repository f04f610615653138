// A new session of a user, made by the admin (`act.sub`): its access and refresh tokens.
import { enc, workspaceApi } from '../../api/client';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { User } from '../types';

export interface Impersonation { user: User; token: string; refreshToken: string }

export async function impersonateUser(appId: string, user: User): Promise<Impersonation> {
  const r = await workspaceApi<{ token: string; refreshToken: string }>(appId, `/auth/impersonate/${enc(user._id)}`, { method: 'POST' });
  return { ...r, user };
}

export function useUserImpersonateMutation(appId: string, options?: MutationOptions<Impersonation, User>) {
  return useWriteMutation((user: User) => impersonateUser(appId, user), () => [], options);
}
