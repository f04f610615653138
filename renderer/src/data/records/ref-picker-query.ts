// Suggestions for a reference, user or file input: the first 20 of the target list whose id
// starts with what is typed.
import { useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse } from '../types';

export function getPickerOptions(appId: string, path: string, typed: string): Promise<ListResponse<Record<string, unknown>>> {
  return workspaceApi<ListResponse<Record<string, unknown>>>(appId, path, { query: { limit: 20, ...(typed ? { 'filter[_id][$startsWith]': typed } : {}) } });
}

export function useRefPickerQuery(appId: string, path: string, typed: string) {
  return useQuery({ queryKey: keys.refPicker(appId, path, typed), queryFn: () => getPickerOptions(appId, path, typed), staleTime: 10_000 });
}
