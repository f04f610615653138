// Deletes a scenario and its executions.
import { enc, workspaceApi } from '../../api/client';
import { keys } from '../keys';
import { useWriteMutation, type MutationOptions } from '../mutation';

export async function deleteScenario(appId: string, id: string): Promise<void> {
  await workspaceApi(appId, `/scenarios/${enc(id)}`, { method: 'DELETE' });
}

export function useScenarioDeleteMutation(appId: string, options?: MutationOptions<void, string>) {
  return useWriteMutation((id: string) => deleteScenario(appId, id), () => [keys.scenarios(appId)], options);
}
