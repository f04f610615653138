// Creates a user.
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { User } from '../types';

export interface UserCreateVariables { email: string; password: string; name?: string; role: string }

export function createUser(appId: string, body: UserCreateVariables): Promise<User> {
  return workspaceApi<User>(appId, '/users', { method: 'POST', body });
}

export function useUserCreateMutation(appId: string, options?: MutationOptions<User, UserCreateVariables>) {
  return useWriteMutation((body: UserCreateVariables) => createUser(appId, body), () => [keys.users(appId), keys.counts(appId)], options);
}
