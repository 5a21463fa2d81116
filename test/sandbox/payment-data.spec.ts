import {
  getBoletoInfo,
  getPixPayloadInfo,
  isValidBoleto,
  isValidPixPayload,
} from '@brazilian-utils/brazilian-utils';
import type { WireInvoiceCurrentResponse } from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { call, createBody } from './helpers';

/** CRC16/CCITT-FALSE, as the BR Code manual defines it, written here independently of any library. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** Módulo 11 general check digit of a 44-digit bank barcode (position 5), weights 2..9 from the right. */
function barcodeDv(barcode: string): number {
  const digits = barcode.slice(0, 4) + barcode.slice(5);
  let sum = 0;
  let w = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * w;
    w = w === 9 ? 2 : w + 1;
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

describe('sandbox: payment data (PIX BR Code, bank slip, QR image)', () => {
  let sandbox: SandboxServer;
  let invoice: WireInvoiceCurrentResponse['invoice'];
  beforeAll(async () => {
    sandbox = await startSandbox({ clock: () => new Date('2026-11-21T13:00:00Z') });
    const body = createBody({
      payment: {
        type: 2,
        due_at: '2026-12-15',
        products: [{ id: '1', title: 'TV', qnt: 1, amount: 3456.78 }],
      },
    });
    invoice = (await call<WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', body)).body.invoice;
  });
  afterAll(() => sandbox.close());

  it('issues a valid PIX copy-and-paste payload with the right CRC and amount', () => {
    const payload = invoice.pix.payload as string;
    expect(isValidPixPayload(payload)).toBe(true);
    expect(payload.slice(-8, -4)).toBe('6304');
    expect(payload.slice(-4)).toBe(crc16(payload.slice(0, -4)));
    expect(getPixPayloadInfo(payload)).toMatchObject({ amount: 3456.78, txid: `SBX${invoice.id}` });
    const tampered = payload.slice(0, -1) + (payload.endsWith('0') ? '1' : '0');
    expect(isValidPixPayload(tampered)).toBe(false);
  });

  it('issues a bank slip whose digitable line and barcode have valid check digits', () => {
    const { line, barcode } = invoice.billet as { line: string; barcode: string };
    expect(line).toMatch(/^\d{47}$/);
    expect(barcode).toMatch(/^\d{44}$/);
    expect(isValidBoleto(line)).toBe(true);
    expect(Number(barcode[4])).toBe(barcodeDv(barcode));
    // The barcode and the line carry the same fields in different places (Carta-Circular 2.926/2000).
    expect(barcode.slice(0, 4)).toBe(line.slice(0, 4));
    expect(barcode.slice(19, 24)).toBe(line.slice(4, 9));
    expect(barcode.slice(24, 34)).toBe(line.slice(10, 20));
    expect(barcode.slice(34, 44)).toBe(line.slice(21, 31));
    expect(barcode[4]).toBe(line[32]);
    expect(barcode.slice(5, 19)).toBe(line.slice(33, 47));
    const info = getBoletoInfo(line, { referenceDate: new Date('2026-11-21') });
    expect(info?.amount).toBe(345678);
    expect(info?.expirationDate?.toISOString().slice(0, 10)).toBe('2026-12-15');
    const broken = line.slice(0, 9) + ((Number(line[9]) + 1) % 10) + line.slice(10);
    expect(isValidBoleto(broken)).toBe(false);
  });

  it('serves the QR code as a real PNG and the slip barcode as SVG', async () => {
    const png = await fetch(invoice.pix.image as string);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await png.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const svg = await fetch(invoice.billet?.image as string);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    const text = await svg.text();
    expect(text).toMatch(/^<svg /);
    // Interleaved 2 of 5: a start of 2 bars, 5 bars per pair of digits, a stop of 2 bars.
    expect(text.match(/<rect x=/g)?.length).toBe(2 + 22 * 5 + 2);
  });

  it('serves a payment page at links.url that shows the payload and the line', async () => {
    const res = await fetch(invoice.links.url as string);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain(invoice.billet?.line);
    expect(html).toContain(invoice.pix.payload);
    expect(html).toContain('R$ 3.456,78');
  });

  it('answers 404 for the QR of an unknown invoice', async () => {
    const res = await fetch(`${sandbox.url}/_sandbox/qr/999999.png`);
    expect(res.status).toBe(404);
  });
});
