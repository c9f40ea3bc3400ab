// Test harness: the whole stack on ephemeral ports in a temp DATA_DIR, plus a console client.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@connectrpc/connect';
import { AccountStatus, AuthAdminService } from '@media/proto/media/auth/v1/auth_pb.js';
import { createServiceClient, toTimestamp } from '@media/platform';
import { EPHEMERAL_PORTS, startStack, type Env, type Stack } from './index.js';

export interface TestStack extends Stack {
  admin: Client<typeof AuthAdminService>;
  dataDir: string;
  /** A new account (status active unless given) with one key; returns the Authorization value too. */
  newAccount(status?: AccountStatus): Promise<{ accountId: string; keyId: string; key: string; authorization: string }>;
  newKey(accountId: string, expiresAt?: Date): Promise<{ keyId: string; key: string; authorization: string }>;
}

export async function startTestStack(env: Env = {}): Promise<TestStack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'media-stack-'));
  const stack = await startStack({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, HOST: '127.0.0.1', ...EPHEMERAL_PORTS, ...env });
  const admin = createServiceClient(AuthAdminService, stack.adminUrl, { breaker: false });
  const newKey = async (accountId: string, expiresAt?: Date) => {
    const res = await admin.client.createKey({ accountId, name: 'test', expiresAt: expiresAt ? toTimestamp(expiresAt) : undefined });
    return { keyId: res.key!.keyId, key: res.secret, authorization: res.authorization };
  };
  return {
    ...stack,
    admin: admin.client,
    dataDir,
    newKey,
    async newAccount(status = AccountStatus.ACTIVE) {
      const { account } = await admin.client.createAccount({ status });
      return { accountId: account!.accountId, ...(await newKey(account!.accountId)) };
    },
    async close() {
      admin.close();
      await stack.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
