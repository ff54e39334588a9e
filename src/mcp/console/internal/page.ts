/**
 * The operator's console page: one HTML document with its script and styles inline.
 *
 * The page ships inside the package as text, so serving it needs no build step and no static
 * directory. The document is a shell holding nothing of the console (its base path is all that is
 * filled in), since anyone on this machine may fetch it. Its script takes the console's key from the
 * link's `#key=` (or the older `?key=`), keeps it in the tab's `sessionStorage` (bound to this scheme,
 * host and port, unlike a cookie) and clears it from the address bar. It reads the event stream with
 * `fetch` (an `EventSource` cannot send the key as a header), takes the page's token and title from
 * its first event, applies each move to what it shows, and posts the operator's decisions with the key
 * and the token. Everything it shows is written as text nodes, never as markup, so a tool's name or an
 * argument cannot run in the page.
 *
 * @since 0.1.0
 */

const style = `
:root{color-scheme:light dark;--bg:#0f1115;--fg:#e6e6e6;--mute:#9aa0a6;--line:#2a2e36;--card:#171a21;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--acc:#58a6ff}
@media (prefers-color-scheme: light){:root{--bg:#f6f8fa;--fg:#1f2328;--mute:#59636e;--line:#d0d7de;--card:#fff}}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
header{display:flex;gap:1em;align-items:center;padding:.8em 1.2em;border-bottom:1px solid var(--line)}
header h1{font-size:1.1em;margin:0}#live{font-size:.85em;color:var(--mute)}#live.on::before{content:"● ";color:var(--ok)}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1em;padding:1em 1.2em}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.6em .9em;margin-bottom:1em;overflow:auto}
h2{font-size:.95em;margin:.2em 0 .6em;color:var(--mute);text-transform:uppercase;letter-spacing:.04em}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25em .5em;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--mute);font-size:.85em}code,pre{font:12px ui-monospace,monospace}pre{margin:.3em 0;white-space:pre-wrap}
.ok{color:var(--ok)}.error,.refused,.denied,.deny{color:var(--bad)}.held,.running{color:var(--warn)}.approved,.allow{color:var(--ok)}
.held-call{border:1px solid var(--warn);border-radius:6px;padding:.5em;margin:.4em 0}
button{font:inherit;padding:.2em .9em;margin-right:.4em;border-radius:5px;border:1px solid var(--line);cursor:pointer}
button.approve{background:var(--ok);color:#fff}button.deny{background:var(--bad);color:#fff}
.mute{color:var(--mute)}details summary{cursor:pointer}
`

