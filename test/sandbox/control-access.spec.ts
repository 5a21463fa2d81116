import { startSandbox, SandboxServer } from '../../src/sandbox';
import { createBody, rawRequest, TOKEN } from './helpers';

const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('sandbox: who may use the /_sandbox controls', () => {
  let sandbox: SandboxServer;
  afterEach(() => sandbox?.close());

  it('loopback names answer; any other Host is 403 and nothing happens', async () => {
    sandbox = await startSandbox();
    const port = sandbox.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `app.localhost:${port}`]) {
      const res = await rawRequest(`${sandbox.url}/_sandbox/faults`, 'GET', { Host: host });
      expect([host, res.status]).toEqual([host, 200]);
    }
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      '127.0.0.1.evil.example',
      'localhost.evil.example',
    ]) {
      const res = await rawRequest(
        `${sandbox.url}/_sandbox/reset`,
        'POST',
        { Host: host, ...JSON_TYPE },
        '{}',
      );
      expect([host, res.status, res.json.code]).toEqual([host, 403, 'forbidden']);
    }
    // The service's own API is what the spec says, whatever the Host.
    const api = await rawRequest(`${sandbox.url}/invoices`, 'GET', {
      Host: 'api.example',
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(api.status).toBe(200);
  });

  it('writes must be JSON: text/plain, forms and no type are 415, and change nothing', async () => {
    sandbox = await startSandbox({ autoProcessCards: false });
    const created = await rawRequest(
      `${sandbox.url}/invoices`,
      'POST',
      { ...JSON_TYPE, Authorization: `Bearer ${TOKEN}` },
      JSON.stringify(createBody()),
    );
    const id = (created.json.invoice as { id: string }).id;
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
    ]) {
      const headers: Record<string, string> = type ? { 'Content-Type': type } : {};
      const res = await rawRequest(`${sandbox.url}/_sandbox/invoices/${id}/pay`, 'POST', headers, '{}');
      expect([type, res.status, res.json.code]).toEqual([type, 415, 'unsupported_media_type']);
    }
    expect(sandbox.controls.getInvoice(id)!.statusCode).toBe(1);
    const json = await rawRequest(
      `${sandbox.url}/_sandbox/invoices/${id}/pay`,
      'POST',
      { 'Content-Type': 'application/json; charset=utf-8' },
      '{}',
    );
    expect(json.status).toBe(200);
    expect(sandbox.controls.getInvoice(id)!.statusCode).toBe(5);
  });

  it('a configured host name is let in; with a control token every control but the browser GETs needs it', async () => {
    sandbox = await startSandbox({ controlHosts: ['sandbox'], controlToken: 'ctl-secret' });
    const token = { 'X-Sandbox-Control-Token': 'ctl-secret' };
    expect(
      (await rawRequest(`${sandbox.url}/_sandbox/webhooks`, 'GET', { Host: 'sandbox:4010', ...token }))
        .status,
    ).toBe(200);
    expect((await rawRequest(`${sandbox.url}/_sandbox/webhooks`, 'GET', {})).status).toBe(403);
    expect(
      (await rawRequest(`${sandbox.url}/_sandbox/webhooks`, 'GET', { 'X-Sandbox-Control-Token': 'wrong' }))
        .status,
    ).toBe(403);
    expect(
      (await rawRequest(`${sandbox.url}/_sandbox/reset`, 'POST', { ...JSON_TYPE, ...token }, '{}')).status,
    ).toBe(200);
    // The payment page and the QR image are opened from links: no header possible, so no token asked (404: no invoice).
    expect((await rawRequest(`${sandbox.url}/_sandbox/qr/1.png`, 'GET', {})).status).toBe(404);
  });
});

describe('sandbox: text with control characters (A17)', () => {
  it('follows the same rule as the module, word for word', async () => {
    const sandboxRule = await import('../../src/sandbox/constants');
    const moduleRule = await import('../../src/domain/text-and-days');
    expect(sandboxRule.CONTROL_CHARACTERS.source).toBe(moduleRule.CONTROL_CHARACTERS.source);
    expect(sandboxRule.CONTROL_CHARACTERS.flags).toBe(moduleRule.CONTROL_CHARACTERS.flags);
    expect(sandboxRule.CONTROL_CHARACTERS_PROBLEM).toBe(moduleRule.CONTROL_CHARACTERS_PROBLEM);
  });

  it('refuses them with 422 naming the field', async () => {
    const sandbox = await startSandbox();
    try {
      const body = createBody({ client: { name: 'Ana\u202Egpj' } });
      const res = await rawRequest(
        `${sandbox.url}/invoices`,
        'POST',
        { ...JSON_TYPE, Authorization: `Bearer ${TOKEN}` },
        JSON.stringify(body),
      );
      expect(res.status).toBe(422);
      expect(res.json.errors).toEqual({ 'client.name': [expect.stringMatching(/control characters/)] });
    } finally {
      await sandbox.close();
    }
  });
});
