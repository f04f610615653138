// A page of a scenario's executions, newest first. Polled (the executions API has no push):
// every second while one is running or `running` (a run was just asked for), every 5 s
// otherwise (event and schedule runs start on their own).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import type { Execution, ListResponse } from '../types';

export function getExecutions(appId: string, scenarioId: string, page: { limit: number; offset: number }): Promise<ListResponse<Execution>> {
  return workspaceApi<ListResponse<Execution>>(appId, `/scenarios/${enc(scenarioId)}/executions`, { query: page });
}

export function useExecutionsQuery(appId: string, scenarioId: string, page: { limit: number; offset: number }, running: boolean) {
  return useQuery({
    queryKey: keys.executionsPage(appId, scenarioId, page.offset),
    queryFn: () => getExecutions(appId, scenarioId, page),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (running || q.state.data?.data.some((e) => e.status === 'running') ? 1_000 : 5_000),
  });
}
