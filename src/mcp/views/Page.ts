/**
 * The generated view of a tool: one self-contained HTML document — inline style and script, no
 * network fetch, no framework — whose form is made from the tool's input JSON Schema and whose
 * submit calls the tool through the host.
 *
 * The page speaks the view side of MCP Apps by hand (JSON-RPC over `postMessage` to its parent:
 * `ui/initialize`, then `tools/call`), so it needs nothing from a CDN and nothing installed. Its
 * parts are public — the bridge script, the fields of a schema, the document shell — so an author
 * writing a view of their own can start from them. Every text from the schema is escaped; nothing
 * but the tool's own name, title, description and schema is in the page.
 *
 * @since 0.1.0
 */
import type * as Json from "../../core/Json.ts"
import { brand } from "../../core/ToolResult.ts"

/**
 * Escape text for HTML content or an attribute value.
 *
 * @example
 * ```ts
 * import { McpViewPage } from "effect-surface/mcp"
 * McpViewPage.escape(`<b title="x">`) // "&lt;b title=&quot;x&quot;&gt;"
 * ```
 *
 * @since 0.1.0
 */
export const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
    /'/g,
    "&#39;"
  )

/**
 * The view side of the MCP Apps protocol, as an inline script: `window.mcpView.request(method,
 * params)` sends a JSON-RPC request to the host and resolves with its result (rejects with its
 * error's message), `window.mcpView.on(method, f)` hears a notification, and `window.mcpView.ready`
 * resolves once `ui/initialize` is answered. A request from the host is answered with `{}`.
 *
 * @example
 * ```ts
 * import { McpViewPage } from "effect-surface/mcp"
 * const page = McpViewPage.document({ title: "Mine", body: "<p id=out></p>", script: McpViewPage.bridgeScript + "mcpView.ready.then(() => {})" })
 * ```
 *
 * @since 0.1.0
 */
export const bridgeScript = `(() => {
  let next = 1; const waiting = new Map(); const handlers = new Map();
  const post = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const m = event.data; if (!m || m.jsonrpc !== "2.0") return;
    if (m.id !== undefined && m.method === undefined) {
      const w = waiting.get(m.id); if (!w) return; waiting.delete(m.id);
      if (m.error) w.reject(new Error(m.error.message)); else w.resolve(m.result);
    } else if (m.id !== undefined) { post({ id: m.id, result: {} }); }
    else for (const f of handlers.get(m.method) || []) f(m.params || {});
  });
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = next++; waiting.set(id, { resolve, reject }); post({ id, method, params });
  });
  const on = (method, f) => handlers.set(method, [...(handlers.get(method) || []), f]);
  const ready = request("ui/initialize", {
    appInfo: { name: "effect-surface-view", version: "0.1.0" }, appCapabilities: {}, protocolVersion: "2026-01-26"
  }).then((result) => { post({ method: "ui/notifications/initialized", params: {} }); return result; });
  window.mcpView = { request, on, ready };
})();
`

/**
 * The style every generated view shares: plain, readable, following the host's light or dark scheme.
 *
 * @example
 * ```ts
 * import { McpViewPage } from "effect-surface/mcp"
 * McpViewPage.document({ title: "Mine", body: "<p>hi</p>", style: McpViewPage.baseStyle })
 * ```
 *
 * @since 0.1.0
 */
export const baseStyle = `:root{color-scheme:light dark;font:14px/1.4 system-ui,sans-serif}
body{margin:12px}h1{font-size:16px;margin:0 0 4px}h2{font-size:15px;margin:12px 0 4px}p.help,small{opacity:.75}
label{display:block;margin:8px 0 2px;font-weight:600}input,select,textarea{font:inherit;width:100%;box-sizing:border-box}
input[type=checkbox]{width:auto}button{margin-top:10px;font:inherit}
[role=alert]{color:#b00020;margin-top:8px}output{display:block;margin-top:8px;white-space:pre-wrap}
table{border-collapse:collapse}td,th{border:1px solid #8884;padding:2px 6px;text-align:left}`

/**
 * One self-contained HTML document: a title, inline style, a body and an inline script.
 *
 * @example
 * ```ts
 * import { McpViewPage } from "effect-surface/mcp"
 * McpViewPage.document({ title: "Hello", body: "<p>hello</p>" }) // "<!doctype html>..."
 * ```
 *
 * @since 0.1.0
 */
