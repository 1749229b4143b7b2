import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderHooksJsonSchema } from '../src/core/hooks/config/json-schema';

/** Writes media/hooks.schema.json; a unit test fails when the committed file is stale. */
const target = resolve(__dirname, '..', 'media', 'hooks.schema.json');
writeFileSync(target, renderHooksJsonSchema());
console.log(`wrote ${target}`);