const script = `
const state = { roster: undefined, calls: [], held: [], decided: [], clients: [], cells: {}, audit: [], views: [] };
const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const kid of kids) node.append(kid instanceof Node ? kid : document.createTextNode(kid === undefined ? "" : String(kid)));
  return node;
};
const time = (ms) => new Date(ms).toLocaleTimeString();
const json = (v) => JSON.stringify(v, null, 2);
const upsert = (rows, row, key = "id") => { const i = rows.findIndex((r) => r[key] === row[key]); if (i >= 0) rows[i] = row; else rows.push(row); };
function apply(move) {
  switch (move._tag) {
    case "roster": state.roster = move.roster; break;
    case "call": upsert(state.calls, move.call); break;
    case "held": upsert(state.held, move.held); break;
    case "decided": state.held = state.held.filter((h) => h.id !== move.decided.id); upsert(state.decided, move.decided); break;
    case "client": upsert(state.clients, move.client, "key"); break;
    case "cell": state.cells[move.uri] = move.text; break;
    case "cellsServed": state.cells = Object.fromEntries(Object.entries(state.cells).filter(([uri]) => move.uris.includes(uri))); break;
    case "audit": state.audit.push(move.row); break;
    case "views": state.views = move.views; break;
  }
}
async function decide(id, decision) {
  const response = await fetch(BASE + "/decide", {
    method: "POST",
    headers: { "content-type": "application/json", "x-console-key": KEY, "x-console-token": TOKEN },
    body: JSON.stringify({ id, decision })
  });
  if (!response.ok) $("notice").textContent = await response.text();
}
function heldView() {
  if (state.held.length === 0) return [el("p", { class: "mute" }, "No call is waiting.")];
  return state.held.map((h) => el("div", { class: "held-call", "data-held": h.id },
    el("div", {}, el("strong", {}, h.tool), " from ", h.caller, el("span", { class: "mute" }, " · waits until " + time(h.deadline))),
    h.description ? el("div", { class: "mute" }, h.description) : "",
    "args" in h ? el("pre", {}, json(h.args)) : el("div", { class: "mute" }, "arguments hidden"),
    (() => { const b = el("button", { class: "approve" }, "Approve"); b.onclick = () => decide(h.id, "allow"); return b; })(),
    (() => { const b = el("button", { class: "deny" }, "Deny"); b.onclick = () => decide(h.id, "deny"); return b; })()));
}
function callsView() {
  const rows = state.calls.slice().reverse().map((c) => el("tr", { "data-call": c.id },
    el("td", {}, time(c.time)), el("td", {}, c.caller), el("td", {}, el("code", {}, c.tool)),
    el("td", { class: c.decision }, c.decision + (c.decidedBy ? " by " + c.decidedBy : "")),
    el("td", { class: c.outcome }, c.outcome), el("td", {}, c.durationMs === undefined ? "" : c.durationMs.toFixed(1) + " ms"),
    el("td", {}, "args" in c ? el("code", {}, JSON.stringify(c.args)) : "")));
  return [el("table", {}, el("tr", {}, ...["time", "caller", "tool", "decision", "outcome", "took", "args"].map((h) => el("th", {}, h))), ...rows)];
}
function rosterView() {
  const r = state.roster;
  if (!r) return [el("p", { class: "mute" }, "…")];
  const list = (title, items, name, extra) => el("details", { open: "" }, el("summary", {}, title + " (" + items.length + ")"),
    el("table", {}, ...items.map((i) => el("tr", {}, el("td", {}, el("code", {}, i[name]), title === "tools" && r.toolScopes[i.name] ? el("div", { class: "mute" }, "needs " + r.toolScopes[i.name]) : ""), el("td", {}, i.description || ""),
      el("td", {}, extra ? el("details", {}, el("summary", { class: "mute" }, "schema"), el("pre", {}, json(i[extra]))) : "")))));
  return [el("div", { class: "mute" }, "generation " + r.generation),
    list("tools", r.tools, "name", "inputSchema"), list("resources", r.resources, "uri"),
    list("templates", r.templates, "uriTemplate"), list("prompts", r.prompts, "name", "arguments"),
    el("details", {}, el("summary", {}, "retired (" + r.tombstones.length + ")"),
      el("table", {}, ...r.tombstones.map((t) => el("tr", {}, el("td", {}, el("code", {}, t.name)), el("td", {}, t.reason))))),
    el("details", {}, el("summary", {}, "kept hidden by the expose map (" + r.hidden.length + ")"),
      el("div", {}, ...r.hidden.map((h) => el("div", {}, el("code", {}, h))))),
    ...state.views.map((v) => el("details", { "data-view": v.scopes }, el("summary", {}, "as callers with scopes \u201c" + (v.scopes || "none") + "\u201d see it (" + v.tools.length + " tools)"),
      ...[["tools", v.tools], ["resources", v.resources], ["templates", v.templates], ["prompts", v.prompts]].map(([k, names]) =>
        el("div", {}, el("span", { class: "mute" }, k + ": "), ...names.map((n) => el("code", {}, n + " "))))))];
}
function sideView() {
  return [
    el("h2", {}, "Clients"),
    el("table", {}, ...state.clients.map((c) => el("tr", {}, el("td", {}, (c.subject === undefined ? "" : c.subject + " — ") + c.name), el("td", {}, c.era), el("td", { class: "mute" }, c.session ? "session " + c.session.slice(0, 8) : ""),
      el("td", { class: "mute" }, "instance " + c.instance), el("td", { class: "mute" }, c.calls + " call(s), last " + time(c.lastSeen))))),
    el("h2", {}, "Cells"),
    el("table", {}, ...Object.entries(state.cells).map(([uri, text]) => el("tr", {}, el("td", {}, el("code", {}, uri)), el("td", {}, el("code", {}, text))))),
    el("h2", {}, "Decisions"),
    el("table", {}, ...state.decided.slice().reverse().map((d) => el("tr", {}, el("td", {}, time(d.time)), el("td", {}, el("code", {}, d.tool)),
      el("td", { class: d.decision }, d.decision), el("td", {}, "by " + d.by), el("td", {}, "for " + d.caller), el("td", { class: "mute" }, d.reason || "")))),
    el("h2", {}, "Audit"),
    el("table", {}, ...state.audit.slice().reverse().map((row) => el("tr", {}, ...Object.values(row).map((v) => el("td", {}, String(v))))))
  ];
}
function render() {
  $("held").replaceChildren(el("h2", {}, "Waiting for you (" + state.held.length + ")"), ...heldView());
  $("calls").replaceChildren(el("h2", {}, "Calls"), ...callsView());
  $("roster").replaceChildren(el("h2", {}, "What agents see"), ...rosterView());
  $("side").replaceChildren(...sideView());
}
const live = (on, text) => { $("live").className = on ? "on" : ""; $("live").textContent = text; };
function received(event, data) {
  if (event === "page") { TOKEN = data.token; document.title = data.title + " \\u00b7 console"; $("title").textContent = data.title; }
  else if (event === "snapshot") { Object.assign(state, data); live(true, "live"); render(); }
  else if (event === "move") { apply(data); render(); }
}
async function read(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf("\\n\\n"); end >= 0; end = buffer.indexOf("\\n\\n")) {
      let event = "message", data = "";
      for (const line of buffer.slice(0, end).split("\\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      buffer = buffer.slice(end + 2);
      if (data !== "") received(event, JSON.parse(data));
    }
  }
}
async function follow() {
  for (;;) {
    try {
      const response = await fetch(BASE + "/events", { headers: { "x-console-key": KEY }, cache: "no-store" });
      if (response.status === 401 || response.status === 403) {
        live(false, "not connected");
        $("notice").textContent = await response.text();
        return;
      }
      if (response.ok && response.body) await read(response.body);
    } catch {}
    live(false, "reconnecting…");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
// The key from the link (its fragment, or the older query), kept for this tab and cleared from the address bar.
const STORED = "effect-surface console key " + BASE;
const linked = new URLSearchParams(location.hash.slice(1)).get("key") || new URLSearchParams(location.search).get("key");
if (linked) { sessionStorage.setItem(STORED, linked); history.replaceState(null, "", location.pathname); }
const KEY = sessionStorage.getItem(STORED);
let TOKEN = "";
if (KEY) follow(); else { live(false, "not connected"); $("notice").textContent = WITHOUT_KEY; }
`

/**
 * The page's shell, with its base path and the sentence for a tab without the key written in (both
 * JSON-quoted, so neither can end the script). It holds nothing else: its title, token and state
 * arrive over the stream the key opens.
 */
export const render = (options: { readonly base: string; readonly withoutKey: string }): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>console</title><style>${style}</style></head>
<body><header><h1 id="title">console</h1><span id="live">connecting…</span><span id="notice" class="deny"></span></header>
<main><div><section id="held"></section><section id="calls"></section></div>
<div><section id="roster"></section><section id="side"></section></div></main>
<script>const BASE = ${scriptString(options.base)}; const WITHOUT_KEY = ${
    scriptString(options.withoutKey)
  };${script}</script>
</body></html>`

// A string literal safe inside a <script>: JSON, with `<` escaped so `</script>` cannot appear.
const scriptString = (text: string) => JSON.stringify(text).replace(/</g, "\\u003c")
