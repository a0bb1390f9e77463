// Peer: Node's built-in util.stripVTControlCharacters, same whole-input shape as strip-ansi.mjs.
import { stripVTControlCharacters } from 'node:util';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
process.stdout.write(stripVTControlCharacters(Buffer.concat(chunks).toString('utf8')));
