// What every kind of load shares: the client, the accounts (each with a directory holding the
// inputs), the webhook receiver, the seeded randomness and what the uploads and downloads found.
import { createHash } from 'node:crypto';
import type { Account, Client } from '../client.js';
import type { Random } from '../random.js';
import type { DownloadCheck, Upload } from '../record.js';

export interface LoadAccount extends Account {
  /** The directory holding clip.mp4 (and slow.mp4), and the uploads. */
  dirId: string;
  seq: number;
}

export interface LoadContext {
  client: Client;
  accounts: LoadAccount[];
  webhookUrl(account: string): string;
  rng: Random;
  uploads: Upload[];
  downloads: DownloadCheck[];
  now(): number;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A name unique in the run for this account's next output or upload. */
export const nextName = (a: LoadAccount, prefix: string, ext: string) => `${prefix}-${++a.seq}.${ext}`;

/** A task on the account's clip: one PNG frame (cheap), named uniquely. */
export const frameTask = (a: LoadAccount, prefix: string) => ({
  inputs: [{ file_path: `${a.dirId}/clip.mp4` }],
  outputs: [{ file: nextName(a, prefix, 'png'), options: ['-frames:v', '1'] }],
});
