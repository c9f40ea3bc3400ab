// The console's POST checks (csrf.ts) through fastify.inject, with Auth stubbed: a token is good
// for its own session only, a cross-origin POST is refused even with the right token, a console
// cookie sent twice signs nobody in, and over HTTPS the cookies carry the __Host- prefix.
import { Code, ConnectError } from '@connectrpc/connect';
import { AccountStatus } from '@media/proto/media/auth/v1/auth_pb.js';
import { loadConfig } from '@media/platform';
import { buildConsole, consoleConfigSpec } from '@media/console';
import type { FastifyInstance } from 'fastify';

const SESSIONS: Record<string, string> = { 'token-of-a': 'acc_a', 'token-of-b': 'acc_b' };
const created: { accountId: string; name: string }[] = [];
const clients = {
  close() {},
  auth: {
    async getConsoleSession({ sessionToken }: { sessionToken: string }) {
      const accountId = SESSIONS[sessionToken];
      if (!accountId) throw new ConnectError('Your console session ended. Sign in again.', Code.Unauthenticated);
      return { session: { accountId, keyId: '', accountStatus: AccountStatus.ACTIVE } };
    },
    listKeys: async () => ({ keys: [] }),
    async createKey({ accountId, name }: { accountId: string; name: string }) {
      created.push({ accountId, name });
      return { key: { name }, secret: 'mk_x', authorization: 'Basic bWtfeA==' };
    },
  },
} as never;

async function consoleAt(url: string): Promise<FastifyInstance> {
  return buildConsole({ config: loadConfig(consoleConfigSpec, { LOG_LEVEL: 'silent', CONSOLE_URL: url }), clients });
}
const tokenIn = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
const setCookies = (res: { headers: Record<string, unknown> }) => [res.headers['set-cookie'] ?? []].flat().map(String);

describe('over http', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await consoleAt('http://127.0.0.1:8083');
  });
  afterAll(() => app.close());
  beforeEach(() => void created.splice(0));

  const formOf = async (session: string) => tokenIn((await app.inject({ url: '/keys', cookies: { media_console: session } })).body);
  const createKey = (session: string, token: string, headers: Record<string, string> = {}, cookies: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/keys',
      headers,
      cookies: { media_console: session, ...cookies },
      payload: { name: 'k', _csrf: token },
    });

  test("a session's own token is accepted; another session's, or a signed-out page's, is refused", async () => {
    const ofA = await formOf('token-of-a');
    expect(ofA).not.toBe(await formOf('token-of-b'));
    expect((await createKey('token-of-a', ofA, { 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    expect(created).toEqual([{ accountId: 'acc_a', name: 'k' }]);

    expect((await createKey('token-of-a', await formOf('token-of-b'))).statusCode).toBe(403);
    // The sign-in page's token with its own secret cookie: good before sign-in only.
    const signin = await app.inject({ url: '/signin' });
    const secret = /_csrf=([^;]+)/.exec(setCookies(signin).join('\n'))![1]!;
    const refused = await createKey('token-of-a', tokenIn(signin.body), {}, { _csrf: secret });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('nothing was changed');
    expect(created).toHaveLength(1);
  });

  test('a POST from another origin is refused with the right token', async () => {
    const ofA = await formOf('token-of-a');
    expect((await createKey('token-of-a', ofA, { 'sec-fetch-site': 'same-site' })).statusCode).toBe(403);
    expect((await createKey('token-of-a', ofA, { origin: 'http://127.0.0.1:9999' })).statusCode).toBe(403);
    expect(created).toEqual([]);
    expect((await createKey('token-of-a', ofA, { origin: 'http://127.0.0.1:8083' })).statusCode).toBe(200);
  });

  test('a session cookie sent twice signs nobody in, and every copy on the path is cleared', async () => {
    const res = await app.inject({ url: '/keys/x/revoke', headers: { cookie: 'media_console=token-of-b; media_console=token-of-a' } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/signin?shadowed=1');
    const cleared = setCookies(res).filter((c) => c.startsWith('media_console=;'));
    expect(cleared.map((c) => /Path=([^;]+)/.exec(c)![1]).sort()).toEqual([
      '/',
      '/keys',
      '/keys/',
      '/keys/x',
      '/keys/x/',
      '/keys/x/revoke',
    ]);
    // A POST with it changes nothing, even with a good token.
    const ofA = await formOf('token-of-a');
    const post = await app.inject({
      method: 'POST',
      url: '/keys',
      headers: { cookie: 'media_console=token-of-a; _csrf=planted; _csrf=own' },
      payload: { name: 'k', _csrf: ofA },
    });
    expect(post.statusCode).toBe(403);
    expect(post.body).toContain('cookies twice');
    expect(created).toEqual([]);
  });
});

test('over https the cookies are __Host- ones, and the bare names are ignored', async () => {
  const app = await consoleAt('https://console.example.com');
  try {
    const signin = await app.inject({ url: '/signin' });
    expect(setCookies(signin)).toEqual([expect.stringMatching(/^__Host-csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict$/)]);
    expect((await app.inject({ url: '/keys', cookies: { media_console: 'token-of-a' } })).statusCode).toBe(303);
    expect((await app.inject({ url: '/keys', cookies: { '__Host-media_console': 'token-of-a' } })).statusCode).toBe(200);
  } finally {
    await app.close();
  }
});
