// Preloaded with `node --import` by replay-bench: when the process exits, writes to the file named by
// CONCERTINA_USAGE_FILE its CPU seconds (user + system) and its peak resident set (KiB), as JSON. The machine the
// bench runs on may be shared, so CPU time is the figure that measures the process alone.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

process.on('exit', () => {
  const file = process.env.CONCERTINA_USAGE_FILE;
  if (!file) return;
  const { user, system } = process.cpuUsage();
  writeFileSync(file, JSON.stringify({ cpu_s: (user + system) / 1e6, max_rss_kib: process.resourceUsage().maxRSS }));
});
