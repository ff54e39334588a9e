// `npm start`: runs the quickstart surface in process and prints what its client reads back.
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { program } from "./quickstart.ts"

NodeRuntime.runMain(Effect.flatMap(program, (count) => Console.log(`counter.add(2) → count is ${count}`)))
