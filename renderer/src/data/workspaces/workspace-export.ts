// Downloads a workspace's dump as a file.
import { consoleDownload, enc } from '../../api/client';

export function exportWorkspace(appId: string): Promise<void> {
  return consoleDownload(`/workspaces/${enc(appId)}/export`, `${appId}-export.json`);
}
