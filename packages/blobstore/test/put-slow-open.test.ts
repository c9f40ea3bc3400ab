// A put whose body has already failed, on a disk slow to create files: Node's pipeline can settle
// before its last stream (the file writer) has created its file, and the temp file must not be
// removed before it exists. A slowed `open` makes that order certain instead of rare (CI saw it).
import { jest } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as FsPromises from 'node:fs/promises';

const fs = await import('node:fs/promises');
/** Opens begun and returned: put must not answer while one is still out. */
let opensStarted = 0;
let opensDone = 0;
jest.unstable_mockModule('node:fs/promises', () => ({
  ...fs,
  default: fs,
  // The injected fault: a disk slow to create files (not a wait of the test).
  open: (...args: Parameters<typeof FsPromises.open>) => {
    opensStarted++;
    return sleep(50)
      .then(() => fs.open(...args))
      .finally(() => opensDone++);
  },
}));
const { tempDir } = await import('@media/testkit');
const { createLocalDiskBlobStore } = await import('../src/index.js');

it('leaves no temp file behind when the body failed before the file was created', async () => {
  const dir = await tempDir('blobstore-slow-open-');
  try {
    const store = createLocalDiskBlobStore({ root: dir.path, publicBaseUrl: 'https://media.example/storage/', signingSecret: 's3cret' });
    const body = new PassThrough();
    body.on('error', () => undefined); // as the signed handler's counter: put reports the error
    body.destroy(new Error('The upload was interrupted.'));
    await expect(store.put('acc/gone.bin', body)).rejects.toThrow('The upload was interrupted.');
    // No file can come after the answer: the slow open had returned by then, and its file is gone.
    expect(opensStarted).toBeGreaterThan(0);
    expect(opensDone).toBe(opensStarted);
    expect(await fs.readdir(`${dir.path}/.tmp`)).toEqual([]);
    expect(await store.head('acc/gone.bin')).toBeNull();
  } finally {
    await dir.remove();
  }
});
