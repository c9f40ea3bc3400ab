// Keys: list, create (the key and the whole Authorization header shown once), revoke after a
// confirmation page. A revoked key stops working within the spec's 60 s.
import { Code, ConnectError } from '@connectrpc/connect';
import { fromTimestamp, toTimestamp } from '@media/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { Console } from '../route-context.js';
import { html, postForm, when } from '../html.js';

export const keysRoutes: FastifyPluginAsync<Console> = async (app, c) => {
  const keysOf = async (accountId: string) => (await c.clients.auth.listKeys({ accountId })).keys;

  app.get<{ Querystring: { revoked?: string } }>('/keys', async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const keys = await keysOf(who.accountId);
    const active = keys.filter((k) => !k.revokedAt);
    const revoked = keys.filter((k) => k.revokedAt);
    return c.page(
      req,
      reply,
      { title: 'API keys', current: '/keys' },
      (csrf) => html`
      ${req.query.revoked ? html`<p role="status">Key ${req.query.revoked} was revoked: it stops working within 60 seconds.</p>` : ''}
      <h2>Create a key</h2>
      ${postForm(
        '/keys',
        csrf,
        html`<label for="name">Name</label>
          <input type="text" id="name" name="name" maxlength="100" required placeholder="e.g. production server">
          <label for="expires_at">Expires (optional, UTC)</label>
          <input type="datetime-local" id="expires_at" name="expires_at">
          <p><button type="submit">Create key</button></p>`,
      )}
      <h2>Active keys</h2>
      ${
        active.length === 0
          ? html`<p class="empty">No active keys. Create one above to call the API.</p>`
          : html`<div class="table"><table>
              <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col" class="optional">Created</th><th scope="col" class="optional">Expires</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>${active.map(
                (k) => html`<tr>
                  <td>${k.name}</td><td><code>${k.hint}</code></td>
                  <td class="optional">${when(fromTimestamp(k.createdAt))}</td><td class="optional">${when(fromTimestamp(k.expiresAt))}</td>
                  <td data-last-used="${k.keyId}">${k.lastUsedAt ? when(fromTimestamp(k.lastUsedAt)) : 'never'}</td>
                  <td><a class="button secondary" href="/keys/${k.keyId}/revoke">Revoke<span class="visually-hidden"> ${k.name}</span></a></td>
                </tr>`,
              )}</tbody></table></div>`
      }
      ${
        revoked.length
          ? html`<h2>Revoked keys</h2><div class="table"><table><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Revoked</th></tr></thead>
              <tbody>${revoked.map((k) => html`<tr><td>${k.name}</td><td><code>${k.hint}</code></td><td>${when(fromTimestamp(k.revokedAt))}</td></tr>`)}</tbody></table></div>`
          : ''
      }`,
    );
  });

  app.post<{ Body: { name?: string; expires_at?: string } }>('/keys', { preHandler: c.checkForm }, async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const name = String(req.body?.name ?? '');
    const expiry = String(req.body?.expires_at ?? '').trim();
    const expiresAt = expiry ? new Date(`${expiry}${expiry.length === 16 ? ':00' : ''}Z`) : undefined;
    let created;
    try {
      if (expiresAt && Number.isNaN(expiresAt.getTime()))
        throw new ConnectError('Key expiry must be a date and time.', Code.InvalidArgument);
      created = await c.clients.auth.createKey({
        accountId: who.accountId,
        name,
        ...(expiresAt ? { expiresAt: toTimestamp(expiresAt) } : {}),
      });
    } catch (err) {
      if (!(err instanceof ConnectError) || err.code !== Code.InvalidArgument) throw err;
      return c.page(
        req,
        reply,
        { title: 'API keys', current: '/keys' },
        () => html`<p class="notice" role="alert">${err.rawMessage}</p><p><a href="/keys">Back to the keys</a></p>`,
        400,
      );
    }
    return c.page(
      req,
      reply,
      { title: 'Key created', current: '/keys' },
      () => html`
      <p><strong>Copy it now: this is the only time the key is shown.</strong> Only a hint of it is kept.</p>
      <h2>Key “${created.key!.name}”</h2>
      <div class="secret"><pre id="key">${created.secret}</pre><button type="button" class="secondary" data-copy="key" hidden>Copy key</button></div>
      <h2>Authorization header</h2>
      <div class="secret"><pre id="header">${created.authorization}</pre><button type="button" class="secondary" data-copy="header" hidden>Copy header</button></div>
      <p>For example: <code>curl -H "Authorization: ${created.authorization}" ${c.config.API_URL}/account</code></p>
      <p><a href="/keys">Back to the keys</a></p>`,
    );
  });

  /** The key, if it is one of the signed-in account's (another account's id is "not found"). */
  const ownKey = async (accountId: string, keyId: string) => (await keysOf(accountId)).find((k) => k.keyId === keyId);

  app.get<{ Params: { id: string } }>('/keys/:id/revoke', async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const key = await ownKey(who.accountId, req.params.id);
    if (!key || key.revokedAt) return reply.callNotFound();
    return c.page(
      req,
      reply,
      { title: 'Revoke key', current: '/keys' },
      (csrf) => html`
      <p>Revoke <strong>${key.name}</strong> (<code>${key.hint}</code>)? Requests with it are refused within 60 seconds. This cannot be undone.</p>
      ${postForm(`/keys/${key.keyId}/revoke`, csrf, html`<button type="submit" class="danger">Revoke key</button> <a href="/keys">Cancel</a>`)}`,
    );
  });

  app.post<{ Params: { id: string } }>('/keys/:id/revoke', { preHandler: c.checkForm }, async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const key = await ownKey(who.accountId, req.params.id);
    if (!key) return reply.callNotFound();
    await c.clients.auth.revokeKey({ keyId: key.keyId });
    return reply.redirect(`/keys?revoked=${encodeURIComponent(key.keyId)}`, 303);
  });
};
