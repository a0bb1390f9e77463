// Preloaded (`node --import bench/tty-probe.mjs ...`) by the inspect section of the bench: stdout
// reports a terminal $BENCH_TTY_COLUMNS wide (default 80), so `airlock inspect` takes the path it
// takes on a real terminal (colour, rows cut to the width) while the bytes go to /dev/null.
// Nothing else changes; the program cannot tell this from a terminal by these two properties.
// Into a pipe it has no effect: airlock knows a pipe from its descriptor (a terminal never is one)
// without asking process.stdout, so send the output to a file or /dev/null.
const columns = Number(process.env.BENCH_TTY_COLUMNS ?? 80);
Object.defineProperty(process.stdout, 'isTTY', { value: true });
Object.defineProperty(process.stdout, 'columns', { value: columns });
