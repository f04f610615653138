// Creates a collection, or changes one's name and access settings.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';
import type { CollectionDef } from '../types';

/** `id` of an existing collection to change it; without it, `body` creates one (its `_id` in it). */
export interface CollectionSaveVariables { id?: string; body: Record<string, unknown> }

export function saveCollection(appId: string, { id, body }: CollectionSaveVariables): Promise<CollectionDef> {
  return id
    ? workspaceApi<CollectionDef>(appId, `/database/${enc(id)}`, { method: 'PATCH', body })
    : workspaceApi<CollectionDef>(appId, '/database', { method: 'POST', body });
}

export function useCollectionSaveMutation(appId: string, options?: MutationOptions<CollectionDef, CollectionSaveVariables>) {
  return useWriteMutation((vars: CollectionSaveVariables) => saveCollection(appId, vars), () => [keys.collections(appId), keys.counts(appId)], options);
}
