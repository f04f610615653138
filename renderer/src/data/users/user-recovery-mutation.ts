// Sends a user a password recovery email (it lands in the workspace's outbox).
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { User } from '../types';

export async function sendRecovery(appId: string, user: User): Promise<User> {
  await workspaceApi(appId, '/auth/forgot-password', { method: 'POST', body: { email: user.email } });
  return user;
}

export function useUserRecoveryMutation(appId: string, options?: MutationOptions<User, User>) {
  return useWriteMutation((user: User) => sendRecovery(appId, user), () => [keys.outbox(appId)], options);
}
