// The server's health and version, polled every 10 s for the top bar (not retried: a failure is
// shown as it is).
import { useQuery } from '@tanstack/react-query';
import { consoleApi } from '../../api/client';
import { keys } from '../keys';
import type { Health } from '../types';

export function getHealth(): Promise<Health> {
  return consoleApi<Health>('/health');
}

export function useHealthQuery() {
  return useQuery({ queryKey: keys.health, queryFn: getHealth, refetchInterval: 10_000, retry: false });
}
