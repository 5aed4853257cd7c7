/** Provider kinds this build can use; checked before anything is opened. */
export const KNOWN_PROVIDERS: readonly string[] = ['local', 'ssh', 'vastai'];
