// What every command handler gets: the storage, the cursors and the database it runs against.
import type { Document, Long, ObjectId } from 'bson';
import type { Cursors } from '../cursors.js';
import { CommandError } from '../errors.js';
import type { Storage } from '../storage.js';

export interface Context {
  storage: Storage;
  cursors: Cursors;
  db: string;
  connectionId: number;
  /** This server process's topology version (a restart makes a new processId). */
  topologyVersion: { processId: ObjectId; counter: Long };
}

export type Handler = (cmd: Document, ctx: Context) => Document;

/** The collection name a command targets (the value of its first field). */
export function target(cmd: Document, name: string): string {
  const v = cmd[name];
  if (typeof v !== 'string' || v === '') {
    throw new CommandError(73, `collection name has invalid type ${typeof v}`);
  }
  return v;
}
