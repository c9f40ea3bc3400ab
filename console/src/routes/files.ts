// Files: the account's directories with the lifetime they have left, their files, a download
// (a signed link made on the spot) and delete after a confirmation; uploads, resumable (tus, from
// the browser straight to Storage's signed upload URL: upload-js.ts), on the local-disk backend.
import { createHash } from 'node:crypto';
import { Code, ConnectError } from '@connectrpc/connect';
import { fromTimestamp } from '@media/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { Console } from '../route-context.js';
import { bytes, html, postForm, when, type Html } from '../html.js';
import type { Signed } from '../session.js';
import { statusNotice } from '../session.js';

function left(expires: Date | undefined, now = Date.now()): string {
  if (!expires) return '—';
  const sec = Math.max(0, Math.round((expires.getTime() - now) / 1000));
  if (sec >= 86_400) return `${Math.floor(sec / 86_400)} d ${Math.floor((sec % 86_400) / 3600)} h`;
  if (sec >= 3600) return `${Math.floor(sec / 3600)} h ${Math.floor((sec % 3600) / 60)} min`;
  return `${Math.floor(sec / 60)} min`;
}

/** The account in the page's upload records (upload-js.ts): a hash, so that none names the account. */
const uploadAccount = (accountId: string) => createHash('sha256').update(`media-console/${accountId}`).digest('hex').slice(0, 32);

const notFound = (err: unknown) => err instanceof ConnectError && (err.code === Code.NotFound || err.code === Code.InvalidArgument);

/** What an upload refusal from Storage says, with the status the API would answer. */
const UPLOAD_REFUSALS: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.FailedPrecondition]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 503,
  [Code.Unavailable]: 503,
};