export const document = (parts: {
  readonly title: string
  readonly body: string
  readonly style?: string
  readonly script?: string
}): string =>
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
  `<title>${escape(parts.title)}</title><style>${parts.style ?? baseStyle}</style></head><body>${parts.body}` +
  // A `</script` inside the script would close it early: written as `<\/script` it reads the same.
  (parts.script === undefined ? "" : `<script>${parts.script.replace(/<\/(script)/gi, "<\\/$1")}</script>`) +
  `</body></html>`

const record = (value: Json.Json | undefined): Json.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json.JsonObject : {}

const str = (value: Json.Json | undefined): string | undefined => typeof value === "string" ? value : undefined

const num = (value: Json.Json | undefined): number | undefined => typeof value === "number" ? value : undefined

const attr = (key: string, value: string | number | undefined) =>
  value === undefined ? "" : ` ${key}="${escape(String(value))}"`

// The kind of input a property is entered with; anything the form cannot show field by field is JSON.
const kindOf = (schema: Json.JsonObject): "enum" | "boolean" | "number" | "integer" | "string" | "json" => {
  if (Array.isArray(schema["enum"]) && schema["enum"].every((v) => typeof v === "string")) return "enum"
  const type = schema["type"]
  return type === "boolean" || type === "number" || type === "integer" || type === "string" ? type : "json"
}

/**
 * The form fields of an object's JSON Schema, one per property: enums as choices, booleans as
 * checkboxes, numbers and strings with the schema's bounds as the browser's own checks, anything
 * else as JSON text; `required` marked, each description as its help.
 *
 * @example
 * ```ts
 * import { McpViewPage } from "effect-surface/mcp"
 * McpViewPage.fieldsOf({ type: "object", properties: { title: { type: "string", description: "What to do" } }, required: ["title"] })
 * ```
 *
 * @since 0.1.0
 */
export const fieldsOf = (schema: Json.JsonObject): string => {
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].map(String) : [])
  return Object.entries(record(schema["properties"])).map(([name, raw], index) => {
    const property = record(raw)
    const id = `f${index}`
    const kind = kindOf(property)
    const must = required.has(name) && kind !== "boolean" ? " required" : ""
    const description = str(property["description"])
    const label = `<label for="${id}">${escape(str(property["title"]) ?? name)}${must === "" ? "" : " *"}</label>`
    const common = `id="${id}" name="${escape(name)}" data-kind="${kind}"${must}` +
      attr("aria-describedby", description === undefined ? undefined : `${id}-help`)
    const input = kind === "enum"
      ? `<select ${common}>${must === "" ? `<option value=""></option>` : ""}${
        (property["enum"] as ReadonlyArray<string>).map((v) => `<option>${escape(v)}</option>`).join("")
      }</select>`
      : kind === "boolean"
      ? `<input type="checkbox" ${common}>`
      : kind === "number" || kind === "integer"
      ? `<input type="number" ${common}${attr("step", kind === "integer" ? 1 : "any")}${
        attr("min", num(property["minimum"]))
      }${attr("max", num(property["maximum"]))}>`
      : kind === "string"
      ? `<input type="text" ${common}${attr("minlength", num(property["minLength"]))}${
        attr("maxlength", num(property["maxLength"]))
      }${attr("pattern", str(property["pattern"]))}>`
      : `<textarea rows="3" placeholder="JSON" ${common}></textarea>`
    const help = description === undefined ? "" : `<p class="help" id="${id}-help">${escape(description)}</p>`
    return label + input + help
  }).join("")
}

