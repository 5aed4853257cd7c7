export * from './billing';
export * from './commands';
export * from './errors';
export * from './job';
export * from './policy';
export * from './stages';
export * from './views';
