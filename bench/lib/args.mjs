// The benchmarks' command-line options: `--name value` pairs, read into an object of strings.
export function benchArgs(argv = process.argv.slice(2)) {
  return Object.fromEntries(
    argv
      .join(' ')
      .split('--')
      .filter(Boolean)
      .map((a) => a.trim().split(/\s+/)),
  );
}
