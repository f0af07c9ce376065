// Start-up failures of `concertina serve` as misuse: whatever goes wrong opening the store or binding the server is
// a UsageError naming the flag, with the operating system's or SQLite's reason in words.
import { statSync } from 'node:fs';
import path from 'node:path';
import { openFailure, sqliteReason, StoreOpenError } from '../store/errors.js';
import { UsageError, systemReason } from './export.js';

/** What in the file system keeps `file` from being a database file, if anything. */
function pathProblem(file: string): string | undefined {
  try {
    const s = statSync(file);
    if (s.isDirectory()) return 'is a directory';
    if (!s.isFile()) return 'is not a regular file';
    return undefined;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') return systemReason(error);
  }
  const dir = path.dirname(path.resolve(file));
  try {
    if (!statSync(dir).isDirectory()) return 'a part of the path is not a directory';
  } catch (error) {
    return (error as { code?: unknown }).code === 'ENOENT'
      ? `the directory ${dir} does not exist`
      : systemReason(error);
  }
  return undefined;
}

/** Opens the store in `file` with `open`; any failure becomes a UsageError `<flag> <file>: <reason>`. */
export function openStoreFile<S>(flag: string, file: string, open: (file: string) => S): S {
  const problem = pathProblem(file);
  if (problem) throw new UsageError(`${flag} ${file}: ${problem}`);
  try {
    return open(file);
  } catch (error) {
    const reason =
      error instanceof StoreOpenError || sqliteReason(error)
        ? openFailure(error)
        : (pathProblem(file) ?? systemReason(error));
    // The way out, where the file is there but unusable: it is never changed, and another file starts afresh.
    const kept =
      error instanceof StoreOpenError || sqliteReason(error)
        ? ' (left as it is; another --store file starts a fresh run)'
        : '';
    throw new UsageError(`${flag} ${file}: ${reason}${kept}`);
  }
}

/** A failure to listen on `host`:`port` as a UsageError naming the flag at fault. */
export function listenError(host: string, port: number, error: unknown): UsageError {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(`--port ${port} is in use`);
    case 'EACCES':
    case 'EPERM':
      return new UsageError(
        `--port ${port}: permission denied${port < 1024 ? ' (ports below 1024 need privileges)' : ''}`,
      );
    case 'EADDRNOTAVAIL':
      return new UsageError(`--host ${host} is not an address of this machine`);
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
      return new UsageError(`--host ${host} is neither an IP address nor a known host name`);
    case 'EAI_AGAIN':
      return new UsageError(`--host ${host}: its name cannot be resolved now (try again, or give an IP address)`);
    case 'EAFNOSUPPORT':
      return new UsageError(`--host ${host}: this machine does not support its address family`);
    default:
      return new UsageError(`--host ${host} --port ${port}: cannot listen (${systemReason(error)})`);
  }
}
