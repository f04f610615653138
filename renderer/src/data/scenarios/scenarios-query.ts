// A page of the workspace's scenarios, the most recently changed first.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { ListResponse, Scenario } from '../types';

export function getScenarios(appId: string, page: { limit: number; offset: number }): Promise<ListResponse<Scenario>> {
  return workspaceApi<ListResponse<Scenario>>(appId, '/scenarios', { query: { ...page, sort: '-updatedAt' } });
}

export function useScenariosQuery(appId: string, page: { limit: number; offset: number }) {
  return useQuery({ queryKey: keys.scenariosPage(appId, page.offset), queryFn: () => getScenarios(appId, page), placeholderData: keepPreviousData });
}
