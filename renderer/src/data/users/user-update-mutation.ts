// Changes a user: only what is given (a new password ends the user's other sessions).
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { User } from '../types';

export interface UserUpdateVariables { id: string; body: Partial<Pick<User, 'email' | 'name' | 'role'>> & { password?: string } }

export function updateUser(appId: string, { id, body }: UserUpdateVariables): Promise<User> {
  return workspaceApi<User>(appId, `/users/${enc(id)}`, { method: 'PATCH', body });
}

export function useUserUpdateMutation(appId: string, options?: MutationOptions<User, UserUpdateVariables>) {
  return useWriteMutation((vars: UserUpdateVariables) => updateUser(appId, vars), () => [keys.users(appId), keys.counts(appId)], options);
}
