// Resumable uploads through tus-js-client (tus 1.0 at /storage/upload/tus): progress, pause and
// resume, and resume after a page reload (tus-js-client keeps each upload's URL in localStorage
// under a fingerprint of the file; adding the same file again continues where it stopped).
import { useEffect, useRef, useState } from 'react';
import { Upload, defaultOptions } from 'tus-js-client';
import { adminToken } from '../../api/client';

export interface UploadItem { id: number; file: File; upload: Upload; sent: number; total: number; state: 'uploading' | 'paused' | 'done' | 'failed'; error?: string; resumed: boolean }

export function useUploads(appId: string, onDone: () => void) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const next = useRef(1);
  const done = useRef(onDone);
  done.current = onDone;
  const patch = (id: number, p: Partial<UploadItem>) => setItems((xs) => xs.map((x) => (x.id === id ? { ...x, ...p } : x)));

  const add = async (files: File[]) => {
    for (const file of files) {
      const id = next.current++;
      const upload: Upload = new Upload(file, {
        endpoint: `${window.location.origin}/api/app/${encodeURIComponent(appId)}/storage/upload/tus`,
        metadata: { filename: file.name, filetype: file.type || 'application/octet-stream' },
        chunkSize: 8 * 1024 * 1024,
        retryDelays: [0, 1000, 3000, 5000],
        removeFingerprintOnSuccess: true,
        storeFingerprintForResuming: true,
        // A fresh admin token on every request (uploads may outlive one).
        onBeforeRequest: async (req) => { req.setHeader('Authorization', `Bearer ${await adminToken(appId)}`); req.setHeader('X-Homebase-Console', '1'); },
        onProgress: (sent, total) => patch(id, { sent, total }),
        onSuccess: () => { patch(id, { state: 'done', sent: file.size, total: file.size }); done.current(); },
        onError: (e) => patch(id, { state: 'failed', error: errorText(e) }),
      });
      const previous = await upload.findPreviousUploads();
      const resumed = previous.length > 0;
      if (resumed) upload.resumeFromPreviousUpload(previous[0]);
      setItems((xs) => [...xs, { id, file, upload, sent: 0, total: file.size, state: 'uploading', resumed }]);
      upload.start();
    }
  };
  const pause = (item: UploadItem) => { void item.upload.abort(false); patch(item.id, { state: 'paused' }); };
  const resume = (item: UploadItem) => { item.upload.start(); patch(item.id, { state: 'uploading', error: undefined }); };
  const cancel = (item: UploadItem) => { void item.upload.abort(true); setItems((xs) => xs.filter((x) => x.id !== item.id)); };
  const clearDone = () => setItems((xs) => xs.filter((x) => x.state !== 'done'));
  useEffect(() => () => { for (const i of items) if (i.state === 'uploading') void i.upload.abort(false); }, []); // eslint-disable-line react-hooks/exhaustive-deps
  return { items, add, pause, resume, cancel, clearDone };
}

/** Uploads started earlier (this browser) and not finished: adding the same file resumes them. */
export async function unfinishedUploads(): Promise<Array<{ name: string; size: number; since: string }>> {
  const stored = await defaultOptions.urlStorage.findAllUploads();
  return stored.map((u) => ({ name: String(u.metadata?.filename ?? '?'), size: u.size ?? 0, since: u.creationTime }));
}

function errorText(e: Error): string {
  const m = /response text: (.*?)(?:, request id|$)/.exec(e.message);
  if (m) {
    try {
      const body = JSON.parse(m[1]) as { error?: { code: string; message: string } };
      if (body.error) return `${body.error.code}: ${body.error.message}`;
    } catch { /* not JSON */ }
  }
  return e.message;
}
