// What the user is told when the server cannot start or stops: a dialog that says what happened
// and what to do, with the actions that help (failures are also in the log file).
import type { ServerFailure } from './server-protocol.js';

export type FailureAction = 'retry' | 'choose-folder' | 'default-folder' | 'open-logs' | 'quit';

export interface FailureDialog {
  title: string;
  message: string;
  detail: string;
  /** Button labels and the action of each, in order; the first is the default. */
  buttons: { label: string; action: FailureAction }[];
}

const retry = { label: 'Try Again', action: 'retry' } as const;
const choose = { label: 'Choose Another Folder…', action: 'choose-folder' } as const;
const logs = { label: 'Open the Logs Folder', action: 'open-logs' } as const;
const quit = { label: 'Quit', action: 'quit' } as const;

export function failureDialog(f: ServerFailure, defaultDataDir: string): FailureDialog {
  const folder = f.path ?? 'the data folder';
  const useDefault = f.path && f.path !== defaultDataDir ? [{ label: 'Use the Default Folder', action: 'default-folder' as const }] : [];
  switch (f.kind) {
    case 'folder-locked':
      return {
        title: 'Data folder in use',
        message: 'Another Homebase is using this data folder.',
        detail: `${f.message}\n\nStop the other Homebase (a terminal running "homebase serve", or another copy of this app) and try again, or choose another folder.`,
        buttons: [retry, choose, ...useDefault, quit],
      };
    case 'disk-full':
      return {
        title: 'Disk full',
        message: 'The disk holding the data folder is full.',
        detail: `Homebase cannot write to ${folder}. Nothing it acknowledged is lost. Free some space on that disk and try again, or choose a folder on another disk.\n\n${f.message}`,
        buttons: [retry, choose, logs, quit],
      };
    case 'no-access':
      return {
        title: 'Data folder not writable',
        message: 'Homebase cannot write to its data folder.',
        detail: `${folder} cannot be created or written (${f.message}). Give your user write access to it, or choose another folder.`,
        buttons: [choose, retry, ...useDefault, quit],
      };
    case 'port':
      return {
        title: 'No port available',
        message: 'Homebase could not listen on 127.0.0.1.',
        detail: `${f.message}\n\nPort 4700 and the free port tried instead are both refused. Close programs holding local ports, or check that the loopback interface is up, then try again.`,
        buttons: [retry, logs, quit],
      };
    case 'crash':
      return {
        title: 'Server stopped',
        message: 'The Homebase server stopped unexpectedly.',
        detail: `${f.message} Every write it acknowledged is on disk. Restart it; if this happens again, the log says why: ${f.path ?? 'the logs folder'}.`,
        buttons: [{ label: 'Restart the Server', action: 'retry' }, logs, quit],
      };
    default:
      return {
        title: 'Server failed to start',
        message: 'The Homebase server could not start.',
        detail: `${f.message}\n\nThe log file in the logs folder has the details. Try again, or choose another data folder.`,
        buttons: [retry, choose, logs, quit],
      };
  }
}
