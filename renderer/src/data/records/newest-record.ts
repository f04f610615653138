// The newest record of a collection, or undefined (none, or it cannot be read): a sample for a
// scenario's test event.
import { enc, workspaceApi } from '../../api/client';
import type { ListResponse, Rec } from '../types';

export function getNewestRecord(appId: string, collection: string): Promise<Rec | undefined> {
  return workspaceApi<ListResponse<Rec>>(appId, `/database/${enc(collection)}`, { query: { limit: 1, sort: '-createdAt' } })
    .then((r) => r.data[0], () => undefined);
}
