// The `effect-surface` bin's program (bin/effect-surface.js runs it): see Bin.
import * as Bin from "./Bin.ts"
import * as Cli from "./Cli.ts"

Cli.main(Bin.run())
