// One request of the log, with its headers and bodies (credentials masked by the server).
import { useQuery } from '@tanstack/react-query';
import { consoleApi, enc } from '../../api/client';
import { keys } from '../keys';
import type { RequestDetail } from '../types';

export function getRequest(appId: string, id: string): Promise<RequestDetail> {
  return consoleApi<RequestDetail>(`/workspaces/${enc(appId)}/requests/${enc(id)}`);
}

export function useRequestQuery(appId: string, id: string) {
  return useQuery({ queryKey: keys.request(appId, id), queryFn: () => getRequest(appId, id) });
}