// Reads the form into arguments, calls the tool, and shows the answer or the refusal's sentence.
const formScript = (tool: string) =>
  `(() => {
  const form = document.getElementById("form"); const alert = document.getElementById("alert");
  const out = document.getElementById("out"); const tool = ${JSON.stringify(tool)};
  const texts = (r) => (r.content || []).filter((b) => b.type === "text").map((b) => b.text);
  const textOf = (r) => texts(r).join("\\n");
  // A refusal's sentence: a text that is not the JSON of its structured arm, else that arm's message;
  // a person reads it without the prefix that tells an agent the framework wrote it.
  const sentenceOf = (r) => (texts(r).find((t) => !t.startsWith("{")) ||
    (r.structuredContent && (r.structuredContent.message || JSON.stringify(r.structuredContent))) || textOf(r))
    .replace(${JSON.stringify(brand)}, "");
  mcpView.on("ui/notifications/tool-input", ({ arguments: args }) => {
    for (const [k, v] of Object.entries(args || {})) { const f = form.elements.namedItem(k); if (!f) continue;
      if (f.type === "checkbox") f.checked = v === true; else f.value = typeof v === "string" ? v : JSON.stringify(v); }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault(); alert.textContent = ""; out.textContent = "";
    const args = {};
    for (const f of form.querySelectorAll("[data-kind]")) {
      const k = f.dataset.kind;
      if (k === "boolean") { args[f.name] = f.checked; continue; }
      if (f.value === "") continue;
      if (k === "number" || k === "integer") args[f.name] = Number(f.value);
      else if (k === "json") { try { args[f.name] = JSON.parse(f.value); } catch { alert.textContent = f.name + " is not valid JSON"; return; } }
      else args[f.name] = f.value;
    }
    form.dataset.state = "calling";
    try {
      await mcpView.ready;
      const result = await mcpView.request("tools/call", { name: tool, arguments: args });
      if (result.isError) alert.textContent = sentenceOf(result);
      else out.textContent = result.structuredContent ? JSON.stringify(result.structuredContent, null, 2) : textOf(result);
    } catch (error) { alert.textContent = error.message; }
    form.dataset.state = "done";
    document.dispatchEvent(new Event("mcp-view-called"));
  });
})();
`

/**
 * The live panels of a view, as an inline script filling `<section id="live">`: the surface's cells
 * (their value), collections (a table, one row per key) and streams (a log), as the host lists them
 * to this view — so only what the caller may read — read through the host. Data is written as text,
 * never as markup.
 *
 * MCP Apps (2026-01-26) lets a view read a resource through its host but not subscribe to one: a
 * view may send `tools/call`, `resources/read` (and ext-apps' AppBridge also forwards
 * `resources/list` and `notifications/resources/list_changed`), never `resources/subscribe`, and no
 * host tells a view that a resource was updated. So the panels read again, as cheaply as they can:
 * at once after each call the view makes (`mcp-view-called`), a result the host hands it, or a move of
 * the resource list; otherwise `everyMs` after a read that changed something, twice as long after
 * each that did not, up to `quietMs`; and not at all while the view is off screen or its page hidden
 * (read at once when it is back). The list is read again only when the host cannot announce its moves.
 *
 * @example
 * ```ts
 * import { McpViewPage } from "effect-surface/mcp"
 * const page = McpViewPage.document({ title: "Board", body: '<section id="live"></section>', script: McpViewPage.bridgeScript + McpViewPage.liveScript(1000) })
 * ```
 *
 * @since 0.1.0
 */
