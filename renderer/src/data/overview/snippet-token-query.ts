// A freshly minted admin token for the snippets to copy (they work as pasted), kept 5 minutes.
import { useQuery } from '@tanstack/react-query';
import { adminToken } from '../../api/client';
import { keys } from '../keys';

export function useSnippetTokenQuery(appId: string) {
  return useQuery({ queryKey: keys.snippetToken(appId), queryFn: () => adminToken(appId, true), staleTime: 5 * 60_000 });
}
