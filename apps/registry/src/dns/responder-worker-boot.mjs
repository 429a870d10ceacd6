// Worker threads do not inherit tsx's loader, so the responder thread registers it before loading its TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./responder-worker.ts');
