// Peer: strip-ansi in its best case: whole input in memory, one regex pass, one write.
// (Not streaming: it cannot be, since a sequence may straddle any chunk boundary.)
import stripAnsi from 'strip-ansi';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
process.stdout.write(stripAnsi(Buffer.concat(chunks).toString('utf8')));
