// The FileStore of resumable uploads, writing PATCH bodies as the plain PUT writes its body:
// through DurableFileWriter (several chunks per writev, 256 KB buffered; the disk writes started
// every 8 MB and an fsync before the PATCH is answered) instead of FileStore's own
// createWriteStream (one write per 16-64 KB chunk, no sync: completing a 400 MB upload then
// waited for all of it to reach the disk). Measured with tools/bench's tus-upload:
// docs/decisions/0012-resumable-uploads.md.
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { FileStore } from '@tus/file-store';
import { ERRORS } from '@tus/server';
import { DurableFileWriter, pipelineToFile } from '@media/blobstore';
import { Errors, isNoSpace } from '@media/platform';

export class PartFileStore extends FileStore {
  constructor(private readonly partsDir: string) {
    super({ directory: partsDir });
  }

  /**
   * Appends the body at `offset` of the part file, on disk before it resolves with the part's new
   * size (FileStore's contract): an acknowledged offset survives a power loss too.
   */
  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback(null, chunk);
      },
    });
    try {
      // Upload ids are one base64url segment (tus-disk-parts.ts), so the path stays in partsDir.
      await pipelineToFile([readable, counter], new DurableFileWriter(join(this.partsDir, id), { flags: 'r+', start: offset }));
    } catch (err) {
      // A full disk is the service's, not the client's: 503 (Retry-After set by the rules), as the
      // plain PUT answers; the bytes written so far stay and the upload resumes once there is room.
      if (isNoSpace(err)) throw { status_code: 503, body: Errors.diskFull().message };
      // As FileStore answers a body that broke off: the bytes written so far stay, HEAD tells how many.
      throw ERRORS.FILE_WRITE_ERROR;
    }
    return offset + received;
  }
}
