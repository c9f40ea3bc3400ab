// MongoDB error documents: the server answers {ok: 0, errmsg, code, codeName} so the driver raises
// the same MongoServerError a real server would cause.
import type { Document } from 'bson';

const CODE_NAMES: Record<number, string> = {
  2: 'BadValue',
  9: 'FailedToParse',
  13: 'Unauthorized',
  14: 'TypeMismatch',
  26: 'NamespaceNotFound',
  27: 'IndexNotFound',
  28: 'PathNotViable',
  40: 'ConflictingUpdateOperators',
  43: 'CursorNotFound',
  48: 'NamespaceExists',
  59: 'CommandNotFound',
  66: 'ImmutableField',
  67: 'CannotCreateIndex',
  72: 'InvalidOptions',
  73: 'InvalidNamespace',
  85: 'IndexOptionsConflict',
  86: 'IndexKeySpecsConflict',
  238: 'NotImplemented',
  11000: 'DuplicateKey',
  40323: 'Location40323',
  40324: 'Location40324',
};

export class CommandError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** Extra fields of the error document (keyPattern/keyValue for duplicates). */
    readonly extra: Document = {},
  ) {
    super(message);
  }

  toDocument(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: CODE_NAMES[this.code] ?? 'UnknownError', ...this.extra };
  }

  /** The shape of one entry of a write command's `writeErrors`. */
  toWriteError(index: number): Document {
    return { index, code: this.code, errmsg: this.message, ...this.extra };
  }
}

/** For features of MongoDB this test server deliberately does not implement. */
export function notImplemented(what: string): CommandError {
  return new CommandError(238, `mongo-wire test server does not support ${what}`);
}

export function toErrorDocument(err: unknown): Document {
  if (err instanceof CommandError) return err.toDocument();
  // A bug or an unexpected input: still a proper error document, never a dropped connection.
  return { ok: 0, errmsg: `internal error: ${(err as Error)?.message ?? String(err)}`, code: 1, codeName: 'InternalError' };
}
