// An Auth that answers every account active: Storage run alone in a test asks it, as it asks Auth
// on each upload request (the account's state has its own tests, upload-account.test.ts).
import { AccountStatus, AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { createLogger, startConnectServer } from '@media/platform';

export async function startFakeAuth(): Promise<{ url: string; close(): Promise<void> }> {
  return startConnectServer({
    name: 'auth',
    logger: createLogger('auth', 'silent'),
    host: '127.0.0.1',
    port: 0,
    health: { services: [AuthService.typeName] },
    routes: (router) =>
      router.service(AuthService, { getAccount: async (req) => ({ account: { accountId: req.accountId, status: AccountStatus.ACTIVE } }) }),
  });
}
