// The account statuses Storage checks uploads against, from Auth's GetAccount RPC.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { AccountStatusSchema, type AccountStatus, type AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { enumNames, Errors, isRetryableFault } from '@media/platform';
import type { AccountStatuses, AccountStatusName } from '../domain/account-gate.js';

const STATUS = enumNames<AccountStatus, AccountStatusName>(AccountStatusSchema);

/** One call waits this long for Auth: an upload request is held while it does. */
const CALL_TIMEOUT_MS = 5_000;

export function authAccountStatuses(auth: Client<typeof AuthService>): AccountStatuses {
  return {
    async statusOf(accountId) {
      try {
        const { account } = await auth.getAccount({ accountId }, { timeoutMs: CALL_TIMEOUT_MS });
        return account ? STATUS.name(account.status) : undefined;
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.NotFound) return undefined;
        // Auth down, unreachable, too slow or its breaker open: the upload is refused for now (503).
        if (isRetryableFault(err)) throw Errors.dependencyDown();
        throw err;
      }
    },
  };
}
