// Asset staging over SSH to a private loopback sshd: the SDK, the slot stub and the demo applications copied into
// a temporary workRoot with their content and executable bits, checked by sha256 on this side; a second staging
// copies nothing; a changed or missing remote file is copied again, and only it.
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectAssets, stageAssets, type AssetFile } from '../../runners/live/asset-staging.js';
import { repositoryAssetsDir } from '../../runners/live/live-world.js';
import { openSshRunner, type SshRunner } from '../../runners/ssh/ssh-runner.js';
import { hostLogin, sshOptions } from './harness/host-login.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const missing = sshdMissing();
if (missing) {
  if (process.env.CI) throw new Error(`the asset staging tests cannot run: ${missing}`);
  console.warn(`Skipping the asset staging tests: ${missing}.`);
}

let sshd: Sshd;
let dir: string;
let runner: SshRunner;
let files: AssetFile[];

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.skipIf(missing !== undefined)('asset staging over SSH', () => {
  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-staging-'));
    const access = hostLogin(sshd, dir);
    const { login } = access;
    runner = await openSshRunner({
      destination: login.host,
      overrides: { port: login.port, user: login.user, identityFile: login.identityFile },
      ...sshOptions(access),
      name: 'staging',
    });
    files = collectAssets(repositoryAssetsDir());
  }, 30_000);

  afterAll(async () => {
    await runner?.close();
    await sshd?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('copies every file with its content and executable bit, then nothing while the copies match', async () => {
    // A path with a space and a quote: it reaches the remote shell as one quoted word.
    const target = path.join(dir, "work root's", 'assets');
    expect(files.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        'sdk/concertina-app.mjs',
        'sdk/concertina-app.sh',
        'apps/slot-stub.sh',
        'apps/ft-demo.mjs',
        'apps/gadget-demo.mjs',
      ]),
    );
    const first = await stageAssets(runner, target, files);
    expect([...first.copied].sort()).toEqual(files.map((f) => f.path).sort());
    expect(first.unchanged).toEqual([]);
    for (const f of files) {
      const copy = path.join(target, f.path);
      expect(sha256(copy), f.path).toBe(
        createHash('sha256')
          .update(readFileSync(path.join(repositoryAssetsDir(), f.path)))
          .digest('hex'),
      );
      expect((statSync(copy).mode & 0o111) !== 0, f.path).toBe(f.executable);
    }
    expect(files.find((f) => f.path === 'apps/slot-stub.sh')!.executable).toBe(true);

    const second = await stageAssets(runner, target, files);
    expect(second.copied).toEqual([]);
    expect(second.unchanged.length).toBe(files.length);

    // A stale, a missing and a no-longer-executable copy: exactly those are written again.
    writeFileSync(path.join(target, 'apps/gadget-demo.mjs'), 'stale');
    unlinkSync(path.join(target, 'sdk/concertina-app.sh'));
    chmodSync(path.join(target, 'apps/slot-stub.sh'), 0o644);
    const third = await stageAssets(runner, target, files);
    expect([...third.copied].sort()).toEqual(['apps/gadget-demo.mjs', 'apps/slot-stub.sh', 'sdk/concertina-app.sh']);
    expect(sha256(path.join(target, 'apps/gadget-demo.mjs'))).toBe(
      files.find((f) => f.path === 'apps/gadget-demo.mjs')!.sha256,
    );
    expect(statSync(path.join(target, 'apps/slot-stub.sh')).mode & 0o777).toBe(0o755);
  }, 60_000);

  it('stages content with here-document look-alikes and shell syntax intact, executing nothing', async () => {
    const target = path.join(dir, 'hostile');
    const canary = path.join(dir, 'canary');
    const content = Buffer.from(
      `CONCERTINA_END_OF_FILE\n$(touch ${canary}) \`touch ${canary}\` ; 'x' "y" ünïcødé\n\0binary`,
    );
    const hostile: AssetFile = {
      path: 'apps/hostile.txt',
      content,
      sha256: createHash('sha256').update(content).digest('hex'),
      executable: false,
    };
    const result = await stageAssets(runner, target, [hostile]);
    expect(result.copied).toEqual(['apps/hostile.txt']);
    expect(readFileSync(path.join(target, 'apps/hostile.txt')).equals(content)).toBe(true);
    expect(() => statSync(canary)).toThrow();
  }, 30_000);
});
