/** Defined by build/build-agent.mjs (package version); undefined when vitest runs the source. */
declare const __AGENT_VERSION__: string | undefined;
