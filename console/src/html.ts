// Server-rendered pages: a tagged template that escapes every value it is given (escape-html)
// unless it is markup this module made, and the layout every page shares. No script or style
// from elsewhere: the page's CSS is inline, its one script is served by the console itself.
import escapeHtml from 'escape-html';

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

export interface PageContext {
  title: string;
  /** The signed-in account, when there is one: the navigation and the sign-out button. */
  accountId?: string;
  /** The account's state sentence when it is not active (the spec's texts). */
  notice?: string;
  csrfToken?: string;
  docsUrl?: string;
  /** Which navigation entry is current. */
  current?: string;
}

const NAV = [
  ['/keys', 'Keys'],
  ['/usage', 'Usage'],
  ['/jobs', 'Jobs'],
  ['/files', 'Files'],
  ['/webhooks', 'Webhooks'],
] as const;

export function layout(page: PageContext, body: Html): string {
  const nav = page.accountId
    ? html`<nav aria-label="Console">
        <ul>
          ${NAV.map(([href, label]) => html`<li><a href="${href}"${page.current === href ? new Html(' aria-current="page"') : ''}>${label}</a></li>`)}
          ${page.docsUrl ? html`<li><a href="${page.docsUrl}">API reference</a></li>` : ''}
        </ul>
        <form method="post" action="/signout" class="inline">
          <input type="hidden" name="_csrf" value="${page.csrfToken}">
          <span class="muted">${page.accountId}</span>
          <button type="submit">Sign out</button>
        </form>
      </nav>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Media console</title>
<style>${CSS}</style>
</head>
<body>
<header><a class="brand" href="/">Media console</a>${nav}</header>
<main id="main">
${page.notice ? html`<p class="notice" role="alert">${page.notice}</p>` : ''}
<h1>${escapeHtml(page.title)}</h1>
${body}
</main>
<script src="/console.js" defer></script>
</body>
</html>`;
}

/** A form that changes something: POST with the CSRF token. */
export function postForm(action: string, csrfToken: string, fields: Html, attrs: Html = html``): Html {
  return html`<form method="post" action="${action}" ${attrs}><input type="hidden" name="_csrf" value="${csrfToken}">${fields}</form>`;
}

export const when = (d: Date | undefined | null): string => (d ? `${d.toISOString().replace('T', ' ').slice(0, 16)} UTC` : '—');

const SIGNIFICANT = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 6, useGrouping: false });
/** GB-seconds and dollars: six significant digits, no exponent (a thumbnail costs 0.00000012 GB-s). */
export const amount = (n: number): string => SIGNIFICANT.format(n);

export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

const CSS = `
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--accent:#0b5cad;--bg:#fff;--warn:#9a3412;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
*{box-sizing:border-box}[hidden]{display:none!important}body{margin:0;color:var(--fg);background:var(--bg);line-height:1.45}
header{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.75rem 1rem;border-bottom:1px solid var(--line)}
.brand{font-weight:700;color:var(--fg);text-decoration:none}
nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;flex:1}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0;flex:1}
nav a{color:var(--accent)}nav a[aria-current=page]{font-weight:700;color:var(--fg)}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}h2{font-size:1.15rem;margin-top:2rem}
.table{overflow-x:auto}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.85rem;color:var(--muted);font-weight:600}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.muted{color:var(--muted)}.notice{border:1px solid var(--warn);color:var(--warn);padding:.75rem;border-radius:.25rem}
.empty{padding:1.5rem;border:1px dashed var(--line);border-radius:.25rem;color:var(--muted)}
form.inline{display:inline-flex;flex-wrap:wrap;gap:.5rem;align-items:center;max-width:100%}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=password],input[type=datetime-local],input[type=month],select{font:inherit;padding:.4rem;border:1px solid var(--line);border-radius:.25rem;max-width:100%;width:24rem}
button,.button{font:inherit;padding:.4rem .8rem;border:1px solid var(--accent);background:var(--accent);color:#fff;border-radius:.25rem;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:var(--accent)}button.danger{background:#b42318;border-color:#b42318}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem}
pre{background:#f6f8fa;padding:.75rem;border-radius:.25rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.chart{display:flex;align-items:flex-end;gap:2px;height:10rem;border-bottom:1px solid var(--line);padding-top:.5rem}
.chart .bar{flex:1;min-width:2px;display:flex;flex-direction:column-reverse}.chart .seg{display:block;flex-basis:0}
.s0{background:#0b5cad}.s1{background:#e8772e}.s2{background:#2e9e5b}.s3{background:#8e44ad}.s4{background:#c0392b}.s5{background:#7f8c8d}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.5rem 0 0}.legend li{display:flex;align-items:center;gap:.35rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:.15rem}
.pager{display:flex;gap:1rem;margin-top:1rem}
.drop{border:2px dashed var(--line);border-radius:.25rem;padding:1rem;margin:.5rem 0;color:var(--muted)}.drop.over{border-color:var(--accent)}
.uploads{list-style:none;padding:0}.uploads li{display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:center;padding:.35rem 0;border-bottom:1px solid var(--line)}.uploads .name{font-weight:600;overflow-wrap:anywhere}
.progress{width:12rem;height:.6rem;background:#eaeef2;border-radius:.3rem;overflow:hidden}.progress span{display:block;height:100%;background:var(--accent)}
@media (max-width:40rem){th.optional,td.optional{display:none}input[type=text],input[type=password],input[type=month],input[type=datetime-local],select{width:100%}}
`;