export const liveScript = (everyMs: number, quietMs: number = everyMs * 5): string =>
  `(() => {
  const live = document.getElementById("live"); if (!live) return;
  const el = (tag, text, attrs) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text;
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v); return e; };
  const show = (v) => typeof v === "string" ? v : JSON.stringify(v);
  const kindOf = (uri) => /^surface:\\/\\/(cells|collections|streams)\\/[^{}]+$/.exec(uri);
  const render = (uri, name, value, kind) => {
    const box = el("div", undefined, { "data-uri": uri, "data-kind": kind }); box.append(el("h2", name));
    if (kind === "collections" && value && typeof value === "object") {
      const rows = Object.entries(value); const cols = [...new Set(rows.flatMap(([, item]) =>
        item && typeof item === "object" ? Object.keys(item) : ["value"]))];
      const table = el("table"); const head = el("tr"); head.append(el("th", "key"));
      for (const c of cols) head.append(el("th", c)); table.append(head);
      for (const [key, item] of rows) { const tr = el("tr", undefined, { "data-key": key }); tr.append(el("td", key));
        for (const c of cols) tr.append(el("td", show(item && typeof item === "object" ? item[c] : item)));
        table.append(tr); }
      box.append(table);
    } else if (kind === "streams" && Array.isArray(value)) {
      const log = el("ol"); for (const entry of value) log.append(el("li", show(entry))); box.append(log);
    } else box.append(el("output", show(value)));
    return box;
  };
  const fast = ${Math.max(1, everyMs)}, slow = ${Math.max(1, everyMs, quietMs)};
  let delay = fast, timer, busy = false, again = false, listed, shown = "", onScreen = true;
  const visible = () => onScreen && document.visibilityState !== "hidden";
  const schedule = () => { clearTimeout(timer); if (visible()) timer = setTimeout(refresh, delay); };
  const refresh = async () => {
    if (busy) { again = true; return; }
    busy = true; clearTimeout(timer);
    try {
      const host = (await mcpView.ready || {}).hostCapabilities || {};
      if (listed === undefined || !(host.serverResources && host.serverResources.listChanged)) {
        const { resources } = await mcpView.request("resources/list", {});
        listed = resources.flatMap((r) => { const m = kindOf(r.uri); return m ? [{ uri: r.uri, name: r.title || r.name, kind: m[1] }] : []; });
      }
      const read = [];
      for (const r of listed) { const { contents } = await mcpView.request("resources/read", { uri: r.uri });
        read.push([r, contents && contents[0] && contents[0].text]); }
      const now = JSON.stringify(read.map(([r, text]) => [r.uri, r.name, text]));
      if (now === shown) delay = Math.min(delay * 2, slow);
      else {
        shown = now; delay = fast;
        live.replaceChildren(...read.map(([r, text]) => render(r.uri, r.name, text === undefined ? null : JSON.parse(text), r.kind)));
      }
      live.dataset.state = "shown";
    } catch (error) {
      shown = ""; listed = undefined; delay = Math.min(delay * 2, slow);
      live.dataset.state = "failed"; live.replaceChildren(el("p", error.message, { role: "status" }));
    }
    busy = false;
    if (again) { again = false; delay = fast; if (visible()) return refresh(); }
    schedule();
  };
  // Something may have moved: read now if the view is seen, quickly again for a while.
  const soon = () => { delay = fast; if (visible()) refresh(); };
  document.addEventListener("mcp-view-called", soon);
  mcpView.on("ui/notifications/tool-result", soon);
  mcpView.on("notifications/resources/list_changed", () => { listed = undefined; soon(); });
  const seen = (on) => { const was = visible(); onScreen = on; if (visible() !== was) visible() ? soon() : schedule(); };
  document.addEventListener("visibilitychange", () => visible() ? soon() : schedule());
  if (typeof IntersectionObserver === "function") {
    new IntersectionObserver((entries) => seen(entries[entries.length - 1].isIntersecting)).observe(document.documentElement);
  }
  refresh();
})();
`

/**
 * The generated view of one tool, from how `tools/list` advertises it: its title, description, a
 * form of its input schema whose submit calls it through the host, and the live panels
 * (`liveScript`). The form leaves judging the entry to the server, so the sentence a wrong entry is
 * refused with is the schema's own, the same an agent reads; its fields carry the schema's
 * constraints as attributes for the browser's hints.
 *
 * @example
 * ```ts
 * import { McpViewPage } from "effect-surface/mcp"
 * const html = McpViewPage.toolView({ name: "tasks_add", description: "Add a task", inputSchema: { type: "object", properties: { title: { type: "string" } } } })
 * ```
 *
 * @since 0.1.0
 */
export const toolView = (advertised: Json.JsonObject): string => {
  const name = String(advertised["name"])
  const title = str(advertised["title"]) ?? str(record(advertised["annotations"])["title"]) ?? name
  const description = str(advertised["description"])
  const body = `<h1>${escape(title)}</h1>` +
    (description === undefined ? "" : `<p class="help">${escape(description)}</p>`) +
    `<form id="form" novalidate>${fieldsOf(record(advertised["inputSchema"]))}<button type="submit">${
      escape(title)
    }</button>` +
    `<div role="alert" id="alert"></div><output id="out"></output></form><section id="live"></section>`
  return document({ title, body, script: bridgeScript + formScript(name) + liveScript(1000) })
}
