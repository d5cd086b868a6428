// Loaded with `node --import` (NODE_OPTIONS): records every bare package a process imports, one
// per line, into the file named by PRINTRELAY_MODULE_TRACE (test of what the agent loads).
import { register } from 'node:module';

register(new URL('./hook.mjs', import.meta.url), { data: { file: process.env.PRINTRELAY_MODULE_TRACE } });
