/** IPC channel names, derived from contract names so nothing is hand-listed twice. */
export const commandChannel = (command: string) => `tender:cmd:${command}`;
export const eventChannel = (topic: string) => `tender:ev:${topic}`;

/** Main → window only, outside the contract: what the application menu asks of the page
 *  (show a view, open a tender.toml in the composer). The page never sends on it. */
export const MENU_CHANNEL = 'tender:app:menu';

/** The views the menu can show, by the sidebar's `nav-<view>` buttons. */
export const MENU_VIEWS = ['ledger', 'offers', 'composer', 'run', 'settings'] as const;
export type MenuView = (typeof MENU_VIEWS)[number];

export type MenuMessage = { kind: 'show'; view: MenuView } | { kind: 'open-job'; path: string };
