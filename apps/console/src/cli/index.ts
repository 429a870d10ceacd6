/** The `reach` CLI as a library: the command runner the end-to-end test drives. */
export { cli } from './cli.js';
