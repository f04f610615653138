// A page of the workspace's users, newest last, searched by part of the email.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, User } from '../types';

export interface UsersVariables { limit: number; offset: number; search?: string }

function usersQuery({ limit, offset, search }: UsersVariables) {
  return { limit, offset, sort: 'createdAt', ...(search ? { 'filter[email][$contains]': search } : {}) };
}

export function getUsers(appId: string, vars: UsersVariables): Promise<ListResponse<User>> {
  return workspaceApi<ListResponse<User>>(appId, '/users', { query: usersQuery(vars) });
}

export function useUsersQuery(appId: string, vars: UsersVariables) {
  return useQuery({ queryKey: keys.usersPage(appId, usersQuery(vars)), queryFn: () => getUsers(appId, vars), placeholderData: keepPreviousData });
}
