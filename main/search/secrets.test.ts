import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KEY_LINES, KeyBlocks, mayHold, REDACTED, redact, redactLine } from './secrets.ts';

describe('redact', () => {
  it.each([
    ['export OPENAI_API_KEY=sk-proj-abcDEF1234567890ghijKLMN', 'sk-proj'],
    ['key sk-ant-api03-AAAAbbbbCCCCdddd1234 in the log', 'sk-ant'],
    ['git clone https://ghp_0123456789abcdefghijABCDEFGHIJ@github.com/x/y', 'ghp_'],
    ['token github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'github_pat_'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'AKIA'],
    ['slack xoxb-123456789012-abcdefABCDEF', 'xoxb'],
    ['curl -H "Authorization: Bearer Zm9vYmFyYmF6cXV1eDEyMzQ1Njc4OTA="', 'Zm9v'],
    ['password=Tr0ub4dor&3xyzQ9!kLmN', 'Tr0ub4dor'],
    ['api_key: "d41d8cd98f00b204e9800998ecf8427e"', 'd41d8cd9'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'eyJ'],
    ['stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'sk_live_4eC3'],
    ['//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 and npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8', 'npm_a1B2'],
    ['git push https://oauth2:glpat-xY7zQ2wE9rT4uI1oP3aS@gitlab.com/x/y', 'glpat-xY7'],
    ['HF hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', 'hf_AbCd'],
    ['twine upload -p pypi-AgEIcHlwaS5vcmcCJGI4YjNhZmQ2LWE2ZjktNDI5Mi04ZWFiLWQ1OTcxZWE3NzQ1ZQ', 'pypi-AgEI'],
    ['age AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS3J7', 'AGE-SECRET-KEY-1QYQ'],
    ['DATABASE_URL=postgres://app:hunter2horse@db.internal:5432/prod', 'hunter2'],
    ['curl -X POST -d @msg.json https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/aBcDeFgHiJkLmNoPqRsTuVwX', 'aBcDeFgH'],
    ['ya29.a0AfH6SMBx3Kq-9yZ_b0aW1cHJvamVjdC1pZC0xMjM0NTY3ODkw', 'a0AfH6SM'],
    ['SENTRY_DSN=https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4567890', '0123456789abcdef'],
    ['mysql -u root -pHunter2secret appdb', 'Hunter2'],
    ['mysqldump --user=root --password=hunter2 appdb > dump.sql', 'hunter2'],
    ['git remote set-url origin https://x-access-token:ghs_0123456789abcdefghijABCDEFGHIJ@github.com/o/r', 'ghs_0123'],
  ])('takes the secret out of %s', (line, part) => {
    const out = redact(line);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain(part);
  });

  it('keeps the user and host of a URL, its password out', () => {
    expect(redact('DATABASE_URL=postgres://app:hunter2horse@db.internal:5432/prod')).toBe('DATABASE_URL=postgres://app:[redacted]@db.internal:5432/prod');
  });

  it('takes out only the secret part: a token as a URL\'s password (its host and path kept), a webhook\'s path, a DSN\'s key, a flag\'s value', () => {
    expect(redact('git remote set-url origin https://x-access-token:ghs_0123456789abcdefghijABCDEFGHIJ@github.com/o/r')).toBe('git remote set-url origin https://x-access-token:[redacted]@github.com/o/r');
    expect(redact('git clone https://x-access-token:Zm9vYmFyYmF6cXV1eDEyMzQ1@github.com/o/r.git src')).toBe('git clone https://x-access-token:[redacted]@github.com/o/r.git src');
    expect(redact('curl -d @msg.json https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/aBcDeFgHiJkLmNoPqRsTuVwX ok')).toBe('curl -d @msg.json https://hooks.slack.com/services/[redacted] ok');
    expect(redact('gcloud auth print-access-token: ya29.a0AfH6SMBx3Kq-9yZ_b0aW1cHJvamVjdC1pZC0xMjM0NTY3ODkw done')).toBe('gcloud auth print-access-token: [redacted] done');
    expect(redact('dsn https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4567890')).toBe('dsn https://[redacted]@o123456.ingest.sentry.io/4567890');
    expect(redact('dsn https://0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210@sentry.example.com/7')).toBe('dsn https://[redacted]:[redacted]@sentry.example.com/7');
    expect(redact('mysql -h db-prod -u app -pS3cr3t -e "select 1" | tee out; mkdir -p x')).toBe('mysql -h db-prod -u app -p[redacted] -e "select 1" | tee out; mkdir -p x');
    expect(redact("mariadb -uroot -p'two words' shop")).toBe('mariadb -uroot -p[redacted] shop');
    expect(redact('mysqldump --user=root --password=hunter2 appdb > dump.sql')).toBe('mysqldump --user=root --password=[redacted] appdb > dump.sql');
    expect(redact('pg_dump "--password=x1" db')).toBe('pg_dump "--password=[redacted]" db');
    // A quoted value, whole; the client by a bin/ path or after another command.
    expect(redact('mysql -u root --password="hunter2 two" db')).toBe('mysql -u root --password=[redacted] db');
    expect(redact("psql --password='s3cret' -h db")).toBe('psql --password=[redacted] -h db');
    expect(redact('/usr/bin/mysql -uroot -pHunter2x app')).toBe('/usr/bin/mysql -uroot -p[redacted] app');
    expect(redact('docker exec -it db mysql -u root -pS3cret app')).toBe('docker exec -it db mysql -u root -p[redacted] app');
    for (const client of ['mariadb-dump', 'mariadb-admin', 'mysqlpump', 'mysql_upgrade', 'mysqldump']) expect(redact(`${client} -uroot -pS3cretx db`)).toBe(`${client} -uroot -p[redacted] db`);
  });

  it.each([
    'npm test -- --reporter=verbose',
    'cache_key=session_cache_eviction',
    'the task-list is done: 3 passed, 0 failed',
    'commit 8a13e00 moves things down',
    'token=short',
    'https://example.com/?page=2&sort=name',
    'ssh git@github.com and https://user@example.com/x, time 10:30@home',
    'npm_config_cache=/home/dev/.npm',
    'mysql -u root -p appdb',
    'mysql -h db -P 3306 shop',
    'mkdir -p /tmp/x && ssh -p 22 host && gcc -pthread -pedantic a.c',
    'run --password-file=/etc/pw and --password=$DB_PASS and --password=',
    'https://hooks.slack.com/ and https://hooks.slack.com/services/T01',
    'https://git@github.com/o/r and https://o123.ingest.sentry.io/456 and https://deadbeef@example.com',
    'the ya29 prefix, ya29.short, version ya29.1',
    'find /var/lib/mysql -name x -print',
    'find /srv/mysql -type d -prune -o -print',
    'ls mysql-data -perm 600',
  ])('keeps ordinary text: %s', (line) => {
    expect(redact(line)).toBe(line);
  });
});

/** Real keys of each kind, as files hold them (node:crypto makes them; OpenSSH, PGP and PuTTY ones are shaped as their tools write them). */
function keys(): Record<string, string> {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const body = (n: number): string => Array.from({ length: n }, () => randomBytes(48).toString('base64')).join('\n');
  return {
    'RSA (PKCS#1)': rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    'PKCS#8': rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    EC: ec.privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
    'ENCRYPTED (PKCS#8)': rsa.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pass phrase' }).toString(),
    'ENCRYPTED (PKCS#1, headers)': rsa.privateKey.export({ type: 'pkcs1', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pass phrase' }).toString(),
    OPENSSH: `-----BEGIN OPENSSH PRIVATE KEY-----\n${body(7)}\n-----END OPENSSH PRIVATE KEY-----\n`,
    'PGP PRIVATE KEY BLOCK': `-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: a test key\n\n${body(30)}\n=${randomBytes(3).toString('base64')}\n-----END PGP PRIVATE KEY BLOCK-----\n`,
    DSA: `-----BEGIN DSA PRIVATE KEY-----\n${body(8)}\n-----END DSA PRIVATE KEY-----\n`,
    'SSH2 (ssh.com)': `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "2048-bit rsa"\n${body(12)}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----\n`,
    PuTTY: `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261204\nPublic-Lines: 2\n${body(2)}\nPrivate-Lines: 1\n${body(1)}\nPrivate-MAC: ${randomBytes(32).toString('hex')}\n`,
  };
}

/** The key's lines that are secret: every line but its markers and headers. */
const secretLines = (key: string): string[] => key.split('\n').filter((l) => l.length >= 20 && !/PRIVATE KEY|PuTTY|Proc-Type|DEK-Info|Comment|Lines:/.test(l));

describe('a private key of many lines', () => {
  it.each(Object.entries(keys()))('is redacted whole, %s, in a text of many lines (a reply, a tool run), the lines around it kept', (_kind, key) => {
    const out = redact(`I printed the key file:\n${key}\nand then the tests ran: 3 passed`);
    for (const l of secretLines(key)) expect(out).not.toContain(l);
    expect(out.startsWith('I printed the key file:\n[redacted]\n')).toBe(true);
    expect(out.endsWith('\nand then the tests ran: 3 passed')).toBe(true);
    expect(out.split('\n')).toHaveLength(key.split('\n').length + 2);
  });

  it.each(Object.entries(keys()))('is redacted whole, %s, as a pane prints it a line at a time, interleaved with another pane', (_kind, key) => {
    const kb = new KeyBlocks();
    const lines = ['cat id_key', ...key.split('\n'), 'done'];
    const out = lines.map((l, i) => {
      // Another pane prints meanwhile, itself no key.
      expect(kb.line('other', i, `build step ${i} ok`)).toBe(`build step ${i} ok`);
      return kb.line('pane', i, l);
    });
    for (const l of secretLines(key)) expect(out).not.toContain(l);
    expect(out[0]).toBe('cat id_key');
    expect(out.at(-1)).toBe('done');
    expect(kb.inside('pane')).toBe(false);
  });

  it('a JSON service-account file: its private_key on one line (with \\n escapes) is redacted, the other fields kept', () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const line = `  "private_key": ${JSON.stringify(pem)},`;
    const kb = new KeyBlocks();
    expect(kb.line('p', 0, line)).toBe('  "private_key": "[redacted]\\n",');
    expect(kb.inside('p')).toBe(false);
    expect(kb.line('p', 1, '  "client_email": "svc@proj.iam.gserviceaccount.com",')).toBe('  "client_email": "svc@proj.iam.gserviceaccount.com",');
    const file = JSON.stringify({ type: 'service_account', private_key: pem, client_email: 'svc@proj.iam.gserviceaccount.com' }, null, 2);
    const out = redact(file);
    for (const l of secretLines(pem)) expect(out).not.toContain(l);
    expect(out).toContain('"client_email": "svc@proj.iam.gserviceaccount.com"');
  });

  it(`a BEGIN without an END is redacted for ${KEY_LINES} lines from it, then lines are themselves again`, () => {
    const kb = new KeyBlocks();
    expect(kb.line('p', 10, '-----BEGIN EC PRIVATE KEY-----')).toBe(REDACTED);
    expect(kb.line('p', 11, 'MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oQ')).toBe(REDACTED);
    // Lines the index let go (a flood) count: the block ends by the pane's line numbers.
    expect(kb.line('p', 10 + KEY_LINES - 1, 'still inside')).toBe(REDACTED);
    expect(kb.line('p', 10 + KEY_LINES, 'npm test: 3 passed')).toBe('npm test: 3 passed');
    expect(kb.inside('p')).toBe(false);
    // In one text too.
    const text = ['-----BEGIN PRIVATE KEY-----', ...Array.from({ length: KEY_LINES + 5 }, (_, i) => `line ${i}`)].join('\n');
    expect(redact(text).split('\n').filter((l) => l !== REDACTED)).toEqual(['line 199', 'line 200', 'line 201', 'line 202', 'line 203', 'line 204']);
  });

  it("a command's end closes a block its output left open (`head -3 key.pem`)", () => {
    const kb = new KeyBlocks();
    kb.line('p', 0, '-----BEGIN RSA PRIVATE KEY-----');
    kb.line('p', 1, 'MIIEpAIBAAKCAQEAx9');
    kb.end('p');
    expect(kb.line('p', 2, 'the next command printed this')).toBe('the next command printed this');
  });

  it('keeps what is no private key: a certificate, a public key, prose about keys', () => {
    const kb = new KeyBlocks();
    const cert = ['-----BEGIN CERTIFICATE-----', 'MIIBszCCAVmgAwIBAgIUQ', '-----END CERTIFICATE-----', '-----BEGIN PUBLIC KEY-----', 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE', '-----END PUBLIC KEY-----', 'store the private key in the vault, not the repo'];
    cert.forEach((l, i) => expect(kb.line('p', i, l)).toBe(l));
    expect(redact(cert.join('\n'))).toBe(cert.join('\n'));
  });
});

describe("the first look (mayHold): says yes to every line redactLine would change, so none is skipped", () => {
  it.each([
    'sk-proj-abcDEF1234567890ghijKLMN',
    'ghp_0123456789abcdefghijABCDEFGHIJ',
    'gho_0123456789abcdefghijABCDEFGHIJ',
    'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
    'AKIAIOSFODNN7EXAMPLE',
    'ASIAIOSFODNN7EXAMPLE',
    'xoxp-123456789012-abcdefABCDEF',
    'AIzaSyA1234567890abcdefghijklmnopqrstu',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'rk_test_4eC39HqLyjWDarjtT1zdp7dc',
    'npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
    'glpat-xY7zQ2wE9rT4uI1oP3aS',
    'hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
    'pypi-AgEIcHlwaS5vcmcCJGI4YjNhZmQ2LWE2ZjktNDI5Mi04ZWFiLWQ1OTcxZWE3NzQ1ZQ',
    'AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS3J7',
    '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC\\n-----END PRIVATE KEY-----\\n"}',
    'PuTTY-User-Key-File-3: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBmpF0bNs0eWq',
    'postgres://app:hunter2horse@db.internal:5432/prod',
    'TOKEN=Zm9vYmFyYmF6cXV1eDEyMzQ1Njc4OTA',
    'Api_Key : "d41d8cd98f00b204e9800998ecf8427e"',
    "SECRETS='Tr0ub4dor&3xyzQ9!kLmN'",
    'PassWord=Tr0ub4dor&3xyzQ9!kLmN',
    'passwd:\tTr0ub4dor&3xyzQ9!kLmN',
    'db_pwd = Tr0ub4dor&3xyzQ9!kLmN',
    'AUTHORIZATION: Bearer Zm9vYmFyYmF6cXV1eDEyMzQ1Njc4OTA=',
    'auth=Zm9vYmFyYmF6cXV1eDEyMzQ1Njc4OTA=',
    'bearer: "Zm9vYmFyYmF6cXV1eDEyMzQ1Njc4OTA="',
    'Credentials: Zm9vYmFyYmF6cXV1eDEyMzQ1Njc4OTA=',
    'https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/aBcDeFgHiJkLmNoPqRsTuVwX',
    'ya29.a0AfH6SMBx3Kq-9yZ_b0aW1cHJvamVjdC1pZC0xMjM0NTY3ODkw',
    'https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4567890',
    'mysql -uroot -pHunter2secret',
    'MariaDB -p"two words"',
    '--password=x',
    'https://x-access-token:ghs_0123456789abcdefghijABCDEFGHIJ@github.com/o/r',
  ])('a secret of each shape and name, in a line of other words, is redacted through redact and KeyBlocks: %s', (secret) => {
    for (const line of [secret, `some words before ${secret} and after`, `"${secret}"`]) {
      const expected = redactLine(line);
      expect(expected).toContain(REDACTED);
      expect(mayHold(line)).toBe(true);
      expect(redact(line)).toBe(expected);
      expect(new KeyBlocks().line('p', 0, line)).toBe(expected);
    }
  });

  it('on many lines made of the shapes\' and names\' pieces, redact and KeyBlocks give what redactLine gives (the first look skips no line it changes)', () => {
    const pieces = ['sk-', 'gh', 'p_', 'u_', 'github_pat_', 'AKIA', 'ASIA', 'AIza', 'xoxb-', 'xox', 'eyJ', 'ey', 'J', 'k_live_', 'k_test_', 'r', 'npm_', 'glpat-', 'hf_', 'pypi-', 'AGE-SECRET-KEY-1', 'AGE-', 'PRIVATE KEY', '-----BEGIN RSA ', '-----', 'PuTTY-User-Key-File-2:', 'key', 'KEY', 'Token', 'tokens', 'secret', 'passwd', 'PassWord', 'pwd', 'auth', 'Authorization', 'bearer', 'Bearer ', 'credentials', '"', "'", ' ', '\t', ':', '=', '://', 'https', '@', '/', '-', '_', 'A', 'P', 's', 'k', 'Zm9vYmFyYmF6cXV1eDEy', 'Tr0ub4dor&3xyzQ9!kLmN', 'abcdefghijABCDEFGHIJ0123456789abcdefghijABCDEFGHIJ0123456789', 'hunter2', 'ya29', 'ya29.', '.', 'hooks.slack.com/', 'services/', 'T01ABCDEF/B02GHIJKL/', 'mysql', 'mariadb', ' -p', '-p', 'p', '--password=', '$', '0123456789abcdef0123456789abcdef', 'x-access-token:', '|', ';'];
    let seed = 36;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    let changed = 0;
    for (let i = 0; i < 20_000; i++) {
      let line = '';
      for (let j = 1 + Math.floor(rand() * 10); j > 0; j--) line += pieces[Math.floor(rand() * pieces.length)];
      const expected = redactLine(line);
      if (expected !== line) {
        changed++;
        expect(mayHold(line)).toBe(true);
      }
      expect(redact(line)).toBe(expected);
      expect(new KeyBlocks().line('p', 0, line)).toBe(expected);
    }
    // (The pieces make lines with secrets often enough that the comparison means something.)
    expect(changed).toBeGreaterThan(2_000);
  });

  it('says no to ordinary lines, a name not followed by = or : among them', () => {
    for (const line of ['the token is refreshed by the server', 'monkey keyboard authors', '2026-11-27T08:00:00.000Z INFO cache_value=1x3f', 'src/kalo/mine.ts:12:4 - error TS2322', 'as-k sk8 gh_ AKIa eyj private key, ://host']) expect(mayHold(line)).toBe(false);
  });
});
