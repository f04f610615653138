// A page of users by email, searched by part of it, for picking one.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, User } from '../types';

export interface UserPickerVariables { limit: number; offset: number; search?: string }

function pickerQuery({ limit, offset, search }: UserPickerVariables) {
  return { limit, offset, sort: 'email', ...(search ? { 'filter[email][$contains]': search } : {}) };
}

export function getUserChoices(appId: string, vars: UserPickerVariables): Promise<ListResponse<User>> {
  return workspaceApi<ListResponse<User>>(appId, '/users', { query: pickerQuery(vars) });
}

export function useUserPickerQuery(appId: string, vars: UserPickerVariables) {
  return useQuery({ queryKey: keys.userPicker(appId, pickerQuery(vars)), queryFn: () => getUserChoices(appId, vars), placeholderData: keepPreviousData });
}
