/** IPC channel names, derived from contract names so nothing is hand-listed twice. */
export const commandChannel = (command: string) => `tender:cmd:${command}`;
export const eventChannel = (topic: string) => `tender:ev:${topic}`;
