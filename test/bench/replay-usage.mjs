// Preloaded with `node --import` by replay-bench: writes the process's peak resident set (KiB) to the file named by
// CONCERTINA_RSS_FILE when it exits.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

process.on('exit', () => {
  if (process.env.CONCERTINA_RSS_FILE) writeFileSync(process.env.CONCERTINA_RSS_FILE, String(process.resourceUsage().maxRSS));
});
