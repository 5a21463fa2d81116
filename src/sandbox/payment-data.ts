import { randomBytes } from 'node:crypto';
import { generatePixPayload } from '@brazilian-utils/brazilian-utils';
import { daysBetween } from './dates';
import { SandboxError } from './errors';
import { toDecimalString } from './money';

/** The sandbox account's PIX key (a random-key EVP) and the merchant data written in every BR Code. */
export const PIX_KEY = '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc';
export const PIX_MERCHANT_NAME = 'Sandbox Merchant';
export const PIX_MERCHANT_CITY = 'Sao Paulo';
/** Bank code (COMPE) and agreement number written in bank slips. */
export const BILLET_BANK = '001';
export const BILLET_AGREEMENT = '1234567';
/** ISPB written in PIX end-to-end identifiers. */
const PIX_ISPB = '00000000';

/**
 * A static PIX BR Code for the invoice: the account key, the amount and a transaction id, with a valid CRC16
 * (built by @brazilian-utils, so the sandbox does not share the client's idea of the format).
 */
export function pixPayload(invoiceId: string, grossCents: number): string {
  const payload = generatePixPayload({
    key: PIX_KEY,
    merchantName: PIX_MERCHANT_NAME,
    merchantCity: PIX_MERCHANT_CITY,
    amount: Number(toDecimalString(grossCents)),
    txid: `SBX${invoiceId}`.replace(/[^A-Za-z0-9]/g, '').slice(0, 25),
  });
  if (payload === null) throw new Error(`could not build a PIX payload for invoice ${invoiceId}`);
  return payload;
}

/** A PIX end-to-end id (`E` + ISPB + yyyyMMddHHmm + 11 characters), or a refund id with `D`. */
export function pixEndToEndId(at: Date, prefix: 'E' | 'D' = 'E'): string {
  const stamp = at.toISOString().replace(/\D/g, '').slice(0, 12);
  const tail = randomBytes(8).toString('hex').toUpperCase().slice(0, 11);
  return `${prefix}${PIX_ISPB}${stamp}${tail}`;
}

/**
 * A bank slip (cobrança bancária, Carta-Circular BCB 2.926/2000): the 44-digit barcode and the 47-digit
 * digitable line, with the real amount, the due-date factor and valid check digits.
 */
export function billet(
  seq: number,
  grossCents: number,
  dueDay: string,
): { line: string; barcode: string; ourNumber: string } {
  if (grossCents < 0 || grossCents > 9_999_999_999) throw new Error('bank slip amount out of range');
  const ourNumber = `${BILLET_AGREEMENT}${String(seq).padStart(10, '0')}`;
  const free = `000000${ourNumber}17`;
  const factor = dueFactor(dueDay);
  const amount = String(grossCents).padStart(10, '0');
  const partial = `${BILLET_BANK}9${factor}${amount}${free}`;
  const barcode = `${partial.slice(0, 4)}${mod11(partial)}${partial.slice(4)}`;
  return { barcode, line: lineOf(barcode), ourNumber };
}

/** The digitable line of a 44-digit bank barcode: three fields with a módulo 10 digit each, the DV, factor+amount. */
export function lineOf(barcode: string): string {
  const f1 = barcode.slice(0, 4) + barcode.slice(19, 24);
  const f2 = barcode.slice(24, 34);
  const f3 = barcode.slice(34, 44);
  return `${f1}${mod10(f1)}${f2}${mod10(f2)}${f3}${mod10(f3)}${barcode[4]}${barcode.slice(5, 19)}`;
}

/** Days since 1997-10-07, restarting at 1000 after 9999 (the 2025-02-22 reset). */
export function dueFactor(day: string): string {
  const days = daysBetween('1997-10-07', day);
  return String(((days - 1000) % 9000) + 1000).padStart(4, '0');
}

function mod10(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    const p = Number(digits[i]) * weight;
    sum += p > 9 ? p - 9 : p;
    weight = weight === 2 ? 1 : 2;
  }
  return (10 - (sum % 10)) % 10;
}

function mod11(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/**
 * A PNG of the QR code of a PIX payload. `qrcode` is an optional peer dependency, loaded only here: a store's
 * production install does not need it. Without it, the PNG route answers 501 saying so (the payload itself, what
 * a customer's app reads, is always there).
 */
export async function qrPng(payload: string): Promise<Buffer> {
  let QRCode: typeof import('qrcode');
  try {
    QRCode = await import('qrcode');
  } catch {
    throw new SandboxError(
      501,
      'qrcode_unavailable',
      'PIX QR images need the optional package qrcode: npm install --save-dev qrcode',
    );
  }
  return QRCode.toBuffer(payload, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 256 });
}

const ITF: readonly string[] = [
  'nnwwn',
  'wnnnw',
  'nwnnw',
  'wwnnn',
  'nnwnw',
  'wnwnn',
  'nwwnn',
  'nnnww',
  'wnnwn',
  'nwnwn',
];

/** An SVG of the bank barcode in Interleaved 2 of 5, as printed on a slip. */
export function barcodeSvg(barcode: string): string {
  const elements: string[] = ['n', 'n', 'n', 'n'];
  for (let i = 0; i < barcode.length; i += 2) {
    const bars = ITF[Number(barcode[i])];
    const spaces = ITF[Number(barcode[i + 1])];
    for (let k = 0; k < 5; k++) elements.push(bars[k], spaces[k]);
  }
  elements.push('w', 'n', 'n');
  let x = 10;
  const rects: string[] = [];
  elements.forEach((width, i) => {
    const w = width === 'w' ? 3 : 1;
    if (i % 2 === 0) rects.push(`<rect x="${x}" y="10" width="${w}" height="50"/>`);
    x += w;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${x + 10}" height="70" viewBox="0 0 ${x + 10} 70">` +
    `<rect width="100%" height="100%" fill="#fff"/><g fill="#000">${rects.join('')}</g></svg>`
  );
}
