// tus-js-client runs for the tests: one upload to its end, to its error, or cut by the test.
import { Upload, type DetailedError, type UploadOptions } from 'tus-js-client';

export type UploadResult = { ok: true; url: string | null } | { ok: false; err: DetailedError };

/** Runs one tus upload to its end, or to its error (no retries); resolves with what happened. */
export function runUpload(data: Buffer, options: UploadOptions): Promise<UploadResult> {
  return new Promise((resolve) => {
    const u: Upload = new Upload(data, {
      retryDelays: [],
      ...options,
      onSuccess: () => resolve({ ok: true, url: u.url }),
      onError: (err) => resolve({ ok: false, err: err as DetailedError }),
    });
    u.start();
  });
}

/**
 * Starts an upload and aborts it (as a dropped connection would end it) once the server has
 * acknowledged `fraction` of the bytes; resolves with how many bytes were sent by then.
 */
export function cutUpload(data: Buffer, options: UploadOptions, fraction: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let cut = false;
    const u: Upload = new Upload(data, {
      retryDelays: [],
      ...options,
      onProgress: (sent) => {
        if (cut || sent < data.length * fraction) return;
        cut = true;
        u.abort().then(() => resolve(sent), reject);
      },
      onSuccess: () => reject(new Error('the upload ended before it was cut')),
      onError: reject,
    });
    u.start();
  });
}

/** The offset the first PATCH of an upload starts from (where a resumed upload resumed). */
export function firstPatchOffset(): { options: Pick<UploadOptions, 'onBeforeRequest'>; offset: () => number } {
  let offset = -1;
  return {
    options: {
      onBeforeRequest: (req) => {
        if (req.getMethod() === 'PATCH' && offset < 0) offset = Number(req.getHeader('Upload-Offset'));
      },
    },
    offset: () => offset,
  };
}
