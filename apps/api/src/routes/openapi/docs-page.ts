// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const escape = (text: unknown) =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Inline code spans (`x`) of the document's descriptions, the only markup they use. */
const prose = (text: unknown) => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const anchor = (name: string) => `schema-${name}`;

/** A schema as indented JSON, `$ref`s linked to their component. */
function schemaBlock(schema: Json): string {
  const json = escape(JSON.stringify(schema, null, 2));
  return `<pre>${json.replace(
    /&quot;#\/components\/schemas\/([A-Za-z0-9_]+)&quot;/g,
    (_m, name: string) => `&quot;<a href="#${anchor(name)}">#/components/schemas/${name}</a>&quot;`,
  )}</pre>`;
}

function contentBlock(content: Json): string {
  return Object.entries<Json>(content ?? {})
    .map(([type, media]) => {
      const schema = media.schema && Object.keys(media.schema).length ? schemaBlock(media.schema) : '';
      return `<div class="media"><span class="type">${escape(type)}</span>${schema}</div>`;
    })
    .join('');
}

function operationBlock(method: string, path: string, op: Json): string {
  const params = (op.parameters ?? []) as Json[];
  const rows = params
    .map(
      (p) =>
        `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td>` +
        `<td><code>${escape(JSON.stringify(p.schema))}</code></td><td>${prose(p.description ?? '')}</td></tr>`,
    )
    .join('');
  const body = op.requestBody
    ? `<h4>Request body${op.requestBody.required ? '' : ' (optional)'}</h4>${contentBlock(op.requestBody.content)}`
    : '';
  const responses = Object.entries<Json>(op.responses)
    .map(
      ([status, r]) =>
        `<div class="response"><span class="status s${escape(status[0])}">${escape(status)}</span> ${prose(r.description)}` +
        `${contentBlock(r.content)}</div>`,
    )
    .join('');
  const auth = op.security?.length ? 'cookie or bearer token' : 'public';
  return `<section class="op" id="${escape(op.operationId)}">
<h3><span class="method ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3>
<p>${prose(op.summary)} <span class="auth">${auth}</span></p>
${op.description ? `<p>${prose(op.description)}</p>` : ''}
${rows ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>schema</th><th></th></tr>${rows}</table>` : ''}
${body}
<h4>Responses</h4>${responses}
</section>`;
}

/** The OpenAPI document as one static HTML page: operations by tag, then every named schema. */
export function renderDocsPage(doc: Json): string {
  const byTag = new Map<string, string[]>();
  const index: string[] = [];
  for (const [path, ops] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const tag = op.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationBlock(method, path, op)]);
      index.push(
        `<li><a href="#${escape(op.operationId)}"><span class="method ${escape(method)}">${escape(method.toUpperCase())}</span> ${escape(path)}</a></li>`,
      );
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2 id="tag-${escape(tag)}">${escape(tag)}</h2>${ops.join('\n')}`);
  const schemas = Object.entries<Json>(doc.components?.schemas ?? {})
    .map(
      ([name, schema]) =>
        `<section class="schema" id="${anchor(name)}"><h3>${escape(name)}</h3>${schemaBlock(schema)}</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} ${escape(doc.info.version)} reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1em 2em;color:#222}
code,pre{font:13px/1.4 ui-monospace,monospace}pre{background:#f6f8fa;padding:.6em;overflow:auto;max-height:30em}
.op,.schema{border-top:1px solid #ddd;padding:.4em 0}.method{display:inline-block;min-width:4.2em;font-weight:bold}
.get{color:#1a7f37}.post{color:#0969da}.put{color:#9a6700}.patch{color:#8250df}.delete{color:#cf222e}
.status{font-weight:bold}.s2,.s3{color:#1a7f37}.s4,.s5{color:#cf222e}.auth{color:#666;font-size:90%}
.type{color:#666;font-size:90%}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
ul.index{columns:2;list-style:none;padding:0}h4{margin:.6em 0 .2em}
</style></head><body>
<h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1>
<p>${prose(doc.info.description)}</p>
<p>Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI ${escape(doc.openapi)}).</p>
<ul class="index">${index.join('')}</ul>
${sections.join('\n')}
<h2 id="schemas">Schemas</h2>
${schemas}
</body></html>
`;
}
