// An admin token for download and preview links (`?token=`: a link cannot send a header), kept
// a minute.
import { useQuery } from '@tanstack/react-query';
import { adminToken } from '../../api/client';
import { keys } from '../keys';

export function useDownloadTokenQuery(appId: string) {
  return useQuery({ queryKey: keys.downloadToken(appId), queryFn: () => adminToken(appId), staleTime: 60_000 });
}
