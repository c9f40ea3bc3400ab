// Webhooks: the account's signing secret, hidden until asked for, and its rotation (the replaced
// secret keeps signing beside the new one for 24 hours), with how receivers verify deliveries.
import { fromTimestamp } from '@media/platform';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Console } from '../route-context.js';
import { html, postForm, when } from '../html.js';

export const webhooksRoutes: FastifyPluginAsync<Console> = async (app, c) => {
  async function show(req: FastifyRequest, reply: FastifyReply, reveal: boolean, rotated = false) {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const secret = rotated
      ? await c.clients.auth.rotateWebhookSecret({ accountId: who.accountId })
      : await c.clients.auth.showWebhookSecret({ accountId: who.accountId });
    const until = fromTimestamp(secret.previousValidUntil);
    return c.page(
      req,
      reply,
      { title: 'Webhooks', current: '/webhooks' },
      (csrf) => html`
      ${rotated ? html`<p role="status">The secret was rotated. Deliveries are signed with both the new and the old one until ${when(until)}.</p>` : ''}
      <p>Every delivery is signed the Standard Webhooks way: <code>webhook-id</code>, <code>webhook-timestamp</code> and
        <code>webhook-signature</code> headers, verified with this secret by the <code>standardwebhooks</code> libraries
        (Node, Python and others).</p>
      <h2>Signing secret</h2>
      ${
        reveal || rotated
          ? html`<div class="secret"><pre id="secret">${secret.secret}</pre><button type="button" class="secondary" data-copy="secret" hidden>Copy secret</button></div>`
          : html`<p><code>whsec_••••••••••••••••</code></p>${postForm('/webhooks/reveal', csrf, html`<button type="submit" class="secondary">Reveal secret</button>`)}`
      }
      ${until && !rotated ? html`<p class="muted">The previous secret also signs deliveries until ${when(until)}.</p>` : ''}
      <h2>Rotate</h2>
      <p>A new secret signs every delivery from now on; the current one keeps signing beside it for 24 hours, so receivers can switch without missing one.</p>
      ${postForm('/webhooks/rotate', csrf, html`<button type="submit">Rotate secret</button>`)}`,
    );
  }
  app.get('/webhooks', (req, reply) => show(req, reply, false));
  // POST, not a link: a secret shown only on purpose, never in a URL or a history entry.
  app.post('/webhooks/reveal', { preHandler: c.checkForm }, (req, reply) => show(req, reply, true));
  app.post('/webhooks/rotate', { preHandler: c.checkForm }, (req, reply) => show(req, reply, false, true));
};
