// Key pairs for tests, made by ssh2 and kept only when ssh2 reads both halves back: its keygen strips every leading
// zero byte of an ed25519 public key, so about one pair in 256 is malformed (mscdex/ssh2#1513) and a test using it
// fails for no fault of the code under test.
import ssh2 from 'ssh2';

interface KeyOptions {
  bits?: number;
  passphrase?: string;
  cipher?: string;
  rounds?: number;
}

export function sshKeyPair(
  type: 'ed25519' | 'ecdsa' | 'rsa',
  options: KeyOptions = {},
): { private: string; public: string } {
  const generate = ssh2.utils.generateKeyPairSync as (
    type: string,
    options: KeyOptions,
  ) => { private: string; public: string };
  const passphrase = options.passphrase;
  for (let attempt = 0; attempt < 32; attempt++) {
    const pair = generate(type, options);
    if (
      !(ssh2.utils.parseKey(pair.public) instanceof Error) &&
      !(ssh2.utils.parseKey(pair.private, passphrase) instanceof Error)
    )
      return pair;
  }
  throw new Error(`ssh2 made no readable ${String(type)} key pair in 32 attempts`);
}
