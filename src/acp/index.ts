/**
 * effect-surface/acp: back an ACP turn — code in an agent's turn asks the person's editor for
 * files, terminals, permission and input, with every answer checked.
 *
 * @since 0.1.0
 */
export * as AcpAgent from "./AcpAgent.ts"
export * as AcpApproval from "./AcpApproval.ts"
export * as AcpCapabilities from "./Capabilities.ts"
export * as AcpChecks from "./AcpChecks.ts"
export * as AcpElicit from "./AcpElicit.ts"
export * as AcpError from "./AcpError.ts"
export * as AcpProtocol from "./Protocol.ts"
export * as AcpSession from "./AcpSession.ts"
export * as AcpSurface from "./AcpSurface.ts"
export * as AcpToolCalls from "./AcpToolCalls.ts"
export * as AcpToolset from "./AcpToolset.ts"
export * as ScriptedEditor from "./ScriptedEditor.ts"
