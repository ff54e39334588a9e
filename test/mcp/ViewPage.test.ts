// The generated views are self-contained and say nothing they should not: no script, style or
// anything else from another origin and no network call of their own, nothing of a member the expose
// map hides, every schema text escaped; the form is made from the schema (required fields, enums as
// choices, descriptions as help, bounds as the browser's checks); and the page's size is measured.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpFace, McpViewPage, McpViews } from "effect-surface/mcp"
import * as Vm from "node:vm"
import { serverOptions } from "../../examples/board/app.ts"

// The board's generated views, as a host reads them.
const boardViews = Effect.gen(function*() {
  const face = yield* McpFace.make({ ...(yield* serverOptions), views: { procedures: true } })
  const listed = (yield* face.listResources).filter((resource) => resource["mimeType"] === McpViews.MIME)
  return yield* Effect.forEach(
    listed,
    (resource) =>
      Effect.map(face.readResource(String(resource["uri"])), (contents) => ({
        uri: String(resource["uri"]),
        html: String((contents[0] as { readonly text?: string } | undefined)?.text)
      }))
  )
})

// A script compiled, not run: a syntax error anywhere in it stops the whole view, its bridge included.
const syntaxErrorOf = (script: string) =>
  Effect.try(() => new Vm.Script(script, { filename: "view.js" })).pipe(
    Effect.as(undefined),
    Effect.catch((error) => Effect.succeed(String(error.cause)))
  )

describe("generated views", () => {
  it.effect("no view loads or reaches anything from another origin", () =>
    Effect.gen(function*() {
      const views = yield* boardViews
      assert.isAbove(views.length, 0)
      for (const { html, uri } of views) {
        assert.match(html, /^<!doctype html>/, uri)
        // Only inline script and style: none with a source, no stylesheet link, no import, no URL at all.
        assert.notMatch(html, /<script[^>]*\bsrc\s*=/i, uri)
        assert.notMatch(html, /<link\b/i, uri)
        assert.notMatch(html, /@import|url\(/i, uri)
        assert.notMatch(html, /(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i, uri)
        assert.notMatch(html, /\bfetch\(|XMLHttpRequest|WebSocket|EventSource|import\(/, uri)
      }
    }).pipe(Effect.scoped))

  it.effect("every view's script is JavaScript a browser can parse", () =>
    Effect.gen(function*() {
      for (const { html, uri } of yield* boardViews) {
        const scripts = Array.from(html.matchAll(/<script>([\s\S]*?)<\/script>/g), (match) => match[1] ?? "")
        assert.strictEqual(scripts.length, 1, uri)
        assert.strictEqual(yield* syntaxErrorOf(scripts[0]!), undefined, uri)
      }
    }).pipe(Effect.scoped))

  it.effect("nothing of a member the expose map hides is in any view", () =>
    Effect.gen(function*() {
      // board.clear is declared on the board and not exposed.
      for (const { html, uri } of yield* boardViews) {
        assert.notInclude(html, "board_clear", uri)
        assert.notInclude(html, "Remove every task", uri)
      }
      assert.notInclude((yield* boardViews).map((view) => view.uri), McpViews.uriOf("board_clear"))
    }).pipe(Effect.scoped))

  it.effect("the tasks_add view is one document of a few kilobytes, its size measured", () =>
    Effect.gen(function*() {
      const view = (yield* boardViews).find((v) => v.uri === McpViews.uriOf("tasks_add"))
      const bytes = new TextEncoder().encode(view?.html ?? "").length
      yield* Effect.logInfo(`the tasks_add view is ${bytes} bytes`)
      assert.isAbove(bytes, 1000)
      assert.isBelow(bytes, 16 * 1024)
    }).pipe(Effect.scoped))

  it("a form is made from the schema: required fields, enums as choices, descriptions as help, bounds as checks", () => {
    const html = McpViewPage.fieldsOf({
      type: "object",
      properties: {
        title: { type: "string", description: "What needs doing", minLength: 1, maxLength: 80 },
        priority: { type: "string", enum: ["low", "high"] },
        estimate: { type: "integer", minimum: 0, maximum: 10 },
        urgent: { type: "boolean" },
        tags: { type: "array", items: { type: "string" } }
      },
      required: ["title", "priority"]
    })
    assert.match(
      html,
      /<input type="text" id="f0" name="title" data-kind="string" required [^>]*minlength="1"[^>]*maxlength="80"/
    )
    assert.include(html, `<p class="help" id="f0-help">What needs doing</p>`)
    assert.match(
      html,
      /<select id="f1" name="priority" data-kind="enum" required><option>low<\/option><option>high<\/option><\/select>/
    )
    assert.match(html, /<input type="number" id="f2" name="estimate" data-kind="integer" step="1" min="0" max="10">/)
    assert.include(html, `<input type="checkbox" id="f3" name="urgent" data-kind="boolean">`)
    assert.include(html, `<textarea rows="3" placeholder="JSON" id="f4" name="tags" data-kind="json"></textarea>`)
  })

  it("every text from a schema is escaped, and a script cannot be closed early", () => {
    const html = McpViewPage.toolView({
      name: "x",
      title: `<img src=x onerror=alert(1)>`,
      inputSchema: { type: "object", properties: { a: { type: "string", description: `"><script>alert(1)</script>` } } }
    })
    assert.notInclude(html, "<img")
    assert.notInclude(html, "<script>alert")
    assert.include(html, "&lt;img src=x onerror=alert(1)&gt;")
    const page = McpViewPage.document({ title: "t", body: "", script: `const s = "</script><b>"` })
    assert.include(page, `const s = "<\\/script><b>"`)
  })
})
