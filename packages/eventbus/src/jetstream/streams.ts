// Stream setup: create-or-update, so a service start applies config changes (e.g. a longer max_age).
import { JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';

/** Server error "stream name already in use with a different configuration". */
const STREAM_NAME_EXISTS = 10058;

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** Limits for the event stream (messages kept until max_age); WorkQueue removes a message once acked. */
  retention: 'limits' | 'workqueue';
  maxAgeMs: number;
  duplicateWindowMs: number;
  /** Copies kept on a NATS cluster's nodes (1, or 3 to survive a node's loss); consumers inherit it. */
  replicas: number;
}

export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const updatable = {
    subjects: spec.subjects,
    max_age: nanos(spec.maxAgeMs),
    duplicate_window: nanos(spec.duplicateWindowMs),
    num_replicas: spec.replicas,
  };
  try {
    await jsm.streams.add({
      name: spec.name,
      storage: StorageType.File,
      retention: spec.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
      ...updatable,
    });
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || err.code !== STREAM_NAME_EXISTS) throw err;
    // Exists with other settings: update what may change. Changing retention or storage is refused
    // by the server and surfaces here as an error, which is what we want.
    await jsm.streams.update(spec.name, updatable);
  }
}
