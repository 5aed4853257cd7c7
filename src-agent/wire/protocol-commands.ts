// The one-shot commands' own outputs (`version`, `start`) and the error any of them prints,
// each one JSON line after the marker.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.

export interface VersionOutput {
  version: string;
  protocol: number;
}
export interface StartOutput {
  pid: number;
  alreadyRunning: boolean;
  /** The daemon's socket (absent from agents before it was added): the bootstrap reaches
   *  it straight through ssh, with no `attach` process started. */
  socket?: string;
}
export interface CommandError {
  error: { code: string; message: string; path?: string };
}