export const filesRoutes: FastifyPluginAsync<Console> = async (app, c) => {
  /** The upload box (shown by upload.js; hidden without it): only where Storage takes browser uploads. */
  const uploadBox = (who: Signed, csrf: string, dir?: string): Html | string => {
    if (!c.config.STORAGE_PUBLIC_URL || statusNotice(who.status, c.config.CONSOLE_URL, c.config.SUPPORT_CONTACT)) return '';
    return html`<section id="upload" aria-labelledby="upload-title" hidden data-upload="/files/upload" data-csrf="${csrf}" data-dir="${dir ?? ''}" data-account="${uploadAccount(who.accountId)}" data-chunk="${c.config.UPLOAD_CHUNK_MB * 1024 * 1024}">
      <h2 id="upload-title">Upload files</h2>
      <p class="muted">${dir ? 'Into this directory.' : 'Into a new directory.'} Up to 5 GB a file. An upload that stops (a dropped connection, a closed page) resumes where it stopped: press Resume, or choose the same file again on this page, within 5 minutes of its last part.</p>
      <label for="upload-files">Choose files</label>
      <input type="file" id="upload-files" multiple>
      <div class="drop" data-drop>or drop files here</div>
      <ul class="uploads" data-uploads></ul>
    </section>
    <script src="/tus.min.js" defer></script><script src="/upload.js" defer></script>`;
  };

  // An upload URL for the signed-in account (Storage's RegisterFile, as POST /file): the page's
  // script then sends the bytes with tus. JSON in, for the script; refusals carry the spec's sentence.
  app.post<{ Body: { file_name?: string; dir_id?: string } }>('/files/upload', { preHandler: c.checkForm }, async (req, reply) => {
    const who = req.signed;
    if (!who) return reply.status(401).send({ message: 'Sign in again to upload.' });
    const notice = statusNotice(who.status, c.config.CONSOLE_URL, c.config.SUPPORT_CONTACT);
    if (notice) return reply.status(403).send({ message: notice });
    if (!c.config.STORAGE_PUBLIC_URL) return reply.status(404).send({ message: 'This console does not take uploads.' });
    const dirId = req.body.dir_id || undefined;
    try {
      const res = await c.clients.storage.registerFile({
        accountId: who.accountId,
        fileName: req.body.file_name ?? '',
        ...(dirId ? { dirId } : {}),
      });
      return {
        url: res.upload!.url,
        dir_id: res.file!.dirId,
        file_name: res.file!.fileName,
        expires_in_seconds: res.upload!.expiresInSeconds,
      };
    } catch (err) {
      const status = err instanceof ConnectError ? UPLOAD_REFUSALS[err.code] : undefined;
      if (!status) throw err;
      return reply.status(status).send({ message: (err as ConnectError).rawMessage });
    }
  });

  app.get('/files', async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const { directories } = await c.clients.storage.listDirectories({ accountId: who.accountId });
    return c.page(
      req,
      reply,
      { title: 'Files', current: '/files' },
      (csrf) => html`${
        directories.length === 0
          ? html`<p class="empty">No directories. Uploads (here, or POST /file) and job outputs make them; each lives 24 hours unless made with another lifetime.</p>`
          : html`<div class="table"><table><thead><tr><th scope="col">Directory</th><th scope="col" class="optional">Created</th><th scope="col">Time left</th></tr></thead>
            <tbody>${directories.map((d) => html`<tr><td><a href="/files/${d.id}">${d.id}</a></td><td class="optional">${when(fromTimestamp(d.addedOn))}</td><td>${left(fromTimestamp(d.expiresAt))}</td></tr>`)}</tbody></table></div>`
      }
      ${uploadBox(who, csrf)}`,
    );
  });

  app.get<{ Params: { dir: string } }>('/files/:dir', async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    let files;
    try {
      files = (await c.clients.storage.listFiles({ accountId: who.accountId, dirId: req.params.dir })).files;
    } catch (err) {
      if (notFound(err)) return reply.callNotFound();
      throw err;
    }
    const infos = await Promise.all(
      files.map((f) =>
        f.uploaded
          ? c.clients.storage.getFileInfo({ file: { accountId: who.accountId, dirId: f.dirId, fileName: f.fileName } }).then(
              (r) => r.fileInfo,
              () => undefined,
            )
          : undefined,
      ),
    );
    return c.page(
      req,
      reply,
      { title: `Directory ${req.params.dir}`, current: '/files' },
      (csrf) => html`
      ${
        files.length === 0
          ? html`<p class="empty">This directory is empty.</p>`
          : html`<div class="table"><table><thead><tr><th scope="col">File</th><th scope="col">Size</th><th scope="col" class="optional">Type</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>${files.map((f, i) => {
                const info = infos[i];
                const q = `name=${encodeURIComponent(f.fileName)}`;
                return html`<tr><td>${f.uploaded ? html`<a href="/files/${f.dirId}/download?${q}">${f.fileName}</a>` : html`${f.fileName} <span class="muted">(upload not finished)</span>`}</td>
                  <td>${info ? bytes(Number(info.fileSize)) : '—'}</td><td class="optional">${info?.fileType ?? '—'}</td>
                  <td>${postForm(`/files/${f.dirId}/delete?${q}`, csrf, html`<button type="submit" class="secondary">Delete<span class="visually-hidden"> ${f.fileName}</span></button>`, html`class="inline" data-confirm="Delete ${f.fileName}?"`)}</td></tr>`;
              })}</tbody></table></div>`
      }
      ${uploadBox(who, csrf, req.params.dir)}
      <p><a href="/files">All directories</a></p>`,
    );
  });

  app.get<{ Params: { dir: string }; Querystring: { name?: string } }>('/files/:dir/download', async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    try {
      const { download } = await c.clients.storage.getDownload({
        file: { accountId: who.accountId, dirId: req.params.dir, fileName: req.query.name ?? '' },
        expiresInSeconds: 300,
      });
      return reply.redirect(download!.url, 303);
    } catch (err) {
      if (notFound(err)) return reply.callNotFound();
      throw err;
    }
  });

  app.post<{ Params: { dir: string }; Querystring: { name?: string } }>(
    '/files/:dir/delete',
    { preHandler: c.checkForm },
    async (req, reply) => {
      const who = c.signedIn(req, reply);
      if (!who) return reply;
      try {
        await c.clients.storage.deleteFile({ file: { accountId: who.accountId, dirId: req.params.dir, fileName: req.query.name ?? '' } });
      } catch (err) {
        if (!notFound(err)) throw err;
      }
      return reply.redirect(`/files/${encodeURIComponent(req.params.dir)}`, 303);
    },
  );
};
