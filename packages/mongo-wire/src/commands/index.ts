// Command dispatch: the first field of the command document names the command.
import type { Document } from 'bson';
import { CommandError } from '../errors.js';
import { adminCommands } from './admin.js';
import type { Context, Handler } from './context.js';
import { ddlCommands } from './ddl.js';
import { readCommands } from './read.js';
import { writeCommands } from './write.js';

const HANDLERS: Record<string, Handler> = { ...adminCommands, ...readCommands, ...writeCommands, ...ddlCommands };

export function runCommand(cmd: Document, ctx: Context): Document {
  const name = Object.keys(cmd)[0];
  if (name === undefined) throw new CommandError(59, 'no such command: empty command document');
  // Names match exactly; legacy spellings (ismaster, buildinfo) are listed as their own entries.
  const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (!handler) throw new CommandError(59, `no such command: '${name}'`);
  return handler(cmd, ctx);
}
